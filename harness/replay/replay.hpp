#pragma once
// `collbench replay`: every configuration (allreduce algorithm x bucketing x sparse
// strategy) replays the workload's steps with real communication and emulated
// compute, then reports per step and on average, and names the fastest.
#include <cstdint>
#include <nlohmann/json.hpp>

#include "harness/common/result_sink.hpp"
#include "harness/common/session.hpp"
#include "harness/replay/replay_options.hpp"

namespace collbench {

// Collective over the session's ranks. Rank 0 prints the table; rows go to `sink` as
// each configuration finishes. Returns the wrong results found by the checked step;
// throws RunError on every rank alike when the parameter server reports an error.
// `references` carries the dense and allgather exchanges, in its memory (device memory's
// transport); nullptr: the session's MPI transport.
std::int64_t run_replay(const ReplayOptions& r, Session& session, ResultSink& sink, Transport* references = nullptr);

// The --timeline file, as the sink vets and writes it.
inline OtherOutput timeline_output(const ReplayOptions& r) { return {"--timeline", r.timeline_path}; }

// Replay's options, workload, compute model and column definitions, for the metadata.
void add_replay_metadata(nlohmann::json& metadata, const ReplayOptions& r);

}  // namespace collbench
