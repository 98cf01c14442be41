// Reduce-scatter: ring, and recursive halving (a non-power-of-two rank count folds
// onto the power of two below and unfolds at the end).
#include "algorithms/catalog.hpp"
#include "algorithms/phases/recursive.hpp"
#include "algorithms/phases/ring.hpp"

namespace collbench {
Schedule build_ring_reduce_scatter(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const std::size_t c = q.count, mine = c * static_cast<std::size_t>(q.rank);
  const Ring ring = full_ring(q, c * static_cast<std::size_t>(q.nranks));
  // Scratch: [0, c) holds the partial sum being passed on (one slot is enough because
  // a step sends the old partial sum before it writes the new one); receives land
  // from c on (ring_reduce_scatter reserves them).
  RingReduceScatterPlaces at;
  at.input = InBuffer{BufferId::send};
  at.partial = [&](int block, Span x) { return InBuffer{BufferId::scratch, ring.blocks[block].offset, 0}(x); };
  at.output = InBuffer{BufferId::recv, mine};
  at.tmp_at = c;
  ring_reduce_scatter(w, 0, ring, at);
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
  const InBuffer acc{BufferId::scratch};
  w.need_scratch(2 * total);
  std::size_t step = 0;
  if (fold.extra)
    fold_in(w, step++, fold, q.rank, same_rank, {BufferId::send, 0, total}, acc({0, total}),
            {BufferId::scratch, total, total});
  const int nr = fold.new_rank(q.rank);
  if (nr >= 0) {
    const RecursiveGroup g{&fold, nr, same_rank, folded_block_spans(fold, c)};
    const std::size_t rounds =
        recursive_halving(w, step, g, InBuffer{BufferId::send}, acc, total, fold.takes_partner(q.rank));
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
