#pragma once
// `run`'s validated sweep: every algorithm, every size, checked and timed in interleaved rounds.
#include <cstdint>

#include "harness/common/result_sink.hpp"
#include "harness/common/session.hpp"
#include "harness/p2p/p2p_probe.hpp"
#include "harness/run/run_options.hpp"
#include "harness/run/sweep_errors.hpp"

namespace collbench {

// Runs the validated sweep. Collective over the session's ranks; rows go to `sink`
// as each size is measured (rank 0). Returns the wrong elements found (all 0 when the
// spec does not check), on every rank.
// The reference algorithms move their messages through `references` (the baseline
// through its own library on session's communicator).
// With spec.probe_links, p2p's link tests also run on `references`, in the same rounds as
// the algorithms, each message size (powers of 2 from 1 B) at the first of the sweep's
// sizes at least as large, so a probe sits next to the collectives whose messages it
// prices; `links` (vetted by `sink`) receives them as a p2p result at the end.
struct LinkProbeFile {
  OtherOutput out;
  nlohmann::json metadata;  // the run's, with p2p's options and definitions
};
// The count of a call at a size of the sweep: per rank (nccl-tests), or per peer (OSU) where asked.
std::size_t sweep_count(const SweepSpec& spec, std::size_t bytes, int nranks);

SweepErrors run_sweep(const SweepSpec& spec, Session& session, Transport& references, ResultSink& sink,
                      const LinkProbeFile* links = nullptr);
inline SweepErrors run_sweep(const SweepSpec& spec, Session& session, ResultSink& sink) {
  return run_sweep(spec, session, session.transport, sink);
}

// What --probe-links measures, as `collbench p2p` with these options would: the tests
// model fit reads, 1 B to the run's largest size by 2, the run's transport and timing
// policy, and its rounds and --time-budget (warm-up and timed calls auto, however many
// calls the algorithms make). The probes and their file's metadata both come from it.
P2pOptions link_probe_options(const SweepSpec& run);

}  // namespace collbench
