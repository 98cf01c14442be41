#pragma once
// Recursive halving and doubling among the p = 2^k "new ranks" of a PowerOfTwoFold.
#include <cstddef>
#include <functional>
#include <vector>

#include "algorithms/phases/schedule_writer.hpp"

namespace collbench {

// For `absolute` below when the folded ranks are the ranks themselves.
inline int same_rank(int r) { return r; }

// Who takes part, and which logical span each new rank ends up owning (spans[i] for
// new rank i, consecutive).
struct RecursiveGroup {
  const PowerOfTwoFold* fold = nullptr;
  int new_rank = 0;
  std::function<int(int old_rank)> absolute;  // old (folded) rank -> absolute rank
  Spans spans;

  int peer(int nr) const { return absolute(fold->old_rank(nr)); }
  Span range(int first, int end) const { return spans.range(first, end); }
};

// Reduce-scatter by recursive halving: new rank i ends with spans[i] reduced at `acc`.
// Each round swaps half of the current range with the partner and folds it in. Own
// data is read at `input` until the first fold (at `acc` if `input_in_acc`).
std::size_t recursive_halving(ScheduleWriter& w, std::size_t first_step, const RecursiveGroup& g, const RegionOf& input,
                              const RegionOf& acc, std::size_t tmp_at, bool input_in_acc);

// Allgather by recursive doubling: each round swaps everything gathered so far with
// the partner, at `where`. If `own` is set, the first round sends this rank's span
// from there (the caller copies it into `where`).
std::size_t recursive_doubling(ScheduleWriter& w, std::size_t first_step, const RecursiveGroup& g,
                               const RegionOf& where, const RegionOf& own = {});

// The fold around the recursive part, in one step each (callers skip them when
// fold.extra == 0). In: a rank that sits out sends its whole `input` to the rank
// before it, which folds it into `acc`. Out: that rank sends `result` back.
void fold_in(ScheduleWriter& w, std::size_t step, const PowerOfTwoFold& f, int r,
             const std::function<int(int)>& absolute, Region input, Region acc, Region tmp);
void fold_out(ScheduleWriter& w, std::size_t step, const PowerOfTwoFold& f, int r,
              const std::function<int(int)>& absolute, Region result);

// The spans of the new ranks when every old rank owns a block of `block` elements:
// a new rank that took in its partner covers both blocks.
Spans folded_block_spans(const PowerOfTwoFold& f, std::size_t block);

}  // namespace collbench
