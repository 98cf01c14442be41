// Broadcast: linear, binomial, scatter-allgather (van de Geijn) and a pipelined chain.
#include <algorithm>

#include "algorithms/catalog.hpp"
#include "algorithms/phases/binomial.hpp"
#include "algorithms/phases/recursive.hpp"
#include "algorithms/phases/ring.hpp"

namespace collbench {

Schedule build_linear_broadcast(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const Region all{BufferId::recv, 0, q.count};
  if (q.rank != q.root) {
    w.recv(0, q.root, all);
    return s;
  }
  for (int r = 0; r < q.nranks; ++r)
    if (r != q.root) w.send(0, r, all);
  return s;
}

Schedule build_binomial_broadcast(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  binomial_broadcast(w, 0, rooted_group(q.nranks, q.rank, q.root), {BufferId::recv, 0, q.count});
  return s;
}

// Block j belongs to the rank j places after the root: a binomial scatter hands each
// rank its block, then a ring allgather completes everyone's copy.
std::size_t scatter_allgather_head(const ScheduleRequest& q, Schedule& head) {
  ScheduleWriter w(head);
  return binomial_scatter(w, 0, rooted_group(q.nranks, q.rank, q.root), Spans::even(q.count, q.nranks),
                          InBuffer{BufferId::recv});
}

Schedule build_scatter_allgather_broadcast(const ScheduleRequest& q) {
  return with_ring_allgather_tail(q, scatter_allgather_head);
}

Schedule build_pipelined_chain_broadcast(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const int n = q.nranks, v = relative_rank(q.rank, q.root, n);
  const std::size_t seg = q.segment_elements(kChainSegmentBytes);
  const std::size_t segments = std::max<std::size_t>(1, (q.count + seg - 1) / seg);
  auto segment = [&](std::size_t i) {
    const std::size_t from = std::min(q.count, i * seg);
    return Region{BufferId::recv, from, std::min(seg, q.count - from)};
  };
  // Segment i leaves the root in step i and reaches chain position v in step i+v-1,
  // so every link carries a segment in every step once the pipeline is full.
  for (std::size_t i = 0; i < segments; ++i) {
    if (v > 0) w.recv(i + static_cast<std::size_t>(v) - 1, absolute_rank(v - 1, q.root, n), segment(i));
    if (v + 1 < n) w.send(i + static_cast<std::size_t>(v), absolute_rank(v + 1, q.root, n), segment(i));
  }
  return s;
}

}  // namespace collbench
