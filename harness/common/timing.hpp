#pragma once
#include <mpi.h>

#include <vector>

#include "harness/command_line.hpp"
#include "collectives/registry.hpp"

namespace collbench {

// Runs `warmup` untimed calls, then `iters` timed calls under `policy`; returns the
// per-iteration times in seconds, combined over ranks as the policy says (same on all ranks).
std::vector<double> time_calls(PreparedCollective& call, int warmup, int iters, TimingPolicy policy, MPI_Comm comm);

}  // namespace collbench
