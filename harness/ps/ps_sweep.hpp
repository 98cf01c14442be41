#pragma once
// The parameter server's size sweep, mode by mode, with allreduce among the workers.
#include <cstdint>

#include "harness/common/result_sink.hpp"
#include "harness/common/session.hpp"
#include "harness/ps/ps_options.hpp"

namespace collbench {

// Known-gradient steps each mode is checked with before timing (three steps reuse the
// first of a sync server's two sums).
inline constexpr int kPsCheckSteps = 3;

// The parameter server's size sweep (`collbench ps`): for each size, each mode is checked
// against MPI_Allreduce + the same SGD, then timed over rounds; the chosen allreduce
// algorithms then run among the workers on the same size. Returns the wrong elements
// found; throws RunError on every rank alike.
std::int64_t run_ps_sweep(const PsOptions& o, Session& session, ResultSink& sink);

// The allreduce comparison among the workers over `sizes`: the --compare algorithms,
// timed back to back (loop) as the parameter server's steps are.
SweepSpec comparison_sweep(const PsOptions& o, const SizeRange& sizes);

}  // namespace collbench
