// Reduce: linear, binomial, and reduce-scatter then gather (Rabenseifner).
#include "algorithms/catalog.hpp"
#include "algorithms/phases/binomial.hpp"
#include "algorithms/phases/recursive.hpp"

namespace collbench {

Schedule build_linear_reduce(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const std::size_t c = q.count;
  const Region input{BufferId::send, 0, c}, out{BufferId::recv, 0, c};
  if (q.rank != q.root) {
    w.send(0, q.root, input);
    return s;
  }
  // Everything arrives in one step, then folds in rank order.
  w.need_scratch(c * static_cast<std::size_t>(q.nranks - 1));
  std::size_t slot = 0;
  const Region* acc = &input;
  for (int r = 0; r < q.nranks; ++r) {
    if (r == q.root) continue;
    const Region tmp{BufferId::scratch, c * slot++, c};
    w.recv(0, r, tmp);
    w.reduce(0, out, *acc, tmp);
    acc = &out;
  }
  if (q.nranks == 1) w.copy(0, out, input);
  return s;
}

Schedule build_binomial_reduce(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const std::size_t c = q.count;
  const Group g = rooted_group(q.nranks, q.rank, q.root);
  const bool root = g.me == 0;
  w.need_scratch(root ? c : 2 * c);
  binomial_reduce(w, 0, g, {BufferId::send, 0, c},
                  root ? Region{BufferId::recv, 0, c} : Region{BufferId::scratch, c, c}, {BufferId::scratch, 0, c});
  return s;
}

Schedule build_reduce_scatter_gather_reduce(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const int n = q.nranks, v = relative_rank(q.rank, q.root, n);
  const std::size_t c = q.count;
  const Region input{BufferId::send, 0, c};
  if (n == 1) {
    w.copy(0, {BufferId::recv, 0, c}, input);
    return s;
  }
  // The root keeps its partial sums in its output, everyone else in scratch [c, 2c);
  // received data lands in scratch [0, c).
  const PowerOfTwoFold fold(n);
  auto absolute = [&](int old) { return absolute_rank(old, q.root, n); };
  const BufferId acc_buffer = v == 0 ? BufferId::recv : BufferId::scratch;
  const std::size_t acc_at = v == 0 ? 0 : c;
  const InBuffer acc{acc_buffer, 0, acc_at};
  w.need_scratch(v == 0 ? c : 2 * c);
  std::size_t step = 0;
  if (fold.extra) fold_in(w, step++, fold, v, absolute, input, acc({0, c}), {BufferId::scratch, 0, c});
  const int nr = fold.new_rank(v);
  if (nr < 0) return s;
  const RecursiveGroup rg{&fold, nr, absolute, Spans::even(c, fold.p)};
  step += recursive_halving(w, step, rg, InBuffer{BufferId::send}, acc, 0, fold.takes_partner(v));
  // Binomial gather of the reduced spans to new rank 0, the root.
  const Group g{fold.p, nr, [&rg](int i) { return rg.peer(i); }};
  binomial_gather(w, step, g, rg.spans,
                  [&](int i) { return i == 0 ? Placement(BufferId::recv, 0, c) : Placement(BufferId::scratch, c, c); });
  return s;
}

}  // namespace collbench
