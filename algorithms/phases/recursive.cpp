#include "algorithms/phases/recursive.hpp"

namespace collbench {

std::size_t recursive_halving(ScheduleWriter& w, std::size_t first_step, const RecursiveGroup& g, const RegionOf& input,
                              const RegionOf& acc, std::size_t tmp_at, bool input_in_acc) {
  const int nr = g.new_rank;
  std::size_t step = first_step;
  for (int mask = g.fold->p / 2; mask >= 1; mask /= 2, ++step) {
    const int lo = nr & ~(2 * mask - 1), mid = lo + mask;
    const Span keep = nr < mid ? g.range(lo, mid) : g.range(mid, lo + 2 * mask);
    const Span give = nr < mid ? g.range(mid, lo + 2 * mask) : g.range(lo, mid);
    const RegionOf& cur = input_in_acc ? acc : input;
    const Region tmp{BufferId::scratch, tmp_at, keep.count};
    w.send(step, g.peer(nr ^ mask), cur(give));
    w.recv(step, g.peer(nr ^ mask), tmp);
    w.reduce(step, acc(keep), cur(keep), tmp);
    input_in_acc = true;
  }
  return step - first_step;
}

std::size_t recursive_doubling(ScheduleWriter& w, std::size_t first_step, const RecursiveGroup& g,
                               const RegionOf& where, const RegionOf& own) {
  const int nr = g.new_rank;
  std::size_t step = first_step;
  for (int mask = 1; mask < g.fold->p; mask *= 2, ++step) {
    const int mine = nr & ~(mask - 1), theirs = (nr ^ mask) & ~(mask - 1);
    const Span out = g.range(mine, mine + mask);
    w.send(step, g.peer(nr ^ mask), mask == 1 && own ? own(out) : where(out));
    w.recv(step, g.peer(nr ^ mask), where(g.range(theirs, theirs + mask)));
  }
  return step - first_step;
}

void fold_in(ScheduleWriter& w, std::size_t step, const PowerOfTwoFold& f, int r,
             const std::function<int(int)>& absolute, Region input, Region acc, Region tmp) {
  if (f.sits_out(r)) w.send(step, absolute(r - 1), input);
  if (f.takes_partner(r)) {
    w.recv(step, absolute(r + 1), tmp);
    w.reduce(step, acc, input, tmp);
  }
}

void fold_out(ScheduleWriter& w, std::size_t step, const PowerOfTwoFold& f, int r,
              const std::function<int(int)>& absolute, Region result) {
  if (f.takes_partner(r)) w.send(step, absolute(r + 1), result);
  if (f.sits_out(r)) w.recv(step, absolute(r - 1), result);
}

Spans folded_block_spans(const PowerOfTwoFold& f, std::size_t block) {
  return {f.p, [f, block](int i) {
            return Span{block * static_cast<std::size_t>(f.first_old(i)),
                        block * static_cast<std::size_t>(f.end_old(i) - f.first_old(i))};
          }};
}

}  // namespace collbench
