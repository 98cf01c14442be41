#pragma once
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>

#include "harness/command_line.hpp"
#include "harness/common/topology.hpp"

namespace collbench {

// Distinct host names of all ranks (collective over comm).
std::vector<std::string> rank_hosts(MPI_Comm comm);

// Everything needed to reproduce a run: library, environment, hosts, revision,
// command line, options. Collective over comm.
nlohmann::json collect_metadata(int argc, const char* const* argv, MPI_Comm comm, const RunOptions& o,
                                const std::string& transport, const Topology& topology);

// The name the MPI baseline's rows carry: "mpi", or "mpi[<algorithm>]" when MPICH is
// forced to one algorithm for this collective, so runs with different forced
// algorithms can be merged into one table.
std::string mpi_baseline_row_name(Collective c);

}  // namespace collbench
