#pragma once
// What `collbench replay` and `collbench workloads show` share: which model, its
// knobs, the step's compute and the bucketing policies.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/bucketing.hpp"
#include "workloads/compute_model.hpp"
#include "workloads/workload.hpp"

namespace CLI {
class App;
}

namespace collbench {

struct WorkloadChoice {
  std::string workload = "resnet50";
  WorkloadOptions workload_options;
  std::uint64_t seed = 1;
  double compute_ms = 0, optimizer_ms = 0;
  std::string profile_path;  // per-layer compute profile instead of --compute-ms
  std::vector<BucketingPolicy> bucketings;
  BucketingOptions bucketing;  // caps; `policy` is set per configuration
  Workload loaded;             // `workload`, read once by resolve_workload
};

// The workload flags as typed, resolved by resolve_workload.
struct WorkloadChoiceFlags {
  std::string bucketings = "ddp", bucket_cap = "25M", first_bucket = "1M", fusion_threshold = "128M";
};

void add_workload_flags(CLI::App& app, WorkloadChoice& m, WorkloadChoiceFlags& f);
// Reads the workload into m.loaded and checks what a rank can check alone (throws
// std::invalid_argument). `replay` needs the step's compute; `workloads show` only for fusion.
void resolve_workload(WorkloadChoice& m, const WorkloadChoiceFlags& f, bool replay);

// The step's compute from --profile or --compute-ms; none when neither was given.
std::optional<ComputeModel> workload_compute(const WorkloadChoice& m, const Workload& w);

}  // namespace collbench
