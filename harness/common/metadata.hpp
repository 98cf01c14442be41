#pragma once
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>

#include "harness/common/topology.hpp"

namespace collbench {

// What every run records so it can be reproduced: tool and build, MPI library,
// relevant environment, hosts, topology, command line. Each command adds its options
// and definitions. Collective over comm.
nlohmann::json collect_metadata(int argc, const char* const* argv, MPI_Comm comm, const std::string& transport,
                                const Topology& topology);

// "0,2,5"
std::string join_ranks(const std::vector<int>& ranks);

}  // namespace collbench
