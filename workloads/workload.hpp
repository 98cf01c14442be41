#pragma once
// A training workload as collbench replays it: the gradient tensors a model produces,
// in the order backward produces them, with the work that precedes each.
#include <cstddef>
#include <string>
#include <vector>

#include "collectives/dtype.hpp"
#include "workloads/all_to_all_call.hpp"

namespace collbench {

// What a workload may hold. Beyond these a file or a knob is a mistake, not a model:
// the largest models have thousands of tensors and a few billion parameters each.
inline constexpr std::size_t kMaxTensors = 100000;
inline constexpr std::size_t kMaxTensorElements = std::size_t{1} << 40;  // 4 TiB of f32
inline constexpr std::size_t kMaxLookups = std::size_t{1} << 27;         // ids per sparse tensor, step and rank
inline constexpr double kMaxLayerFlops = 1e30;
inline constexpr double kMaxComputeMs = 86400e3;  // one day: any step time, in total or per layer

struct GradientTensor {
  std::string name;
  std::size_t elements = 0;
  DType dtype = DType::f32;
  bool sparse = false;           // an embedding-style table whose steps touch a few rows
  std::size_t rows = 0;          // sparse: table rows (rows * row_elements == elements)
  std::size_t row_elements = 0;  // sparse: elements per row
  std::size_t lookups = 0;       // sparse: ids looked up per step on one rank; the distinct ones are touched
  // Forward FLOPs of the layer whose backward makes this gradient ready (per sample).
  // Only the first tensor of a layer in backward order carries them; the layer's other
  // tensors become ready at the same moment.
  double flops = 0;
  std::size_t bytes() const { return elements * dtype_size(dtype); }
};

struct Workload {
  std::string name;
  std::string description;
  std::vector<GradientTensor> tensors;    // backward order
  double zipf_exponent = 1.0;             // how sparse tensors' lookups are distributed over rows
  std::vector<AllToAllCall> all_to_alls;  // on the critical path, in step order (forward, then backward)

  std::size_t parameters() const;
  std::size_t bytes() const;
  std::size_t sparse_tensors() const;
};

// Knobs of the built-in models; 0 (or negative) keeps a model's own default.
struct WorkloadOptions {
  int batch = 0;    // lm1b: sequences per rank and step
  int seq_len = 0;  // bert: tokens per sequence; lm1b: unrolled steps
  double zipf = 0;  // lm1b: exponent of the word-frequency distribution
  // Mixture-of-experts models: how tokens pick experts (uniform, zipf:S[:SEED],
  // hot:EXPERT:SHARE, or a FILE.csv histogram), dropless (alltoallv of the routed
  // tokens) or padded (alltoall of every expert's capacity), the capacity factor, and
  // how many MoE layers to keep (0: all).
  std::string routing = "uniform";
  std::string moe_style;  // "dropless" or "padded"; empty: the model's own
  double capacity_factor = 0;
  int layers = 0;
  int vocab = 0;  // MoE models: vocabulary size (0: the model's)
};

struct BuiltinWorkload {
  std::string name;
  std::string summary;
};
std::vector<BuiltinWorkload> builtin_workloads();

// A built-in model by name, or a CSV file (workload_csv.hpp) when `name_or_path` ends
// in .csv. Throws std::invalid_argument with a message naming what is wrong.
Workload load_workload(const std::string& name_or_path, const WorkloadOptions& options = {});

// The built-in models, generated layer by layer from their architectures.
Workload resnet50_workload();
Workload bert_workload(bool large, const WorkloadOptions& options = {});
Workload lm1b_workload(const WorkloadOptions& options = {});
Workload moe_workload(const std::string& name, const WorkloadOptions& options = {});  // mixtral-8x7b, deepseek-v3
Workload dlrm_workload(const WorkloadOptions& options = {});

}  // namespace collbench
