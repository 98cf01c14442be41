#pragma once
// Ring phases, shared by ring allreduce, allgather, reduce_scatter, the
// scatter-allgather broadcast and the hierarchical algorithms.
#include <cstddef>
#include <functional>
#include <vector>

#include "algorithms/phases/schedule_writer.hpp"

namespace collbench {

// A ring over `members` (absolute ranks in ring order); this rank is members[me].
// Block i of `blocks` (a span of the logical vector) belongs to member i. Each ring
// step moves one block per rank, cut into segments of `segment` elements (0: whole).
struct Ring {
  std::vector<int> members;
  int me = 0;
  Spans blocks;
  std::size_t segment = 0;

  int size() const { return static_cast<int>(members.size()); }
  std::size_t segments() const;  // per ring step, the same on every member
  std::size_t steps() const { return static_cast<std::size_t>(size() - 1) * segments(); }
};

// Reduce-scatter around the ring: member i ends with block i reduced over all members.
// Own contributions are read at `input`, partial sums are kept at `partial` until
// they are passed on, the finished block goes to `output`, and received data lands
// in scratch from `tmp_at` (two alternating segments when there is more than one
// step, so the next receive can land while one is reduced). Reserves that scratch.
// Returns the steps used.
struct RingReduceScatterPlaces {
  std::function<Region(Span)> input;
  std::function<Region(int block, Span)> partial;
  std::function<Region(Span)> output;
  std::size_t tmp_at = 0;
  // Partial sums and results in the receive buffer at the blocks' own offsets.
  static RingReduceScatterPlaces in_recv(RegionOf input);
};
std::size_t ring_reduce_scatter(ScheduleWriter& w, std::size_t first_step, const Ring& ring,
                                const RingReduceScatterPlaces& at);

// Allgather around the ring: every block lands at `result`. If `own` is set, this
// rank's block starts there (it is sent from there and copied to `result`).
std::size_t ring_allgather(ScheduleWriter& w, std::size_t first_step, const Ring& ring,
                           const std::function<Region(Span)>& result, const std::function<Region(Span)>& own = {});

// Ring allreduce of the blocks' spans: own data read at `input`, the result (and
// the partial sums on the way) in the receive buffer at the same offsets. Returns the
// steps used.
std::size_t ring_allreduce_phases(ScheduleWriter& w, std::size_t first_step, const Ring& ring,
                                  const std::function<Region(Span)>& input);

// A ring over all ranks in rank order, blocks split as evenly as possible.
Ring full_ring(const ScheduleRequest& q, std::size_t length, std::size_t segment = 0);

// `head`'s steps, then the ring allgather a RingAllgatherHead declares: member i is rank
// root + i, blocks split as evenly as possible, whole, into the receive buffer.
Schedule with_ring_allgather_tail(const ScheduleRequest& q, RingAllgatherHead head);

}  // namespace collbench
