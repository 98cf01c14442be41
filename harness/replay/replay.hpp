#pragma once
// `collbench replay`: every configuration (allreduce algorithm x bucketing x sparse
// strategy) replays the workload's steps with real communication and emulated
// compute, then reports per step and on average, and names the fastest.
#include <mpi.h>

#include <nlohmann/json.hpp>

#include "collectives/mpi/transport.hpp"
#include "harness/command_line.hpp"
#include "harness/run/sweep.hpp"
#include "harness/common/topology.hpp"

namespace collbench {

// Collective over comm. Rank 0 prints the table and writes rows as each
// configuration finishes. Returns the wrong results found by the checked step;
// throws PsRunError on every rank alike when the parameter server reports an error.
std::int64_t run_replay(const RunOptions& o, const Registry& registry, MpiTransport& transport, MPI_Comm comm,
                        Outputs out, const Topology& topology);

// Replaces the sweep's options and definitions in `metadata` with replay's, and adds
// the workload and the compute model.
void add_replay_metadata(nlohmann::json& metadata, const RunOptions& o);

}  // namespace collbench
