#include "algorithms/phases/ring.hpp"

#include "algorithms/phases/binomial.hpp"

#include <algorithm>

namespace collbench {
namespace {

int wrap(int i, int m) { return ((i % m) + m) % m; }

// Segment s of a block when every block is cut into `segments` pieces of `segment`.
Span piece(Span block, std::size_t s, std::size_t segment, std::size_t segments) {
  if (segments == 1) return block;
  const std::size_t from = std::min(block.count, s * segment);
  return {block.offset + from, std::min(segment, block.count - from)};
}

std::size_t largest_block(const Ring& ring) { return ring.blocks.largest(); }

std::size_t segments_of(const Ring& ring, std::size_t largest) {
  if (ring.segment == 0 || largest == 0) return 1;
  return (largest + ring.segment - 1) / ring.segment;
}

}  // namespace

// Builders run these loops once per rank, O(ring size) each: at 65,536 ranks the cost
// model builds hundreds of schedules, so each block's span is looked up once.
std::size_t Ring::segments() const { return segments_of(*this, largest_block(*this)); }

RingReduceScatterPlaces RingReduceScatterPlaces::in_recv(RegionOf input) {
  return {std::move(input), [](int, Span x) { return InBuffer{BufferId::recv}(x); }, InBuffer{BufferId::recv}, 0};
}

std::size_t ring_reduce_scatter(ScheduleWriter& w, std::size_t first_step, const Ring& ring,
                                const RingReduceScatterPlaces& at) {
  const int m = ring.size(), me = ring.me;
  if (m == 1) {
    w.copy(first_step, at.output(ring.blocks[0]), at.input(ring.blocks[0]));
    return 1;
  }
  const std::size_t block_largest = largest_block(ring), segments = segments_of(ring, block_largest);
  const std::size_t steps = static_cast<std::size_t>(m - 1) * segments;
  const int right = ring.members[wrap(me + 1, m)], left = ring.members[wrap(me - 1, m)];
  // Received data alternates between two scratch slots when there is more than one
  // step, so an executor can post the next receive while this one is being reduced.
  const std::size_t largest = segments == 1 ? block_largest : std::min(block_largest, ring.segment);
  const std::size_t slots = steps > 1 ? 2 : 1;
  w.need_scratch(at.tmp_at + slots * largest);
  // Ring step k passes on block me-k-1 (own data at first, then the partial sum made
  // in step k-1) and folds the left neighbour's block me-k-2 into it; after m-1 steps
  // that block is me's own, complete.
  Span next_out = ring.blocks[wrap(me - 1, m)];
  for (int k = 0; k + 1 < m; ++k) {
    const int out = wrap(me - k - 1, m), in = wrap(me - k - 2, m);
    const Span block_out = next_out, block_in = ring.blocks[in];
    next_out = block_in;
    for (std::size_t s = 0; s < segments; ++s) {
      const std::size_t step = first_step + static_cast<std::size_t>(k) * segments + s;
      const Span so = piece(block_out, s, ring.segment, segments);
      const Span si = piece(block_in, s, ring.segment, segments);
      if (so.count == 0 && si.count == 0) continue;  // most steps, when blocks outnumber elements
      w.send(step, right, k == 0 ? at.input(so) : at.partial(out, so));
      const Region tmp{BufferId::scratch, at.tmp_at + (step - first_step) % slots * largest, si.count};
      w.recv(step, left, tmp);
      w.reduce(step, k + 2 == m ? at.output(si) : at.partial(in, si), at.input(si), tmp);
    }
  }
  return steps;
}

std::size_t ring_allgather(ScheduleWriter& w, std::size_t first_step, const Ring& ring,
                           const std::function<Region(Span)>& result, const std::function<Region(Span)>& own) {
  const int m = ring.size(), me = ring.me;
  if (own) w.copy(first_step, result(ring.blocks[me]), own(ring.blocks[me]));
  if (m == 1) return own ? 1 : 0;
  const std::size_t segments = ring.segments();
  const int right = ring.members[wrap(me + 1, m)], left = ring.members[wrap(me - 1, m)];
  Span next_out = ring.blocks[me];
  for (int k = 0; k + 1 < m; ++k) {
    const Span block_out = next_out, block_in = ring.blocks[wrap(me - k - 1, m)];
    next_out = block_in;
    for (std::size_t s = 0; s < segments; ++s) {
      const std::size_t step = first_step + static_cast<std::size_t>(k) * segments + s;
      const Span so = piece(block_out, s, ring.segment, segments);
      const Span si = piece(block_in, s, ring.segment, segments);
      if (so.count == 0 && si.count == 0) continue;
      w.send(step, right, k == 0 && own ? own(so) : result(so));
      w.recv(step, left, result(si));
    }
  }
  return static_cast<std::size_t>(m - 1) * segments;
}

std::size_t ring_allreduce_phases(ScheduleWriter& w, std::size_t first_step, const Ring& ring,
                                  const std::function<Region(Span)>& input) {
  const std::size_t rs = ring_reduce_scatter(w, first_step, ring, RingReduceScatterPlaces::in_recv(input));
  return rs + ring_allgather(w, first_step + rs, ring, InBuffer{BufferId::recv});
}

Ring full_ring(const ScheduleRequest& q, std::size_t length, std::size_t segment) {
  Ring r;
  r.me = q.rank;
  r.segment = segment;
  for (int i = 0; i < q.nranks; ++i) r.members.push_back(i);
  r.blocks = Spans::even(length, q.nranks);
  return r;
}

Schedule with_ring_allgather_tail(const ScheduleRequest& q, RingAllgatherHead head) {
  Schedule s;
  const std::size_t first = head(q, s);
  ScheduleWriter w(s);
  const Group g = rooted_group(q.nranks, q.rank, q.root);
  ring_allgather(w, first, Ring{g.all_members(), g.me, Spans::even(q.count, q.nranks), 0}, InBuffer{BufferId::recv});
  return s;
}

}  // namespace collbench
