// Hierarchical allreduce over nodes (ScheduleRequest::node_of): the whole vector
// through node leaders, or one shard per local rank across nodes (2D).
#include <algorithm>

#include "algorithms/catalog.hpp"
#include "algorithms/phases/nodes.hpp"
#include "algorithms/phases/binomial.hpp"
#include "algorithms/phases/recursive.hpp"
#include "algorithms/phases/ring.hpp"

namespace collbench {
namespace {

// Ring allreduce of `data` in place in the receive buffer among `members`.
std::size_t ring_allreduce_in_place(ScheduleWriter& w, std::size_t step, std::vector<int> members, int me, Span data) {
  const int m = static_cast<int>(members.size());
  const Ring ring{std::move(members), me, Spans::even(data.count, m).shifted(data.offset), 0};
  return ring_allreduce_phases(w, step, ring, InBuffer{BufferId::recv});
}

}  // namespace

Schedule build_hierarchical_allreduce(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const Nodes nodes(q);
  const std::size_t c = q.count;
  const Region out{BufferId::recv, 0, c};
  const Group local = Group::listed(nodes.ranks[nodes.mine], nodes.local);
  w.need_scratch(c);
  // 1. Reduce to each node's leader (its lowest rank).
  std::size_t step = 0;
  binomial_reduce(w, step, local, {BufferId::send, 0, c}, out, {BufferId::scratch, 0, c});
  step += nodes.longest([](int m) { return static_cast<std::size_t>(std::max(1, ceil_log2(m))); });
  // 2. Ring allreduce among the leaders.
  const int leaders = static_cast<int>(nodes.ranks.size());
  if (nodes.local == 0 && leaders > 1) {
    std::vector<int> members;
    for (const auto& n : nodes.ranks) members.push_back(n[0]);
    ring_allreduce_in_place(w, step, members, nodes.mine, {0, c});
  }
  if (leaders > 1) step += 2 * static_cast<std::size_t>(leaders - 1);
  // 3. Broadcast from each leader within its node.
  binomial_broadcast(w, step, local, out);
  return s;
}

Schedule build_hierarchical_2d_allreduce(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const Nodes nodes(q);
  const std::size_t c = q.count;
  // The vector is cut into one shard per local rank of the smallest node; on larger
  // nodes the extra ranks contribute but own no shard.
  const Spans shards = Spans::even(c, static_cast<int>(nodes.smallest));
  const std::vector<int>& node = nodes.ranks[nodes.mine];
  const Ring local{node, nodes.local,
                   Spans(static_cast<int>(node.size()),
                         [shards, c](int i) {
                           return i < shards.size() ? shards[i] : Span{c, 0};
                         }),
                   0};
  w.need_scratch(shards[0].count);
  // 1. Reduce-scatter within the node: local rank j ends with shard j of the node's sum.
  std::size_t step = 0;
  ring_reduce_scatter(w, step, local, RingReduceScatterPlaces::in_recv(InBuffer{BufferId::send}));
  step += nodes.longest([](int m) { return static_cast<std::size_t>(std::max(1, m - 1)); });
  // 2. Allreduce of shard j among the local ranks j of all nodes.
  const int node_count = static_cast<int>(nodes.ranks.size());
  if (nodes.local < shards.size() && node_count > 1) {
    std::vector<int> members;
    for (const auto& n : nodes.ranks) members.push_back(n[static_cast<std::size_t>(nodes.local)]);
    ring_allreduce_in_place(w, step, members, nodes.mine, shards[nodes.local]);
  }
  if (node_count > 1) step += 2 * static_cast<std::size_t>(node_count - 1);
  // 3. Allgather within the node.
  ring_allgather(w, step, local, InBuffer{BufferId::recv});
  return s;
}

}  // namespace collbench
