// Ring allreduce: reduce-scatter then allgather around a ring, whole blocks or cut
// into pipeline segments.
#include "algorithms/catalog.hpp"
#include "algorithms/phases/ring.hpp"

namespace collbench {
namespace {

Schedule ring_allreduce(const ScheduleRequest& q, std::size_t segment) {
  Schedule s;
  ScheduleWriter w(s);
  ring_allreduce_phases(w, 0, full_ring(q, q.count, segment), InBuffer{BufferId::send});
  return s;
}

}  // namespace

Schedule build_ring_allreduce(const ScheduleRequest& q) { return ring_allreduce(q, 0); }

Schedule build_ring_pipelined_allreduce(const ScheduleRequest& q) {
  return ring_allreduce(q, q.segment_elements(kRingSegmentBytes));
}

}  // namespace collbench
