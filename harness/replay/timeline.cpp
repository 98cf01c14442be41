#include "harness/replay/timeline.hpp"

#include <algorithm>
#include <stdexcept>

namespace collbench {

StepTimeline lay_out_step(const ComputeModel& compute, const std::vector<double>& ready_ms,
                          const std::vector<double>& duration_ms) {
  if (ready_ms.size() != duration_ms.size()) throw std::logic_error("lay_out_step: one duration per exchange");
  StepTimeline t;
  const double backward_start = compute.forward_ms, backward_end = backward_start + compute.backward_total_ms();
  double stream_free = backward_start;
  for (std::size_t i = 0; i < ready_ms.size(); ++i) {
    const double start = std::max(backward_start + ready_ms[i], stream_free);
    t.start_ms.push_back(start);
    t.end_ms.push_back(stream_free = start + duration_ms[i]);
    t.comm_ms += duration_ms[i];
  }
  t.compute_ms = compute.total_ms();
  t.step_ms = std::max(backward_end, stream_free) + compute.optimizer_ms;
  return t;
}

}  // namespace collbench
