#pragma once
// `collbench run`: a validated size sweep of one collective's algorithms.
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/schedule/registry.hpp"
#include "collectives/transport/gpu/gpu.hpp"
#include "harness/common/command_context.hpp"
#include "harness/common/request_limits.hpp"
#include "harness/common/result_sink.hpp"
#include "harness/common/sizes.hpp"
#include "harness/common/timing.hpp"
#include "harness/common/transports.hpp"
#include "harness/common/watchdog.hpp"
#include "workloads/traffic.hpp"

namespace CLI {
class App;
}

namespace collbench {

// What one validated sweep needs: `run`'s, and the parameter server's comparison.
struct SweepSpec {
  Collective collective = Collective::allreduce;
  std::vector<const AlgorithmEntry*> algorithms;  // resolved; baseline first
  bool every_library_algorithm = false;           // mpi[all]: leave out what the library cannot run
  // Algorithms the library runs only from a count per call on (MPICH's count >= pof2):
  // they have no rows at the sizes below.
  std::map<const AlgorithmEntry*, std::size_t> smallest_count;
  SizeRange sizes;
  Repetitions reps;
  DType dtype = DType::f32;
  ReduceOp op = ReduceOp::sum;
  int root = 0;
  bool check = true;
  int check_every = 0;  // also check every N-th timed call (the last one of a round always)
  bool in_place = false;
  TimingPolicy timing = TimingPolicy::per_call;
  RankAggregate aggregate = RankAggregate::max;
  std::size_t segment_bytes = 0;                    // pipelined algorithms; 0: each algorithm's default
  ExecutionOrder order = ExecutionOrder::dataflow;  // of the reference algorithms' schedules
  bool bound = false;                               // also measure the point-to-point and kernel limit (bound.hpp)
  bool probe_links = false;                         // also time p2p's link tests between sizes (sweep.hpp)
  TransportKind transport = TransportKind::mpi;     // of the reference algorithms (the baseline's is MPI's own)
  MemoryKind memory = MemoryKind::host;             // where every buffer lives
  std::optional<TrafficPattern> traffic;            // alltoallv: who sends how much to whom
  bool sizes_per_peer = false;                      // -b/-e are one block (OSU), not all of a rank's (nccl-tests)
  // With --bound over shm: each reference algorithm's memory-traffic bound too (bound.hpp).
  bool memory_bound() const { return bound && transport == TransportKind::shm && memory == MemoryKind::host; }
};

struct RunOptions {
  SweepSpec sweep;
  int ranks_per_node = 0;  // emulated nodes; 0: from MPI_COMM_TYPE_SHARED
  OutputOptions out;
  std::string probe_links_path;  // --probe-links: where the link probes' p2p result goes
  WatchdogLimits watchdog;
  bool force = false;  // run what the request limits would refuse
};

// `run`'s flags as typed (the parameter server, -c ps, shares them).
struct RunFlags {
  std::string collective = "allreduce", algorithms, dtype = "f32", op = "sum", min_bytes = "8", max_bytes = "64M",
              timing = "per-call", aggregate = "max", order = "dataflow", memory = "host", segment, warmup = "auto",
              iters = "auto", counts = "uniform", size_per = "rank", mpi_segments;
  bool algorithms_given = false;  // -a "" names nothing, rather than meaning all
  TransportFlags transport;
  bool order_given = false;  // without it, --transport nccl means --order steps
  RunOptions parsed;         // what CLI11 parses straight into numbers
};
// `collbench run` and its flags; `ps` takes the same flags (add_run_flags) for its sweep.
CLI::App* add_command(CLI::App& app, RunFlags& f);
void add_run_flags(CLI::App& app, RunFlags& f);
// Checks and resolves what a rank can check alone; throws std::invalid_argument.
// For -c ps the sweep is of allreduce (what the parameter server is checked with).
// Refuses (unless --force) a sweep whose estimate is absurd (request_limits.hpp).
// `probe` says which GPUs there are, asked only for device memory (tests pass their own).
RunOptions resolve_command(const RunFlags& f, const CommandContext& c);
// What a sweep costs at least: time, calls, memory per rank.
RequestEstimate estimate_sweep(const SweepSpec& s, const std::vector<std::size_t>& sizes);
bool is_parameter_server(const RunFlags& f);

}  // namespace collbench
