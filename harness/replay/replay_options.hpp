#pragma once
// The command lines of `collbench replay` and `collbench workloads`.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/bucketing.hpp"
#include "workloads/compute_model.hpp"
#include "collectives/registry.hpp"
#include "workloads/workload.hpp"

namespace collbench {

// How a sparse table's gradient travels: as a dense allreduce of the whole table,
// as an allgather of the rows each rank touched, or pushed to and pulled from
// parameter servers.
enum class SparseStrategy { none, dense, allgather, ps };
std::string_view sparse_strategy_name(SparseStrategy s);

struct ReplayOptions {
  std::string workload = "resnet50";
  WorkloadOptions workload_options;
  std::uint64_t seed = 1;
  double compute_ms = 0, optimizer_ms = 0;
  std::string profile_path;  // per-layer compute profile instead of --compute-ms
  std::vector<BucketingPolicy> bucketings;
  BucketingOptions bucketing;  // caps; `policy` is set per configuration
  std::vector<const AlgorithmEntry*> algorithms;  // allreduce, for dense buckets
  std::vector<SparseStrategy> sparse_strategies;  // {none} for a dense workload
  int servers = 1;                                 // ps: the last S ranks serve
  const ProtocolEntry* ps_mode = nullptr;
  int steps = 10, warmup = 2, rounds = 1;
  bool check = true;
  std::string timeline_path;
};

// Strings as typed, resolved by resolve_replay.
struct ReplayFlags {
  std::string bucketings = "ddp", bucket_cap = "25M", first_bucket = "1M", fusion_threshold = "128M",
              algorithms = "mpi,ring", sparse = "allgather", ps_mode = "sync";
};

// The flags both subcommands share (workload knobs, compute, bucketing).
void add_workload_flags(CLI::App& app, ReplayOptions& r, ReplayFlags& f);
// replay's own flags; `csv`, `json` and `output_dir` are the run's output paths.
void add_replay_flags(CLI::App& app, ReplayOptions& r, ReplayFlags& f, std::string& csv, std::string& json,
                      std::string& output_dir, int& ranks_per_node);
// Checks and resolves everything a rank can check alone; throws std::invalid_argument.
// `need_compute`: replay needs --compute-ms or --profile; `workloads show` only for fusion.
void resolve_replay(ReplayOptions& r, const ReplayFlags& f, const Registry& registry, int nranks, bool replay);

// The step's compute from --profile or --compute-ms; none when neither was given.
std::optional<ComputeModel> replay_compute_model(const ReplayOptions& r, const Workload& w);

}  // namespace collbench
