#pragma once
// One emulated training step on one rank: forward, then backward while the gradient
// exchanges run one after another on a single communication stream (as DDP's and
// Horovod's do), then the optimizer once backward and every exchange are done.
#include <vector>

#include "workloads/compute_model.hpp"

namespace collbench {

struct StepTimeline {
  std::vector<double> start_ms, end_ms;  // per exchange, from the start of the step
  double compute_ms = 0;                 // forward + backward + optimizer
  double comm_ms = 0;                    // the exchanges' durations, summed
  double blocking_ms = 0;                // of which the blocking exchanges' (all-to-alls)
  double stalled_ms = 0;                 // compute waiting on blocking exchanges: their exposed time
  double step_ms = 0;
  double exposed_ms() const { return step_ms - compute_ms; }
  double efficiency() const { return step_ms > 0 ? compute_ms / step_ms : 0; }
};

// An exchange starts when it is ready (ready_ms, from the start of backward; negative
// in the forward pass) or when the previous one ends, whichever is later; it lasts its
// measured duration. A blocking exchange (an all-to-all the next layer needs) runs on a
// stream of its own as soon as the compute reaches it and stops the compute until it
// ends, delaying everything after it. Durations were measured one exchange at a time:
// an all-to-all overlapping a gradient exchange is not slowed by it here.
StepTimeline lay_out_step(const ComputeModel& compute, const std::vector<double>& ready_ms,
                          const std::vector<double>& duration_ms, const std::vector<bool>& blocking = {});

}  // namespace collbench
