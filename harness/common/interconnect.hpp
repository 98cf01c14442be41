#pragma once
// What a run's ranks talk over, for the metadata and every row's `interconnect` column:
// what the launcher named (COLLBENCH_INTERCONNECT, as scripts/emulate_cluster.sh and
// the measurement scripts set it, with COLLBENCH_INTERCONNECT_DETAILS), else "one-host"
// or "multi-host" from how many host names the ranks have.
#include <mpi.h>

#include <string>

#include <nlohmann/json.hpp>

namespace collbench {

struct Interconnect {
  std::string name, source, details;
  int hosts = 1;
};

Interconnect discover_interconnect(MPI_Comm comm);  // collective over comm
nlohmann::json to_json(const Interconnect& i);

}  // namespace collbench
