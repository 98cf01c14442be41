// Allgather: ring, and recursive doubling (a non-power-of-two rank count folds onto
// the power of two below and unfolds at the end).
#include "algorithms/catalog.hpp"
#include "algorithms/phases/recursive.hpp"
#include "algorithms/phases/ring.hpp"

namespace collbench {
Schedule build_ring_allgather(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const std::size_t c = q.count, mine = c * static_cast<std::size_t>(q.rank);
  ring_allgather(w, 0, full_ring(q, c * static_cast<std::size_t>(q.nranks)), InBuffer{BufferId::recv},
                 InBuffer{BufferId::send, mine});
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
    const RecursiveGroup g{&fold, nr, same_rank, folded_block_spans(fold, c)};
    recursive_doubling(w, step, g, InBuffer{BufferId::recv},
                       fold.extra ? RegionOf{} : RegionOf(InBuffer{BufferId::send, mine}));
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

}  // namespace collbench
