// Gather: linear and binomial.
#include "algorithms/catalog.hpp"
#include "algorithms/phases/binomial.hpp"

namespace collbench {

Schedule build_linear_gather(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const std::size_t c = q.count;
  if (q.rank != q.root) {
    w.send(0, q.root, {BufferId::send, 0, c});
    return s;
  }
  for (int r = 0; r < q.nranks; ++r)
    if (r != q.root) w.recv(0, r, {BufferId::recv, c * static_cast<std::size_t>(r), c});
  w.copy(0, {BufferId::recv, c * static_cast<std::size_t>(q.root), c}, {BufferId::send, 0, c});
  return s;
}

Schedule build_binomial_gather(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const int n = q.nranks, root = q.root;
  const std::size_t c = q.count, total = c * static_cast<std::size_t>(n);
  const Group g = rooted_group(n, q.rank, root);
  const Spans blocks(n, [c](int v) { return Span{c * static_cast<std::size_t>(v), c}; });
  // Blocks are numbered relative to the root. The root stores them straight into its
  // output (which wraps around at rank 0); others keep their own block in the send
  // buffer and their subtree's blocks in scratch, so nobody copies but the root.
  auto placement = [&](int v) {
    Placement p;
    if (v == 0) {
      const std::size_t before_wrap = c * static_cast<std::size_t>(n - root);
      p.move({0, before_wrap}, {BufferId::recv, c * static_cast<std::size_t>(root), before_wrap});
      p.move({before_wrap, total - before_wrap}, {BufferId::recv, 0, total - before_wrap});
    } else {
      const std::size_t subtree = static_cast<std::size_t>(std::min(v & -v, n - v));
      p.move(blocks[v], {BufferId::send, 0, c});
      p.move({blocks[v].end(), (subtree - 1) * c}, {BufferId::scratch, 0, (subtree - 1) * c});
    }
    return p;
  };
  if (g.me != 0) w.need_scratch((static_cast<std::size_t>(std::min(g.me & -g.me, n - g.me)) - 1) * c);
  binomial_gather(w, 0, g, blocks, placement);
  if (g.me == 0) w.copy(0, {BufferId::recv, c * static_cast<std::size_t>(root), c}, {BufferId::send, 0, c});
  return s;
}

}  // namespace collbench
