#include "harness/list/list_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "algorithms/baselines/mpi_baselines.hpp"
#include "collectives/transport/mpi/forced_algorithm.hpp"
#include "collectives/transport/mpi/library.hpp"
#include "collectives/transport/mpi/mpi_names.hpp"
#include "collectives/transport/mpi/tool_interface.hpp"
#include "harness/tune/tune_command.hpp"

namespace collbench {

ListOptions resolve_command(const ListOptions& o, const CommandContext&) { return o; }

CLI::App* add_command(CLI::App& app, ListOptions& o) {
  CLI::App* list = app.add_subcommand("list", "List collectives, algorithms, dtypes and ops");
  list->add_flag("--json", o.json, "Print the registry as JSON (for scripts)");
  return list;
}

namespace {

void print_text(const Registry& registry) {
  std::printf(
      "collectives and algorithms (mpi = the MPI library's own collective, the baseline; nccl = NCCL's, "
      "on device memory):\n");
  for (Collective c : kAllCollectives) {
    std::printf("  %s\n", std::string(collective_name(c)).c_str());
    for (const AlgorithmEntry* e : registry.for_collective(c))
      std::printf("    %-22s %s%s\n", e->name.c_str(), e->summary.c_str(),
                  e->pipelined()
                      ? (" [default segment " + std::to_string(e->default_segment_bytes / 1024) + " KiB]").c_str()
                      : "");
  }
  std::printf("  ps (parameter server; choose with --ps-mode, see 'collbench run --help')\n");
  for (const ProtocolEntry* p : registry.protocols())
    std::printf("    %-22s %s\n", p->name.c_str(), p->summary.c_str());
  std::printf("dtypes:");
  for (DType t : kAllDTypes) std::printf(" %s", std::string(dtype_name(t)).c_str());
  std::printf("\nops:");
  for (ReduceOp op : kAllReduceOps) std::printf(" %s", std::string(reduce_op_name(op)).c_str());
  std::printf("\n");
  std::printf("%s's own algorithms (forced one at a time, they make the mpi rows mpi[NAME]):\n",
              mpi_library().summary.c_str());
  for (Collective c : kAllCollectives) {
    const AlgorithmChoices choices = mpi_algorithm_choices(c);
    if (choices.algorithms.empty()) continue;
    std::printf("  %-10s %s\n", std::string(collective_name(c)).c_str(),
                join(choices.algorithms, std::identity{}, " ").c_str());
    std::printf("             with %s\n", join(choices.settings, std::identity{}, " ").c_str());
    if (!mpi_switchable_algorithms(c).empty())
      std::printf("             or in one run, interleaved with the default: -a 'mpi,mpi[all]' or mpi[NAME]\n");
    if (const std::vector<std::string> seg = mpi_segmented_algorithms(c); !seg.empty())
      std::printf("             with a segment of their own (mpi[NAME:seg=BYTES], --mpi-segments): %s\n",
                  join(seg, std::identity{}, " ").c_str());
  }
}

nlohmann::json as_json(const Registry& registry) {
  nlohmann::json collectives = nlohmann::json::object();
  for (Collective c : kAllCollectives) {
    nlohmann::json algorithms = nlohmann::json::array();
    for (const AlgorithmEntry* e : registry.for_collective(c))
      algorithms.push_back({{"name", e->name},
                            {"summary", e->summary},
                            {"baseline", e->is_baseline()},
                            {"library", e->is_baseline() ? e->library : "collbench"},
                            {"default_segment_bytes", e->default_segment_bytes},
                            {"topology_aware", e->topology_aware}});
    collectives[std::string(collective_name(c))] = algorithms;
  }
  nlohmann::json protocols = nlohmann::json::array();
  for (const ProtocolEntry* p : registry.protocols())
    protocols.push_back({{"family", p->family}, {"name", p->name}, {"variant", p->variant}, {"summary", p->summary}});
  std::vector<std::string> dtypes, ops;
  for (DType t : kAllDTypes) dtypes.emplace_back(dtype_name(t));
  for (ReduceOp op : kAllReduceOps) ops.emplace_back(reduce_op_name(op));
  nlohmann::json library_algorithms = nlohmann::json::object();
  for (Collective c : kAllCollectives) {
    const AlgorithmChoices choices = mpi_algorithm_choices(c);
    nlohmann::json& entry = library_algorithms[std::string(collective_name(c))] = {{"algorithms", choices.algorithms},
                                                                                   {"settings", choices.settings}};
    // In the order of the values that select them (1, 2, ...; 0 is the library's choice),
    // with the value the library holds now: how the switch's reading of MPICH is checked.
    entry["switchable"] = mpi_switchable_algorithms(c);
    if (entry["switchable"].empty()) entry["switch_unavailable"] = mpi_switch_unavailable(c);
    entry["segmented"] = mpi_segmented_algorithms(c);  // switched with a segment of their own
    entry["tunable"] = tunable_through_file(c);        // chosen by size in the library's tuning file
    const std::string cvar(mpi_names(c).mpich_algorithm_cvar);
    if (const auto vars = read_control_variables({cvar}); vars.count(cvar) && !entry["switchable"].empty())
      entry["selected_value"] = vars.at(cvar).number;
  }
  return {{"collectives", collectives},
          {"protocols", protocols},
          {"dtypes", dtypes},
          {"ops", ops},
          {"mpi_library",
           {{"summary", mpi_library().summary},
            {"algorithms", library_algorithms},
            {"tuning_file_settings", mpi_tuning_file_settings()}}}};
}

}  // namespace

int run_command(const ListOptions& o, const Invocation& inv) {
  if (inv.rank != 0) return 0;
  if (o.json)
    std::printf("%s\n", as_json(*inv.registry).dump(1).c_str());
  else
    print_text(*inv.registry);
  return 0;
}

}  // namespace collbench
