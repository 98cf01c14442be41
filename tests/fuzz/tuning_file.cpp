// A tuning file checked by `collbench tune --check FILE` (and before every run that is
// asked to read one): MPICH's selection JSON against the running MPICH's own tree, and
// the same bytes as Open MPI's dynamic rules, whichever library this build runs.
#include "harness/tune/mpich_selection.hpp"
#include "harness/tune/open_mpi_rules.hpp"
#include "collectives/transport/mpi/selection_defaults.hpp"
#include "tests/fuzz/fuzz_input.hpp"

using namespace collbench;

namespace {
nlohmann::ordered_json g_mpich_tree;
std::set<std::string> g_known;
std::map<long, long> g_largest;  // Open MPI 4.1's largest algorithm id per COLLTYPE_T
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Where this build runs Open MPI, the MPICH check has no tree and is left out.
  if (const std::string tree = mpich_default_selection_text(); !tree.empty()) {
    g_mpich_tree = nlohmann::ordered_json::parse(tree);
    g_known = mpich_known_containers(g_mpich_tree);
  }
  for (Collective c : kAllCollectives)
    if (const int id = open_mpi_collective_id(c); id >= 0) g_largest[id] = 8;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::as_text(data, size);
  if (!g_mpich_tree.is_null()) fuzz::refusals_allowed([&] { check_mpich_selection(text, g_mpich_tree, g_known); });
  fuzz::refusals_allowed([&] { read_open_mpi_rules(text, g_largest); });
  return 0;
}
