#include "workloads/bucketing.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace collbench {
namespace {

void add_tensor(Bucket& b, const GradientTensor& t, std::size_t index, double ready_ms) {
  b.tensors.push_back(index);
  b.dtype = t.dtype;
  b.elements += t.elements;
  b.bytes += t.bytes();
  b.ready_ms = std::max(b.ready_ms, ready_ms);
}

// The Horovod background loop's tick at or after `t` (never before it: with a cycle
// far longer than the step, t / cycle_ms is below the rounding slack, yet the tick is the first).
double next_cycle(double t, double cycle_ms) {
  if (!(cycle_ms > 0)) return t;
  const double k = std::ceil(t / cycle_ms - 1e-9);
  return (t > 0 && k < 1 ? 1 : k) * cycle_ms;
}

}  // namespace

std::vector<Bucket> make_buckets(const Workload& workload, const std::vector<double>& ready_ms,
                                 const BucketingOptions& options, bool sparse_as_rows) {
  std::vector<Bucket> out;
  std::map<DType, Bucket> open;         // one filling bucket per dtype
  std::map<DType, std::size_t> closed;  // ddp: buckets closed per dtype (the first has the small cap)
  double group_tick = -1;               // fusion: the cycle being fused
  auto close = [&](DType d) {
    auto it = open.find(d);
    if (it == open.end()) return;
    out.push_back(std::move(it->second));
    open.erase(it);
    ++closed[d];
  };
  auto close_all = [&] {
    while (!open.empty()) close(open.begin()->first);
  };
  for (std::size_t i = 0; i < workload.tensors.size(); ++i) {
    const GradientTensor& t = workload.tensors[i];
    double ready = ready_ms.at(i);
    if (options.policy == BucketingPolicy::fusion) {
      ready = next_cycle(ready, options.cycle_ms);
      if (ready != group_tick) close_all();  // a new cycle fuses only what it finds ready
      group_tick = ready;
    }
    if ((sparse_as_rows && t.sparse) || options.policy == BucketingPolicy::none) {
      Bucket b;
      b.sparse = sparse_as_rows && t.sparse;
      add_tensor(b, t, i, ready);
      out.push_back(std::move(b));
      continue;
    }
    if (options.policy == BucketingPolicy::fusion) {
      auto it = open.find(t.dtype);
      if (it != open.end() && it->second.bytes + t.bytes() > options.fusion_threshold_bytes) close(t.dtype);
      add_tensor(open[t.dtype], t, i, ready);
      continue;
    }
    // ddp: the tensor joins first; the bucket closes once it reaches its cap.
    Bucket& b = open[t.dtype];
    add_tensor(b, t, i, ready);
    const std::size_t cap = closed[t.dtype] == 0 ? options.ddp_first_bucket_bytes : options.ddp_bucket_bytes;
    if (b.bytes >= cap) close(t.dtype);
  }
  close_all();
  std::stable_sort(out.begin(), out.end(), [](const Bucket& a, const Bucket& b) {
    return a.ready_ms != b.ready_ms ? a.ready_ms < b.ready_ms : a.tensors.front() < b.tensors.front();
  });
  return out;
}

}  // namespace collbench
