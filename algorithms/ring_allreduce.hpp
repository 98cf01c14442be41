#pragma once
#include "schedule.hpp"

namespace collbench {

// Ring allreduce: a reduce-scatter around the ring, then an allgather. Each rank
// sends and receives 2(n-1)/n of the buffer in 2(n-1) steps, which is bandwidth-optimal.
Schedule build_ring_allreduce(const ScheduleRequest& request);

}  // namespace collbench
