#pragma once
#include <mpi.h>

#include <stdexcept>

#include "collectives/mpi/transport.hpp"
#include "harness/command_line.hpp"
#include "harness/run/sweep.hpp"
#include "harness/common/topology.hpp"

namespace collbench {

// An error every rank of a parameter-server run knows about (so no rank needs to be
// aborted): a bad tensor definition or sparse row, a lost push.
struct PsRunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The parameter server's size sweep (`--collective ps`): for each size, each mode is
// checked against MPI_Allreduce + the same SGD, then timed over rounds; the chosen
// allreduce algorithms then run among the workers on the same size. Returns the wrong
// elements found; throws PsRunError on every rank alike.
std::int64_t run_ps_sweep(const RunOptions& o, const Registry& registry, MpiTransport& transport, MPI_Comm comm,
                          Outputs out, const Topology& topology);

// Whether this node has more ranks than cores (waits then yield, see MpiTransport).
bool node_is_oversubscribed(const Topology& topology);

}  // namespace collbench
