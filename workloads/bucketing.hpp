#pragma once
// How gradients are grouped into collectives. `none`: one per tensor. `ddp`: PyTorch
// DistributedDataParallel's assignment (Reducer::compute_bucket_assignment_by_size):
// tensors in backward order fill a bucket per dtype until it reaches the cap, the
// first bucket capped at 1 MiB, the rest at 25 MiB. `fusion`: Horovod's tensor fusion:
// every cycle, the tensors that became ready are fused, per dtype, into buffers of at
// most the threshold (defaults 128 MiB and 1 ms, Horovod's since 0.21).
#include <string_view>
#include <vector>

#include "collectives/names.hpp"
#include "workloads/workload.hpp"

namespace collbench {

enum class BucketingPolicy { none, ddp, fusion };
inline constexpr NameTable<BucketingPolicy, 3> kBucketingNames{
    {{{BucketingPolicy::none, "none"}, {BucketingPolicy::ddp, "ddp"}, {BucketingPolicy::fusion, "fusion"}}}};

struct BucketingOptions {
  BucketingPolicy policy = BucketingPolicy::ddp;
  std::size_t ddp_bucket_bytes = std::size_t{25} << 20;
  std::size_t ddp_first_bucket_bytes = std::size_t{1} << 20;
  std::size_t fusion_threshold_bytes = std::size_t{128} << 20;
  double cycle_ms = 1;
};

struct Bucket {
  std::vector<std::size_t> tensors;  // indices into the workload, backward order
  DType dtype = DType::f32;
  std::size_t elements = 0, bytes = 0;
  bool sparse = false;  // a sparse tensor exchanged as rows, alone (as DDP does)
  double ready_ms = 0;  // when its collective may start, from the start of backward
};

// Buckets in the order their collectives are issued. `ready_ms` is per tensor
// (ComputeModel); with `sparse_as_rows` sparse tensors get their own bucket, otherwise
// they are bucketed like dense ones.
std::vector<Bucket> make_buckets(const Workload& workload, const std::vector<double>& ready_ms,
                                 const BucketingOptions& options, bool sparse_as_rows);

}  // namespace collbench
