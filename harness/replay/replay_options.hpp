#pragma once
// `collbench replay`'s command line.
#include <functional>
#include <string>
#include <vector>

#include "collectives/names.hpp"
#include "collectives/schedule/registry.hpp"
#include "collectives/transport/gpu/gpu.hpp"
#include "harness/common/command_context.hpp"
#include "harness/common/request_limits.hpp"
#include "harness/common/result_sink.hpp"
#include "harness/common/transports.hpp"
#include "harness/common/watchdog.hpp"
#include "harness/workloads/workload_choice.hpp"

namespace collbench {

// How a sparse table's gradient travels: as a dense allreduce of the whole table,
// as an allgather of the rows each rank touched, or pushed to and pulled from
// parameter servers. `none`: the workload has no sparse table.
enum class SparseStrategy { none, dense, allgather, ps };
inline constexpr NameTable<SparseStrategy, 4> kSparseStrategyNames{{{{SparseStrategy::none, "none"},
                                                                     {SparseStrategy::dense, "dense"},
                                                                     {SparseStrategy::allgather, "allgather"},
                                                                     {SparseStrategy::ps, "ps"}}}};

struct ReplayOptions : WorkloadChoice {
  std::vector<const AlgorithmEntry*> algorithms;  // allreduce, for dense buckets
  const AlgorithmEntry* all_to_all = nullptr;     // alltoallv, for the workload's all-to-alls
  std::vector<SparseStrategy> sparse_strategies;  // {none} for a dense workload
  int servers = 1;                                // ps: the last S ranks serve
  const ProtocolEntry* ps_mode = nullptr;
  int steps = 10, warmup = 2, rounds = 1;
  bool check = true;
  std::string timeline_path;
  int ranks_per_node = 0;
  MemoryKind memory = MemoryKind::host;
  TransportKind transport = TransportKind::mpi;  // what carries the dense and allgather exchanges
  OutputOptions out;
  WatchdogLimits watchdog;
  bool force = false;
};

// Strings as typed, resolved by resolve_command.
struct ReplayFlags {
  WorkloadChoiceFlags choice;
  std::string algorithms = "mpi,ring", sparse = "allgather", ps_mode = "sync", memory = "host", all_to_all;
  bool algorithms_given = false;
  TransportFlags transport;
  ReplayOptions parsed;  // what CLI11 parses straight into numbers
};

CLI::App* add_command(CLI::App& app, ReplayFlags& f);
// Checks and resolves everything a rank can check alone; throws std::invalid_argument.
// Refuses (unless --force) a replay whose estimate is absurd (request_limits.hpp).
// `probe` says which GPUs there are, asked only for device memory (tests pass their own).
ReplayOptions resolve_command(const ReplayFlags& f, const CommandContext& c);

}  // namespace collbench
