#include "harness/replay/timeline.hpp"

#include <algorithm>
#include <stdexcept>

namespace collbench {

StepTimeline lay_out_step(const ComputeModel& compute, const std::vector<double>& ready_ms,
                          const std::vector<double>& duration_ms, const std::vector<bool>& blocking) {
  if (ready_ms.size() != duration_ms.size() || (!blocking.empty() && blocking.size() != ready_ms.size()))
    throw std::logic_error("lay_out_step: one duration per exchange");
  StepTimeline t;
  const double backward_start = compute.forward_ms, backward_end = backward_start + compute.backward_total_ms();
  // Gradient exchanges queue on one stream; blocking ones run on another (their own
  // communicator, as expert-parallel groups have), each when the compute reaches it.
  double stream_free = 0, stalled = 0;  // stalled: compute time lost to blocking exchanges so far
  for (std::size_t i = 0; i < ready_ms.size(); ++i) {
    const double ready = backward_start + ready_ms[i] + stalled;
    const bool blocks = !blocking.empty() && blocking[i];
    const double start = blocks ? ready : std::max(ready, stream_free);
    t.start_ms.push_back(start);
    t.end_ms.push_back(start + duration_ms[i]);
    t.comm_ms += duration_ms[i];
    if (blocks) {
      t.blocking_ms += duration_ms[i];
      stalled += duration_ms[i];
    } else {
      stream_free = t.end_ms.back();
    }
  }
  t.compute_ms = compute.total_ms();
  t.stalled_ms = stalled;
  t.step_ms = std::max(backward_end + stalled, stream_free) + compute.optimizer_ms;
  return t;
}

}  // namespace collbench
