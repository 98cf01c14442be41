#pragma once
// `collbench run`: checks the known defects, finds the nodes, opens the outputs,
// prints the table and runs the sweep.
#include <nlohmann/json.hpp>
#include <string>

#include "harness/common/invocation.hpp"
#include "harness/run/run_options.hpp"

namespace collbench {

int run_command(RunOptions o, const Invocation& inv);

// The sweep's part of the metadata: timing policy, the MPI baseline, the options and
// the definitions of the columns. `collective` is what --collective said.
void add_sweep_metadata(nlohmann::json& m, const SweepSpec& s, int ranks_per_node, const std::string& collective);

}  // namespace collbench
