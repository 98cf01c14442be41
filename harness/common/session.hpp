#pragma once
// What a command that runs collectives resolves once MPI is up: the registry, the
// ranks' transport, and the nodes they sit on. Parsed options stay apart from this.
#include <mpi.h>

#include "collectives/schedule/registry.hpp"
#include "collectives/transport/mpi/transport.hpp"
#include "harness/common/interconnect.hpp"
#include "harness/common/topology.hpp"

namespace collbench {

struct Session {
  // Collective over comm. `ranks_per_node` > 0 emulates nodes (see discover_topology).
  Session(const Registry& registry, MPI_Comm comm, int ranks_per_node)
      : registry(registry),
        comm(comm),
        transport(comm),
        topology(discover_topology(comm, ranks_per_node)),
        interconnect(discover_interconnect(comm)) {}
  const Registry& registry;
  MPI_Comm comm;  // the harness's own traffic (barriers, control messages)
  MpiTransport transport;
  Topology topology;
  Interconnect interconnect;  // the metadata's, and every row's column (ResultSink)
  int rank() const { return transport.rank(); }
  int size() const { return transport.size(); }
  // The settings schedules are built with on these ranks.
  AlgorithmParams algorithm_params(std::size_t segment_bytes, ExecutionOrder order = ExecutionOrder::dataflow) const {
    return {segment_bytes, topology.node_of_rank, order};
  }
};

}  // namespace collbench
