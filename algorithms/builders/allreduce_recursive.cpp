// Recursive doubling and halving: allreduce (recursive doubling, Rabenseifner),
// allgather (recursive doubling) and reduce_scatter (recursive halving). Rank counts
// that are not powers of two fold onto one first and unfold at the end.
#include "algorithms/catalog.hpp"
#include "algorithms/phases/recursive.hpp"

namespace collbench {
namespace {

int identity(int r) { return r; }
Region send_at(Span x) { return {BufferId::send, x.offset, x.count}; }
Region recv_at(Span x) { return {BufferId::recv, x.offset, x.count}; }

}  // namespace

Schedule build_recursive_doubling_allreduce(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const std::size_t c = q.count;
  const Region input{BufferId::send, 0, c}, out{BufferId::recv, 0, c}, tmp{BufferId::scratch, 0, c};
  const PowerOfTwoFold fold(q.nranks);
  w.need_scratch(c);
  if (q.nranks == 1) w.copy(0, out, input);
  std::size_t step = 0;
  if (fold.extra) fold_in(w, step++, fold, q.rank, identity, input, out, tmp);
  const int nr = fold.new_rank(q.rank);
  bool in_out = fold.takes_partner(q.rank);
  // Every round swaps the whole vector with the partner: log2(p) rounds of c elements.
  for (int mask = 1; nr >= 0 && mask < fold.p; mask *= 2, ++step) {
    const int peer = fold.old_rank(nr ^ mask);
    w.send(step, peer, in_out ? out : input);
    w.recv(step, peer, tmp);
    w.reduce(step, out, in_out ? out : input, tmp);
    in_out = true;
  }
  if (nr < 0) step += static_cast<std::size_t>(ceil_log2(fold.p));
  if (fold.extra) fold_out(w, step, fold, q.rank, identity, out);
  return s;
}

Schedule build_rabenseifner_allreduce(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const std::size_t c = q.count;
  const Region input{BufferId::send, 0, c}, out{BufferId::recv, 0, c};
  const PowerOfTwoFold fold(q.nranks);
  w.need_scratch(c);
  if (q.nranks == 1) w.copy(0, out, input);
  std::size_t step = 0;
  if (fold.extra) fold_in(w, step++, fold, q.rank, identity, input, out, {BufferId::scratch, 0, c});
  const int nr = fold.new_rank(q.rank);
  const int rounds = ceil_log2(fold.p);
  if (nr >= 0) {
    const RecursiveGroup g{&fold, nr, identity, even_spans(c, fold.p)};
    recursive_halving(w, step, g, send_at, recv_at, 0, fold.takes_partner(q.rank));
    recursive_doubling(w, step + static_cast<std::size_t>(rounds), g, recv_at);
  }
  step += 2 * static_cast<std::size_t>(rounds);
  if (fold.extra) fold_out(w, step, fold, q.rank, identity, out);
  return s;
}

Schedule build_recursive_doubling_allgather(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const std::size_t c = q.count, mine = c * static_cast<std::size_t>(q.rank);
  const Region own{BufferId::send, 0, c};
  const PowerOfTwoFold fold(q.nranks);
  // The rank's own block is copied into place in the first step; a rank that sits out
  // sends it to its partner there, or, without a fold, the first round sends it
  // straight from the send buffer.
  w.copy(0, {BufferId::recv, mine, c}, own);
  std::size_t step = 0;
  if (fold.extra) {
    if (fold.sits_out(q.rank)) w.send(0, q.rank - 1, own);
    if (fold.takes_partner(q.rank)) w.recv(0, q.rank + 1, {BufferId::recv, mine + c, c});
    ++step;
  }
  const int nr = fold.new_rank(q.rank);
  if (nr >= 0) {
    const RecursiveGroup g{&fold, nr, identity, folded_block_spans(fold, c)};
    recursive_doubling(w, step, g, recv_at,
                       fold.extra ? RegionOf{} : RegionOf([&](Span x) { return Region{BufferId::send, x.offset - mine, x.count}; }));
  }
  step += static_cast<std::size_t>(ceil_log2(fold.p));
  if (fold.extra) {
    // A rank that sat out gets everything but its own block back.
    const int odd = fold.sits_out(q.rank) ? q.rank : q.rank + 1;
    const std::size_t at = c * static_cast<std::size_t>(odd), total = c * static_cast<std::size_t>(q.nranks);
    for (Region r : {Region{BufferId::recv, 0, at}, Region{BufferId::recv, at + c, total - at - c}}) {
      if (fold.takes_partner(q.rank)) w.send(step, odd, r);
      if (fold.sits_out(q.rank)) w.recv(step, odd - 1, r);
    }
  }
  return s;
}

Schedule build_recursive_halving_reduce_scatter(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const std::size_t c = q.count, total = c * static_cast<std::size_t>(q.nranks);
  const std::size_t mine = c * static_cast<std::size_t>(q.rank);
  const Region out{BufferId::recv, 0, c};
  if (q.nranks == 1) {
    w.copy(0, out, {BufferId::send, 0, c});
    return s;
  }
  // Partial sums live in scratch [0, total) at their logical offsets, received data
  // in scratch [total, 2 total). The own block is copied out only at the end: in
  // place, the output overlays input that is still being read until then.
  const PowerOfTwoFold fold(q.nranks);
  auto acc = [](Span x) { return Region{BufferId::scratch, x.offset, x.count}; };
  w.need_scratch(2 * total);
  std::size_t step = 0;
  if (fold.extra)
    fold_in(w, step++, fold, q.rank, identity, {BufferId::send, 0, total}, acc({0, total}),
            {BufferId::scratch, total, total});
  const int nr = fold.new_rank(q.rank);
  if (nr >= 0) {
    const RecursiveGroup g{&fold, nr, identity, folded_block_spans(fold, c)};
    const std::size_t rounds = recursive_halving(w, step, g, send_at, acc, total, fold.takes_partner(q.rank));
    w.copy(step + rounds - 1, out, acc({mine, c}));
  }
  step += static_cast<std::size_t>(ceil_log2(fold.p));
  if (fold.extra) {
    if (fold.takes_partner(q.rank)) w.send(step, q.rank + 1, acc({mine + c, c}));
    if (fold.sits_out(q.rank)) w.recv(step, q.rank - 1, out);
  }
  return s;
}

}  // namespace collbench
