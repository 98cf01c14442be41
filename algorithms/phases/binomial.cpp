#include "algorithms/phases/binomial.hpp"

#include <memory>

namespace collbench {

Group rooted_group(int nranks, int rank, int root) {
  return {nranks, relative_rank(rank, root, nranks), [nranks, root](int j) { return absolute_rank(j, root, nranks); }};
}

Group Group::listed(std::vector<int> members, int me) {
  auto held = std::make_shared<const std::vector<int>>(std::move(members));
  return {static_cast<int>(held->size()), me, [held](int j) { return (*held)[static_cast<std::size_t>(j)]; }};
}

std::vector<int> Group::all_members() const {
  std::vector<int> out;
  for (int j = 0; j < size(); ++j) out.push_back(member(j));
  return out;
}

std::size_t binomial_broadcast(ScheduleWriter& w, std::size_t first_step, const Group& g, Region where) {
  const int m = g.size(), v = g.me, rounds = ceil_log2(m);
  // Round k doubles the members that have the data: 0..2^k-1 send to 2^k..2^(k+1)-1.
  for (int k = 0; k < rounds; ++k) {
    const int mask = 1 << k;
    if (v < mask && v + mask < m)
      w.send(first_step + k, g.member(v + mask), where);
    else if (v >= mask && v < 2 * mask)
      w.recv(first_step + k, g.member(v - mask), where);
  }
  return static_cast<std::size_t>(rounds);
}

std::size_t binomial_reduce(ScheduleWriter& w, std::size_t first_step, const Group& g, Region input, Region acc,
                            Region tmp) {
  const int m = g.size(), v = g.me, rounds = ceil_log2(m);
  bool have_partial = false;
  // Round k: members with bit k set hand their partial sum to the member 2^k below
  // and are done; the others fold in what they receive.
  for (int k = 0; k < rounds; ++k) {
    const int mask = 1 << k;
    if (v & mask) {
      w.send(first_step + k, g.member(v - mask), have_partial ? acc : input);
      break;
    }
    if (v + mask < m) {
      w.recv(first_step + k, g.member(v + mask), tmp);
      w.reduce(first_step + k, acc, have_partial ? acc : input, tmp);
      have_partial = true;
    }
  }
  if (m == 1) {
    w.copy(first_step, acc, input);
    return 1;
  }
  return static_cast<std::size_t>(rounds);
}

std::size_t binomial_gather(ScheduleWriter& w, std::size_t first_step, const Group& g, const Spans& blocks,
                            const std::function<Placement(int)>& placement) {
  const int m = g.size(), v = g.me, rounds = ceil_log2(m);
  const Placement mine = placement(v);
  for (int k = 0; k < rounds; ++k) {
    const int mask = 1 << k;
    if (v & mask) {
      w.send(first_step + k, g.member(v - mask), blocks.range(v, std::min(v + mask, m)), mine, placement(v - mask));
      break;
    }
    if (v + mask < m)
      w.recv(first_step + k, g.member(v + mask), blocks.range(v + mask, std::min(v + 2 * mask, m)), mine,
             placement(v + mask));
  }
  return static_cast<std::size_t>(rounds);
}

std::size_t binomial_scatter(ScheduleWriter& w, std::size_t first_step, const Group& g, const Spans& blocks,
                             const std::function<Region(Span)>& where) {
  const int m = g.size(), v = g.me, rounds = ceil_log2(m);
  // Round k halves the ranges: a member holding [v, v+2*mask) gives [v+mask, v+2*mask) away.
  for (int k = 0; k < rounds; ++k) {
    const int mask = 1 << (rounds - 1 - k);
    if (v % (2 * mask) == 0 && v + mask < m)
      w.send(first_step + k, g.member(v + mask), where(blocks.range(v + mask, std::min(v + 2 * mask, m))));
    else if (v % (2 * mask) == mask)
      w.recv(first_step + k, g.member(v - mask), where(blocks.range(v, std::min(v + mask, m))));
  }
  return static_cast<std::size_t>(rounds);
}

}  // namespace collbench
