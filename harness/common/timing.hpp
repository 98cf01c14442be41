#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "collectives/names.hpp"
#include "collectives/registry.hpp"

namespace collbench {

enum class TimingPolicy { per_call, loop };
inline constexpr NameTable<TimingPolicy, 2> kTimingPolicyNames{
    {{{TimingPolicy::per_call, "per-call"}, {TimingPolicy::loop, "loop"}}}};
// What the policy times and how ranks are combined, as the table header and metadata state it.
std::string timing_policy_text(TimingPolicy t);

// Runs `warmup` untimed calls, then `iters` timed calls under `policy`; returns the
// per-iteration times in seconds, combined over ranks as the policy says (same on all ranks).
std::vector<double> time_calls(PreparedCollective& call, int warmup, int iters, TimingPolicy policy, MPI_Comm comm);

}  // namespace collbench
