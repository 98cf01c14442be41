#pragma once
// `collbench tune`: the running MPI library's own tuning file from collbench results of
// its forced algorithms (scripts/mpi_algorithms.sh): MPICH's collective selection JSON
// or Open MPI's coll/tuned dynamic rules, with where every number came from; and
// `tune --check FILE`, which refuses a file the library would misread before any run.
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "harness/common/command_context.hpp"
#include "harness/common/invocation.hpp"

namespace CLI {
class App;
}

namespace collbench {

struct TuneOptions {
  std::vector<std::string> results;  // collbench JSON results
  std::string out_path, check_path;
  bool overwrite = false;
};

struct TuneFlags {
  TuneOptions parsed;
};
CLI::App* add_command(CLI::App& app, TuneFlags& f);
TuneOptions resolve_command(const TuneFlags& f, const CommandContext& c);
int run_command(const TuneOptions& o, const Invocation& inv);

// Whether the running library's tuning file can choose `c`'s algorithm by message size
// (MPICH: a collective of its selection tree; Open MPI: one with a COLLTYPE_T id, not
// alltoallv, which coll/tuned sizes by nothing but the communicator).
bool tunable_through_file(Collective c);

// The environment that makes the running library read `path`.
std::vector<std::string> tuning_file_settings(const std::string& path);

// What the running library would misread in a tuning file's text ({} when nothing).
std::vector<std::string> check_tuning_text(const std::string& text);

// Why a run with the tuning file the library was asked to read (mpi_tuning_file_request)
// is refused: the library ignores it, cannot read it, or would misread it
// (check_tuning_text); "" when there is none or it is fine. Every command asks before it
// runs. After MPI_Init; decided once.
const std::string& tuning_file_refusal();
// MPICH reads its file inside MPI_Init and aborts there on a bad one, so its file is
// checked before: why the run is refused, or "" (also for every other library).
std::string mpich_tuning_file_refusal_before_init();

}  // namespace collbench
