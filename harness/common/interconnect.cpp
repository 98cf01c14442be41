#include "harness/common/interconnect.hpp"

#include <cstdlib>

namespace collbench {

Interconnect discover_interconnect(MPI_Comm comm) {
  MPI_Comm host;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  int host_rank = 0;
  MPI_Comm_rank(host, &host_rank);
  MPI_Comm_free(&host);
  Interconnect i;
  int leader = host_rank == 0 ? 1 : 0;
  MPI_Allreduce(&leader, &i.hosts, 1, MPI_INT, MPI_SUM, comm);
  const char* named = std::getenv("COLLBENCH_INTERCONNECT");
  const char* details = std::getenv("COLLBENCH_INTERCONNECT_DETAILS");
  if (named && *named) {
    i.name = named;
    i.source = "COLLBENCH_INTERCONNECT";
  } else {
    i.name = i.hosts == 1 ? "one-host" : "multi-host";
    i.source = "hosts (MPI_COMM_TYPE_SHARED); set COLLBENCH_INTERCONNECT to name it";
  }
  if (details) i.details = details;
  return i;
}

nlohmann::json to_json(const Interconnect& i) {
  return {{"name", i.name}, {"source", i.source}, {"details", i.details}, {"hosts", i.hosts}};
}

}  // namespace collbench
