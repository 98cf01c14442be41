#include "harness/common/interconnect.hpp"

#include <cstdlib>
#include <set>

#include "harness/common/topology.hpp"

namespace collbench {

Interconnect discover_interconnect(MPI_Comm comm) {
  Interconnect i;
  // Host names through control traffic, as the metadata's hosts: MPI's own collectives
  // may be forced to an algorithm that refuses counts this small.
  const auto hosts = rank_hosts(comm);
  i.hosts = static_cast<int>(std::set<std::string>(hosts.begin(), hosts.end()).size());
  const char* named = std::getenv("COLLBENCH_INTERCONNECT");
  const char* details = std::getenv("COLLBENCH_INTERCONNECT_DETAILS");
  if (named && *named) {
    i.name = named;
    i.source = "COLLBENCH_INTERCONNECT";
  } else {
    i.name = i.hosts == 1 ? "one-host" : "multi-host";
    i.source = "hosts (by name); set COLLBENCH_INTERCONNECT to name it";
  }
  if (details) i.details = details;
  return i;
}

nlohmann::json to_json(const Interconnect& i) {
  return {{"name", i.name}, {"source", i.source}, {"details", i.details}, {"hosts", i.hosts}};
}

}  // namespace collbench
