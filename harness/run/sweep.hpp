#pragma once
// `run`'s validated sweep: every algorithm, every size, checked and timed in interleaved rounds.
#include <cstdint>

#include "harness/common/result_sink.hpp"
#include "harness/common/session.hpp"
#include "harness/run/run_options.hpp"
#include "harness/run/sweep_errors.hpp"

namespace collbench {

// Runs the validated sweep. Collective over the session's ranks; rows go to `sink`
// as each size is measured (rank 0). Returns the wrong elements found (all 0 when the
// spec does not check), on every rank.
// The reference algorithms move their messages through `references` (the baseline
// through its own library on session's communicator).
SweepErrors run_sweep(const SweepSpec& spec, Session& session, Transport& references, ResultSink& sink);
inline SweepErrors run_sweep(const SweepSpec& spec, Session& session, ResultSink& sink) {
  return run_sweep(spec, session, session.transport, sink);
}

}  // namespace collbench
