#pragma once
// Binomial-tree phases over a group whose member 0 is the root (callers order the
// members relative to the root). Each takes ceil(log2 m) steps.
#include <cstddef>
#include <functional>
#include <vector>

#include "algorithms/phases/schedule_writer.hpp"

namespace collbench {

struct Group {
  int count = 0;
  int me = 0;
  // Member j's absolute rank (member 0 is the root), computed when asked for: building
  // one rank's schedule then takes O(log n), not O(n) (the cost model builds every rank's).
  std::function<int(int j)> member_at;
  int size() const { return count; }
  int member(int j) const { return member_at(j); }
  std::vector<int> all_members() const;
  static Group listed(std::vector<int> members, int me);
};

// All ranks, numbered relative to `root`.
Group rooted_group(int nranks, int rank, int root);

// The root's `where` reaches every member's `where`.
std::size_t binomial_broadcast(ScheduleWriter& w, std::size_t first_step, const Group& g, Region where);

// The root's `acc` ends with every member's `input` reduced. Other members use their
// `acc` for partial sums (leaves never touch it); received data lands in `tmp`.
std::size_t binomial_reduce(ScheduleWriter& w, std::size_t first_step, const Group& g, Region input, Region acc,
                            Region tmp);

// Member j's block is blocks[j] (consecutive spans of a logical vector); the root
// ends with all of them. `placement(j)` says where member j keeps the blocks it holds.
std::size_t binomial_gather(ScheduleWriter& w, std::size_t first_step, const Group& g, const Spans& blocks,
                            const std::function<Placement(int)>& placement);

// The reverse: the root holds every block at `where` and each member ends with its own.
std::size_t binomial_scatter(ScheduleWriter& w, std::size_t first_step, const Group& g, const Spans& blocks,
                             const std::function<Region(Span)>& where);

}  // namespace collbench
