#include "harness/replay/replay_options.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/common/lists.hpp"
#include "algorithms/parameter_server/plan.hpp"
#include "harness/common/sizes.hpp"
#include "workloads/workload_csv.hpp"

namespace collbench {
namespace {

template <class T, class Parse>
std::vector<T> parse_list(const std::string& text, const std::string& flag, const std::string& valid, Parse parse) {
  std::vector<T> out;
  for (const std::string& item : split_list(text)) {
    auto v = parse(item);
    if (!v) throw std::invalid_argument("unknown " + flag + " '" + item + "'; valid: " + valid);
    if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
  }
  if (out.empty()) throw std::invalid_argument(flag + " names nothing");
  return out;
}

std::optional<SparseStrategy> parse_sparse_strategy(const std::string& name) {
  for (SparseStrategy s : {SparseStrategy::dense, SparseStrategy::allgather, SparseStrategy::ps})
    if (sparse_strategy_name(s) == name) return s;
  return std::nullopt;
}

}  // namespace

std::string_view sparse_strategy_name(SparseStrategy s) {
  switch (s) {
    case SparseStrategy::none: return "none";
    case SparseStrategy::dense: return "dense";
    case SparseStrategy::allgather: return "allgather";
    case SparseStrategy::ps: return "ps";
  }
  return "?";
}

void add_workload_flags(CLI::App& app, ReplayOptions& r, ReplayFlags& f) {
  const std::string model = "Model", compute = "Compute model", buckets = "Bucketing";
  app.add_option("--batch", r.workload_options.batch, "lm1b: sequences per rank and step (default 128)")->group(model);
  app.add_option("--seq-len", r.workload_options.seq_len, "bert: tokens per sequence (default 128); lm1b: unrolled steps (default 20)")
      ->group(model);
  app.add_option("--zipf", r.workload_options.zipf, "Exponent of the Zipf distribution sparse lookups follow (default 1)")
      ->group(model);
  app.add_option("--seed", r.seed, "Seed of the sparse lookups")->capture_default_str()->group(model);
  app.add_option("--compute-ms", r.compute_ms, "Compute of one step (forward, backward, optimizer), spread over the "
                                               "layers by FLOPs, backward twice forward")->group(compute);
  app.add_option("--optimizer-ms", r.optimizer_ms, "Part of --compute-ms that is the optimizer, after communication")
      ->capture_default_str()->group(compute);
  app.add_option("--profile", r.profile_path, "Per-layer compute profile CSV (name,ms) instead of --compute-ms")->group(compute);
  app.add_option("--bucketing", f.bucketings, "none, ddp, fusion, or a comma-separated list")->capture_default_str()->group(buckets);
  app.add_option("--bucket-cap", f.bucket_cap, "ddp: bucket size (PyTorch bucket_cap_mb)")->capture_default_str()->group(buckets);
  app.add_option("--first-bucket", f.first_bucket, "ddp: the first bucket's size")->capture_default_str()->group(buckets);
  app.add_option("--fusion-threshold", f.fusion_threshold, "fusion: largest fused buffer (HOROVOD_FUSION_THRESHOLD)")
      ->capture_default_str()->group(buckets);
  app.add_option("--cycle-ms", r.bucketing.cycle_ms, "fusion: time between fusion cycles (HOROVOD_CYCLE_TIME)")
      ->capture_default_str()->group(buckets);
}

void add_replay_flags(CLI::App& app, ReplayOptions& r, ReplayFlags& f, std::string& csv, std::string& json,
                      std::string& output_dir, int& ranks_per_node) {
  app.add_option("--workload", r.workload, "resnet50, bert-base, bert-large, lm1b, or a workload FILE.csv")
      ->capture_default_str();
  app.add_option("--algorithms,-a", f.algorithms, "Allreduce algorithms for the dense buckets (see 'collbench list')")
      ->capture_default_str();
  app.add_option("--sparse-strategy", f.sparse, "Sparse tables: dense (allreduce the table), allgather (the touched "
                                                "rows), ps (push/pull rows to servers), or a list")->capture_default_str();
  app.add_option("--servers", r.servers, "ps: server ranks (the last S); the others are workers")->capture_default_str();
  app.add_option("--ps-mode", f.ps_mode, "ps: sync, async or bounded")->capture_default_str();
  app.add_option("--steps", r.steps, "Timed steps per configuration")->capture_default_str();
  app.add_option("--warmup", r.warmup, "Untimed steps before each configuration's timed ones (the very first is checked)")
      ->capture_default_str();
  app.add_option("--rounds", r.rounds, "Rounds; each runs every configuration's warm-up and timed steps in turn, so "
                                       "configurations are measured interleaved")->capture_default_str();
  app.add_flag("--check,!--no-check", r.check, "Check the first warm-up step's results (default on)");
  app.add_option("--ranks-per-node", ranks_per_node, "Emulate nodes of this many ranks for hierarchical algorithms");
  app.add_option("--timeline", r.timeline_path, "Chrome-trace JSON of compute and communication per rank (Perfetto)");
  app.add_option("--csv", csv, "CSV output path (default: results/collbench-replay-<time>.csv)");
  app.add_option("--json", json, "JSON output path (default: next to the CSV)");
  app.add_option("--output-dir", output_dir, "Directory for default output files")->capture_default_str();
}

std::optional<ComputeModel> replay_compute_model(const ReplayOptions& r, const Workload& w) {
  if (!r.profile_path.empty()) return compute_from_profile(read_compute_profile_csv(r.profile_path, w));
  if (r.compute_ms != 0) return compute_from_flops(w, r.compute_ms, r.optimizer_ms);
  return std::nullopt;
}

void resolve_replay(ReplayOptions& r, const ReplayFlags& f, const Registry& registry, int nranks, bool replay) {
  const Workload w = load_workload(r.workload, r.workload_options);
  if (r.workload_options.batch < 0 || r.workload_options.seq_len < 0)
    throw std::invalid_argument("--batch and --seq-len must be positive");
  if (r.workload_options.zipf < 0 || !std::isfinite(r.workload_options.zipf))
    throw std::invalid_argument("--zipf must be a non-negative number");
  r.bucketings = parse_list<BucketingPolicy>(f.bucketings, "--bucketing", "none, ddp, fusion",
                                             [](const std::string& s) { return parse_bucketing(s); });
  r.bucketing.ddp_bucket_bytes = parse_size(f.bucket_cap);
  r.bucketing.ddp_first_bucket_bytes = parse_size(f.first_bucket);
  r.bucketing.fusion_threshold_bytes = parse_size(f.fusion_threshold);
  if (!std::isfinite(r.bucketing.cycle_ms) || r.bucketing.cycle_ms < 0)
    throw std::invalid_argument("--cycle-ms must be a non-negative number");
  if (r.compute_ms != 0 && !r.profile_path.empty()) throw std::invalid_argument("give --compute-ms or --profile, not both");
  const bool fusion = std::find(r.bucketings.begin(), r.bucketings.end(), BucketingPolicy::fusion) != r.bucketings.end();
  if ((replay || fusion) && r.compute_ms == 0 && r.profile_path.empty())
    throw std::invalid_argument(std::string(replay ? "replay" : "fusion buckets") +
                                " needs the step's compute: --compute-ms MS or --profile FILE.csv");
  replay_compute_model(r, w);  // its errors now, rather than once ranks are running
  if (!replay) return;
  if (r.steps < 1) throw std::invalid_argument("--steps must be at least 1");
  if (r.rounds < 1) throw std::invalid_argument("--rounds must be at least 1");
  if (r.warmup < 0) throw std::invalid_argument("--warmup must not be negative");
  if (r.check && r.warmup < 1) throw std::invalid_argument("--check checks the first warm-up step: give --warmup 1 or more, or --no-check");
  const auto available = registry.for_collective(Collective::allreduce);
  auto names = [](const AlgorithmEntry* e) { return e->name; };
  r.algorithms = parse_list<const AlgorithmEntry*>(f.algorithms, "allreduce algorithm", join_names(available, names),
                                                   [&](const std::string& s) {
                                                     const AlgorithmEntry* e = registry.find(Collective::allreduce, s);
                                                     return e ? std::optional{e} : std::nullopt;
                                                   });
  if (w.sparse_tensors() == 0) {
    r.sparse_strategies = {SparseStrategy::none};
    return;
  }
  r.sparse_strategies = parse_list<SparseStrategy>(f.sparse, "--sparse-strategy", "dense, allgather, ps",
                                                   [](const std::string& s) { return parse_sparse_strategy(s); });
  if (std::find(r.sparse_strategies.begin(), r.sparse_strategies.end(), SparseStrategy::ps) == r.sparse_strategies.end())
    return;
  ps_roles(nranks, r.servers);  // throws for a server count the ranks cannot hold
  r.ps_mode = registry.find_protocol("ps", f.ps_mode);
  if (!r.ps_mode) throw std::invalid_argument("unknown --ps-mode '" + f.ps_mode + "'; valid: sync, async, bounded");
  std::optional<DType> dtype;
  for (const GradientTensor& t : w.tensors) {
    if (!t.sparse) continue;
    require_ps_dtype(t.dtype);
    if (dtype && *dtype != t.dtype) throw std::invalid_argument("--sparse-strategy ps needs every sparse tensor in one dtype");
    dtype = t.dtype;
  }
}

}  // namespace collbench
