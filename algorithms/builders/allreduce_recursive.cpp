// Recursive allreduce: recursive doubling, and Rabenseifner's recursive halving then
// doubling. Rank counts that are not powers of two fold onto one first and unfold at
// the end.
#include "algorithms/catalog.hpp"
#include "algorithms/phases/recursive.hpp"

namespace collbench {
Schedule build_recursive_doubling_allreduce(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const std::size_t c = q.count;
  const Region input{BufferId::send, 0, c}, out{BufferId::recv, 0, c}, tmp{BufferId::scratch, 0, c};
  const PowerOfTwoFold fold(q.nranks);
  w.need_scratch(c);
  if (q.nranks == 1) w.copy(0, out, input);
  std::size_t step = 0;
  if (fold.extra) fold_in(w, step++, fold, q.rank, same_rank, input, out, tmp);
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
  if (fold.extra) fold_out(w, step, fold, q.rank, same_rank, out);
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
  if (fold.extra) fold_in(w, step++, fold, q.rank, same_rank, input, out, {BufferId::scratch, 0, c});
  const int nr = fold.new_rank(q.rank);
  const int rounds = ceil_log2(fold.p);
  if (nr >= 0) {
    const RecursiveGroup g{&fold, nr, same_rank, Spans::even(c, fold.p)};
    recursive_halving(w, step, g, InBuffer{BufferId::send}, InBuffer{BufferId::recv}, 0, fold.takes_partner(q.rank));
    recursive_doubling(w, step + static_cast<std::size_t>(rounds), g, InBuffer{BufferId::recv});
  }
  step += 2 * static_cast<std::size_t>(rounds);
  if (fold.extra) fold_out(w, step, fold, q.rank, same_rank, out);
  return s;
}

}  // namespace collbench
