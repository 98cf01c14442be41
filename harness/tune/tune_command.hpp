#pragma once
// `collbench tune`: the running MPI library's own tuning file from collbench results of
// its forced algorithms (scripts/mpi_algorithms.sh): MPICH's collective selection JSON
// or Open MPI's coll/tuned dynamic rules, with where every number came from; and
// `tune --check FILE`, which refuses a file the library would misread before any run.
#include <string>
#include <vector>

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

// The environment that makes the running library read `path`.
std::vector<std::string> tuning_file_settings(const std::string& path);

}  // namespace collbench
