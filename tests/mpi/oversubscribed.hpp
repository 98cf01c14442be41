#pragma once
// Ranks beyond this machine's cores (3 to 5 on 2 cores) wait the way collbench's own
// commands make them wait there (run_command.cpp): yielding between polls, since a rank
// spinning in a wait holds the core its peer needs until the scheduler's tick. Ranks
// within the cores keep MPI's spinning waits, so both paths are tested.
#include <mpi.h>

#include "collectives/transport/mpi/transport.hpp"
#include "harness/common/topology.hpp"

namespace collbench {

inline bool ranks_exceed_cores() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return exceeds_cores(n, cores_here());
}

inline void yield_where_oversubscribed(MpiTransport& t) { t.set_yield_while_waiting(ranks_exceed_cores()); }

}  // namespace collbench
