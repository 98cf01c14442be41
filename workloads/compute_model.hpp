#pragma once
// Emulated compute of one training step: a forward block, backward tensor by
// tensor (each gradient ready once the work before it is done), an optimizer block.
#include <vector>

#include "workloads/workload.hpp"
#include "workloads/workload_csv.hpp"

namespace collbench {

struct ComputeModel {
  double forward_ms = 0, optimizer_ms = 0;
  std::vector<double> backward_ms;  // per tensor: the backward work that precedes it
  std::vector<double> ready_ms;     // per tensor: when its gradient is ready, from the start of backward
  double backward_total_ms() const { return ready_ms.empty() ? 0 : ready_ms.back(); }
  double total_ms() const { return forward_ms + backward_total_ms() + optimizer_ms; }
};

// `compute_ms` of step compute, less `optimizer_ms`, spread over the forward pass and
// the layers' backward in proportion to FLOPs, with backward costing twice the forward
// (one product for the input's gradient, one for the weight's). Throws
// std::invalid_argument unless 0 <= optimizer_ms < compute_ms.
ComputeModel compute_from_flops(const Workload& workload, double compute_ms, double optimizer_ms = 0);
ComputeModel compute_from_profile(const ComputeProfile& profile);

}  // namespace collbench
