#include "harness/workloads/workload_choice.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/common/lists.hpp"
#include "harness/common/numeric_flags.hpp"
#include "harness/common/sizes.hpp"
#include "workloads/workload_csv.hpp"

namespace collbench {

void add_workload_flags(CLI::App& app, WorkloadChoice& m, WorkloadChoiceFlags& f) {
  const std::string model = "Model", compute = "Compute model", buckets = "Bucketing";
  app.add_option("--batch", m.workload_options.batch,
                 "lm1b: sequences per rank and step (default 128); MoE: sequences (1); dlrm-dcnv2: samples (8192)")
      ->check(whole_in(1, kMaxRepeats))
      ->group(model);
  app.add_option("--seq-len", m.workload_options.seq_len,
                 "bert: tokens per sequence (default 128); lm1b: unrolled steps (default 20); MoE: tokens per "
                 "sequence (4096)")
      ->check(whole_in(1, kMaxRepeats))
      ->group(model);
  app.add_option("--zipf", m.workload_options.zipf,
                 "Exponent of the Zipf distribution sparse lookups follow (default 1)")
      ->check(number_in(0, 100))
      ->group(model);
  app.add_option("--routing", m.workload_options.routing,
                 "MoE models: how tokens pick experts: uniform, zipf:S[:SEED], hot:EXPERT:SHARE, or a FILE.csv "
                 "histogram (one weight per expert)")
      ->capture_default_str()
      ->group(model);
  app.add_option("--moe-style", m.workload_options.moe_style,
                 "MoE models: dropless (alltoallv of the routed tokens, Megatron) or padded (alltoall of every "
                 "expert's capacity, DeepSpeed; default: dropless)")
      ->group(model);
  app.add_option("--capacity-factor", m.workload_options.capacity_factor, "MoE padded: capacity factor (default 1.25)")
      ->check(number_in(0.01, 1000))
      ->group(model);
  app.add_option("--layers", m.workload_options.layers,
                 "MoE models: keep this many MoE layers (default all; fewer drops DeepSeek-V3's dense layers too)")
      ->check(whole_in(1, kMaxRepeats))
      ->group(model);
  app.add_option("--vocab", m.workload_options.vocab,
                 "MoE models: vocabulary (embedding and output rows; default the model's)")
      ->check(whole_in(1, 100000000))
      ->group(model);
  app.add_option("--seed", m.seed, "Seed of the sparse lookups")
      ->check(whole_in(0, 18446744073709551615.0L))
      ->capture_default_str()
      ->group(model);
  app.add_option("--compute-ms", m.compute_ms,
                 "Compute of one step (forward, backward, optimizer), spread over the "
                 "layers by FLOPs, backward twice forward")
      ->check(number_in(0, kMaxComputeMs))
      ->group(compute);
  app.add_option("--optimizer-ms", m.optimizer_ms, "Part of --compute-ms that is the optimizer, after communication")
      ->check(number_in(0, kMaxComputeMs))
      ->capture_default_str()
      ->group(compute);
  app.add_option("--profile", m.profile_path, "Per-layer compute profile CSV (name,ms) instead of --compute-ms")
      ->group(compute);
  app.add_option("--bucketing", f.bucketings, kBucketingNames.valid() + ", or a comma-separated list")
      ->capture_default_str()
      ->group(buckets);
  app.add_option("--bucket-cap", f.bucket_cap, "ddp: bucket size (PyTorch bucket_cap_mb)")
      ->capture_default_str()
      ->group(buckets);
  app.add_option("--first-bucket", f.first_bucket, "ddp: the first bucket's size")
      ->capture_default_str()
      ->group(buckets);
  app.add_option("--fusion-threshold", f.fusion_threshold, "fusion: largest fused buffer (HOROVOD_FUSION_THRESHOLD)")
      ->capture_default_str()
      ->group(buckets);
  app.add_option("--cycle-ms", m.bucketing.cycle_ms, "fusion: time between fusion cycles (HOROVOD_CYCLE_TIME)")
      ->check(number_in(0, kMaxComputeMs))
      ->capture_default_str()
      ->group(buckets);
}

std::optional<ComputeModel> workload_compute(const WorkloadChoice& m, const Workload& w) {
  if (!m.profile_path.empty()) return compute_from_profile(read_compute_profile_csv(m.profile_path, w));
  if (m.compute_ms != 0) return compute_from_flops(w, m.compute_ms, m.optimizer_ms);
  return std::nullopt;
}

void resolve_workload(WorkloadChoice& m, const WorkloadChoiceFlags& f, bool replay) {
  m.loaded = load_workload(m.workload, m.workload_options);
  m.bucketings = resolve_list<BucketingPolicy>(
      f.bucketings, [](const std::string& s) { return kBucketingNames.parse(s); },
      [](const std::string& s) { return "unknown --bucketing '" + s + "'; valid: " + kBucketingNames.valid(); },
      "--bucketing names nothing");
  m.bucketing.ddp_bucket_bytes = parse_size(f.bucket_cap);
  m.bucketing.ddp_first_bucket_bytes = parse_size(f.first_bucket);
  m.bucketing.fusion_threshold_bytes = parse_size(f.fusion_threshold);
  if (m.compute_ms != 0 && !m.profile_path.empty())
    throw std::invalid_argument("give --compute-ms or --profile, not both");
  const bool fusion =
      std::find(m.bucketings.begin(), m.bucketings.end(), BucketingPolicy::fusion) != m.bucketings.end();
  if ((replay || fusion) && m.compute_ms == 0 && m.profile_path.empty())
    throw std::invalid_argument(std::string(replay ? "replay" : "fusion buckets") +
                                " needs the step's compute: --compute-ms MS or --profile FILE.csv");
  workload_compute(m, m.loaded);  // its errors now, rather than once ranks are running
}

}  // namespace collbench
