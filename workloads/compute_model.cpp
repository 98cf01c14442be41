#include "workloads/compute_model.hpp"

#include <cmath>
#include <stdexcept>

namespace collbench {
namespace {

void accumulate_ready(ComputeModel& m) {
  m.ready_ms.resize(m.backward_ms.size());
  double t = 0;
  for (std::size_t i = 0; i < m.backward_ms.size(); ++i) m.ready_ms[i] = t += m.backward_ms[i];
}

}  // namespace

ComputeModel compute_from_flops(const Workload& workload, double compute_ms, double optimizer_ms) {
  if (!std::isfinite(compute_ms) || compute_ms <= 0) throw std::invalid_argument("--compute-ms must be positive");
  if (!std::isfinite(optimizer_ms) || optimizer_ms < 0 || optimizer_ms >= compute_ms)
    throw std::invalid_argument("--optimizer-ms must be at least 0 and less than --compute-ms");
  double forward_flops = 0;
  for (const GradientTensor& t : workload.tensors) forward_flops += t.flops;
  if (forward_flops <= 0)
    throw std::invalid_argument("workload " + workload.name + " has no FLOPs to spread compute over");
  const double ms_per_flop = (compute_ms - optimizer_ms) / (3 * forward_flops);
  ComputeModel m;
  m.forward_ms = forward_flops * ms_per_flop;
  m.optimizer_ms = optimizer_ms;
  for (const GradientTensor& t : workload.tensors) m.backward_ms.push_back(2 * t.flops * ms_per_flop);
  accumulate_ready(m);
  return m;
}

ComputeModel compute_from_profile(const ComputeProfile& profile) {
  ComputeModel m;
  m.forward_ms = profile.forward_ms;
  m.optimizer_ms = profile.optimizer_ms;
  m.backward_ms = profile.backward_ms;
  accumulate_ready(m);
  return m;
}

}  // namespace collbench
