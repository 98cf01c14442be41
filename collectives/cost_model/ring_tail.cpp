#include "collectives/cost_model/ring_tail.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

namespace collbench {
namespace {

bool same(const Region& a, const Region& b) {
  return a.buffer == b.buffer && a.offset == b.offset && a.count == b.count;
}

bool same(const std::vector<Transfer>& a, const std::vector<Transfer>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].peer != b[i].peer || !same(a[i].region, b[i].region)) return false;
  return true;
}

bool same(const Step& a, const Step& b) {
  if (!same(a.sends, b.sends) || !same(a.recvs, b.recvs) || a.ops.size() != b.ops.size()) return false;
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    const LocalOp &x = a.ops[i], &y = b.ops[i];
    if (x.kind != y.kind || !same(x.dst, y.dst) || !same(x.a, y.a) || !same(x.b, y.b)) return false;
  }
  return true;
}

int wrap(long long i, int n) { return static_cast<int>(((i % n) + n) % n); }

// One ring step as member `me` sees it: a send of block me - j to the next member and a
// receive of block me - j - 1 from the one before, each where it has bytes.
Step ring_step(const RingTail& t, int me, std::size_t j) {
  const int n = t.ranks, rank = wrap(t.root + me, n);
  Step s;
  const Region& out = t.blocks[static_cast<std::size_t>(wrap(me - static_cast<long long>(j), n))];
  const Region& in = t.blocks[static_cast<std::size_t>(wrap(me - static_cast<long long>(j) - 1, n))];
  if (out.count > 0) s.sends.push_back({wrap(rank + 1, n), out});
  if (in.count > 0) s.recvs.push_back({wrap(rank - 1, n), in});
  return s;
}

// Each block's size, as an index into the few sizes there are (a ring's blocks take two
// at most; -1 where it has no bytes), and each size's cost per (local, both ways, written).
struct RingCosts {
  std::vector<int> block_size;
  std::size_t full_blocks = 0;
  std::vector<std::array<MessageCost, 8>> costs;
};

RingCosts ring_costs(const RingTail& t, const CostParams& p, const CostLayout& l) {
  RingCosts out;
  out.block_size.assign(t.blocks.size(), -1);
  std::map<std::size_t, int> size_of;
  for (std::size_t b = 0; b < t.blocks.size(); ++b)
    if (const std::size_t bytes = t.blocks[b].count * l.element_size; bytes > 0) {
      out.block_size[b] = size_of.emplace(bytes, static_cast<int>(size_of.size())).first->second;
      ++out.full_blocks;
    }
  out.costs.resize(size_of.size());
  for (const auto& [bytes, i] : size_of)
    for (int k = 0; k < 8; ++k)
      out.costs[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)] =
          message_cost(p, l, k & 1, bytes, (k & 2) != 0, (k & 4) != 0);
  return out;
}

// The least p dividing the sizes' count such that every size equals the one p after it.
std::size_t size_period(const std::vector<int>& sizes) {
  const std::size_t n = sizes.size();
  for (std::size_t p = 1; p < n; ++p) {
    if (n % p) continue;
    bool repeats = true;
    for (std::size_t b = 0; b + p < n && repeats; ++b) repeats = sizes[b] == sizes[b + p];
    if (repeats) return p;
  }
  return n;
}

}  // namespace

std::optional<RingTail> ring_tail_of(const Schedule& root_whole, int ranks, int root, std::size_t first_step) {
  if (ranks < 2) return std::nullopt;
  RingTail t{ranks, root, first_step, std::vector<Region>(static_cast<std::size_t>(ranks))};
  std::vector<bool> seen(t.blocks.size(), false);
  auto take = [&](int block, const Region& r) {
    const auto b = static_cast<std::size_t>(block);
    if (seen[b] && !same(t.blocks[b], r)) return false;
    t.blocks[b] = r, seen[b] = true;
    return r.count > 0;
  };
  const int next = wrap(root + 1, ranks), previous = wrap(root - 1, ranks);
  for (std::size_t k = 0; k < root_whole.steps.size(); ++k) {
    const std::size_t number = root_whole.number(k);
    if (number < first_step) continue;
    const std::size_t j = number - first_step;
    const Step& s = root_whole.steps[k];
    if (j + 2 > static_cast<std::size_t>(ranks) || !s.ops.empty() || s.sends.size() > 1 || s.recvs.size() > 1)
      return std::nullopt;
    // The root is member 0: it sends block -j and receives block -j-1.
    for (const Transfer& x : s.sends)
      if (x.peer != next || !take(wrap(-static_cast<long long>(j), ranks), x.region)) return std::nullopt;
    for (const Transfer& x : s.recvs)
      if (x.peer != previous || !take(wrap(-static_cast<long long>(j) - 1, ranks), x.region)) return std::nullopt;
  }
  return t;
}

std::optional<Region> ring_span(const RingTail& t) {
  std::vector<Region> blocks;
  for (const Region& b : t.blocks)
    if (b.count > 0) blocks.push_back(b);
  if (blocks.empty()) return Region{};
  std::sort(blocks.begin(), blocks.end(), [](const Region& a, const Region& b) { return a.offset < b.offset; });
  for (std::size_t i = 1; i < blocks.size(); ++i)
    if (blocks[i].buffer != blocks[0].buffer || blocks[i].offset != blocks[i - 1].offset + blocks[i - 1].count)
      return std::nullopt;
  return Region{blocks[0].buffer, blocks.front().offset,
                blocks.back().offset + blocks.back().count - blocks.front().offset};
}

Schedule ring_writes(const RingTail& t, const Region& span, int member) {
  const Region& own = t.blocks[static_cast<std::size_t>(member)];
  Step step;
  auto add = [&](std::size_t from, std::size_t to) {
    if (to > from) step.recvs.push_back({0, {span.buffer, from, to - from}});
  };
  if (own.count == 0) {
    add(span.offset, span.offset + span.count);
  } else {
    add(span.offset, own.offset);
    add(own.offset + own.count, span.offset + span.count);
  }
  Schedule out;
  out.steps.push_back(std::move(step));
  return out;
}

bool follows_ring_tail(const RingTail& t, int r, const Schedule& whole, const Schedule& head) {
  std::size_t k = 0;
  for (; k < whole.steps.size() && whole.number(k) < t.first_step; ++k)
    if (k >= head.steps.size() || head.number(k) != whole.number(k) || !same(head.steps[k], whole.steps[k]))
      return false;
  if (k != head.steps.size()) return false;
  const int me = wrap(r - t.root, t.ranks);
  for (std::size_t j = 0; j + 1 < static_cast<std::size_t>(t.ranks); ++j) {
    const Step expected = ring_step(t, me, j);
    if (expected.sends.empty() && expected.recvs.empty()) continue;
    if (k >= whole.steps.size() || whole.number(k) != t.first_step + j || !same(whole.steps[k], expected)) return false;
    ++k;
  }
  return k == whole.steps.size();
}

std::optional<RingTailTimes> ring_tail_times(const RingTail& t, const std::vector<double>& start_us,
                                             const std::vector<bool>& written_first,
                                             const std::vector<double>& links_free_us, const CostParams& p,
                                             const CostLayout& l, double most_updates) {
  const int n = t.ranks;
  const auto un = static_cast<std::size_t>(n);
  auto rank_of = [&](int me) { return static_cast<std::size_t>(wrap(t.root + me, n)); };
  // By member: when it ended its last step, and when its message of this step ends.
  std::vector<double> at(un), done(un), grew(un), free_from(un);
  std::vector<char> local(un), written0(un);
  for (int me = 0; me < n; ++me) {
    const std::size_t r = rank_of(me), next = rank_of(me + 1);
    at[static_cast<std::size_t>(me)] = start_us[r];
    local[static_cast<std::size_t>(me)] = l.node_of_rank.empty() || l.node_of_rank[r] == l.node_of_rank[next];
    written0[static_cast<std::size_t>(me)] = written_first[r];
    free_from[static_cast<std::size_t>(me)] = links_free_us[r];
  }
  const RingCosts rc = ring_costs(t, p, l);
  const std::vector<int>& block_size = rc.block_size;
  const std::size_t full_blocks = rc.full_blocks;
  const auto& costs = rc.costs;
  const bool priced_written = p.prices_written();
  // Ring steps after the first repeat their costs every `period` steps: block sizes
  // repeat every `period` members (1 where all are alike).
  const std::size_t period = size_period(block_size);
  constexpr double kNone = -std::numeric_limits<double>::infinity();
  RingTailTimes out;
  out.messages = full_blocks * (un - 1);
  auto has = [&](long long b) { return block_size[static_cast<std::size_t>(wrap(b, n))] >= 0; };
  // Every rank's end of step, once per `period` steps, at most kLags periods back (a ring
  // slot each): the recurrence may repeat only every few periods (its critical cycles).
  constexpr std::size_t kLags = 16;
  std::vector<std::vector<double>> snapshots(kLags);
  std::size_t taken = 0, next_snapshot = 0;
  double updates = 0;
  for (std::size_t j = 0; j + 1 < un; ++j) {
    if ((updates += n) > most_updates) return std::nullopt;
    const auto jj = static_cast<long long>(j);
    for (int me = 0; me < n; ++me) {
      const auto m = static_cast<std::size_t>(me);
      const int size = block_size[static_cast<std::size_t>(wrap(me - jj, n))];
      if (size < 0) {
        done[m] = kNone;
        continue;
      }
      // Both ways where the sender also receives in this step or the receiver also sends.
      const bool both = has(me - jj - 1) || has(me + 1 - jj);
      const bool written = priced_written && (j > 0 || written0[m]);
      const MessageCost& c =
          costs[static_cast<std::size_t>(size)][static_cast<std::size_t>(local[m] | both << 1 | written << 2)];
      const std::size_t next = me + 1 == n ? 0 : m + 1;
      const double start = std::max(at[m], at[next]);
      // Later messages start later: once the first passes, so do they.
      if (start < free_from[m]) {
        out.hosts_busy = true;
        return out;
      }
      free_from[m] = kNone;
      done[m] = done_on_idle_ports(p, start, c);
    }
    for (std::size_t m = 0; m < un; ++m) at[m] = std::max({at[m], done[m], done[m == 0 ? un - 1 : m - 1]});
    ++out.steps_computed;
    if (out.settled || j + 2 >= un || j != next_snapshot) continue;
    next_snapshot = j + period;
    // Every rank `lag` periods further by the same time (to rounding): so is every later
    // `lag` periods, each one's costs those of the one before. Whole cycles are added;
    // the few steps left over are computed.
    for (std::size_t lag = 1; lag <= std::min(taken, kLags) && !out.settled; lag *= 2) {
      const std::vector<double>& then = snapshots[(taken - lag) % kLags];
      double least = std::numeric_limits<double>::infinity(), most = -least, latest = 0;
      for (std::size_t m = 0; m < un; ++m) {
        grew[m] = at[m] - then[m];
        least = std::min(least, grew[m]), most = std::max(most, grew[m]);
        latest = std::max(latest, at[m]);
      }
      if (most - least > 1e-14 * latest) continue;
      const std::size_t cycle = lag * period, whole = (un - 2 - j) / cycle;
      for (std::size_t m = 0; m < un; ++m) at[m] += static_cast<double>(whole) * grew[m];
      out.settled = true;
      out.repeating_from = j + 1, out.period = cycle;
      j += whole * cycle;
    }
    if (!out.settled) snapshots[taken++ % kLags] = at;
  }
  out.time_us = *std::max_element(at.begin(), at.end());
  return out;
}

Schedule ring_steps(const RingTail& t, int member, std::size_t from, std::size_t to) {
  Schedule out;
  for (std::size_t j = from; j < to && j + 1 < static_cast<std::size_t>(t.ranks); ++j) {
    Step s = ring_step(t, member, j);
    if (s.sends.empty() && s.recvs.empty()) continue;
    out.steps.push_back(std::move(s));
    out.numbers.push_back(t.first_step + j);
  }
  return out;
}

namespace {

constexpr double kNever = -std::numeric_limits<double>::infinity();

// Per member (as receiver): the ring steps from `from` whose receive lands on a block the
// steps before the ring touched on its rank, and from when that receive may start,
// sorted by step. Blocks are found by offset: few regions per rank, each a run of blocks.
std::vector<std::vector<std::pair<std::size_t, double>>> touched_steps(const RingTail& t, std::size_t from,
                                                                       const std::vector<RingTailRank>& ranks) {
  const int n = t.ranks;
  struct Block {
    BufferId buffer;
    std::size_t offset, count;
    int member;
  };
  std::vector<Block> blocks;
  for (int b = 0; b < n; ++b)
    if (const Region& r = t.blocks[static_cast<std::size_t>(b)]; r.count > 0)
      blocks.push_back({r.buffer, r.offset, r.count, b});
  auto key = [](const Block& x) { return std::pair{static_cast<int>(x.buffer), x.offset}; };
  std::sort(blocks.begin(), blocks.end(), [&](const Block& a, const Block& b) { return key(a) < key(b); });
  std::vector<std::vector<std::pair<std::size_t, double>>> out(static_cast<std::size_t>(n));
  for (int m = 0; m < n; ++m) {
    auto& steps = out[static_cast<std::size_t>(m)];
    for (const auto& [region, at] : ranks[static_cast<std::size_t>(wrap(t.root + m, n))].touched) {
      // The first block ending past the region's start, then every one starting before its end.
      auto it = std::lower_bound(blocks.begin(), blocks.end(), region, [](const Block& b, const Region& r) {
        return std::pair{static_cast<int>(b.buffer), b.offset + b.count} <=
               std::pair{static_cast<int>(r.buffer), r.offset};
      });
      for (; it != blocks.end() && it->buffer == region.buffer && it->offset < region.offset + region.count; ++it) {
        const auto j = static_cast<std::size_t>(wrap(static_cast<long long>(m) - it->member - 1, n));
        if (j >= from && j + 1 < static_cast<std::size_t>(n)) steps.emplace_back(j, at);
      }
    }
    std::sort(steps.begin(), steps.end());
  }
  return out;
}

double end_of_simulated(const RingTail& t, const std::vector<RingTailRank>& ranks) {
  double end = 0;
  for (std::size_t r = 0; r < static_cast<std::size_t>(t.ranks); ++r) end = std::max(end, ranks[r].finish_us);
  return end;
}

// Where a path begins: member `member` starts its message of step `step` no earlier than `at`.
struct Path {
  std::size_t member, step;
  double at;
};

// The maximum of a fixed array over index ranges, each answered in O(1).
class RangeMax {
 public:
  explicit RangeMax(std::vector<double> v) : levels_{std::move(v)} {
    for (std::size_t w = 1; 2 * w <= levels_[0].size(); w *= 2) {
      const std::vector<double>& below = levels_.back();
      std::vector<double> up(below.size() - w);
      for (std::size_t i = 0; i < up.size(); ++i) up[i] = std::max(below[i], below[i + w]);
      levels_.push_back(std::move(up));
    }
  }
  double over(std::size_t lo, std::size_t hi) const {  // [lo, hi], lo <= hi
    std::size_t k = 0;
    while ((std::size_t{2} << k) <= hi - lo + 1) ++k;
    return std::max(levels_[k][lo], levels_[k][hi + 1 - (std::size_t{1} << k)]);
  }

 private:
  std::vector<std::vector<double>> levels_;
};

// The ring's last message end, where every `gap`-th block has bytes, all alike (gap 1:
// every block; fewer elements than ranks spread them out): each member's message of step
// j starts at the latest of a path's start and, per step before it, either its own
// stream's previous start plus its port time (a stay: its previous message was the block
// `gap` above, `gap` steps before) or the member before's previous start plus that whole
// message (a hop, as the block moves on). A path from member m0 at step k0 with h hops
// ends at (sum of the whole messages of members m0..m0+h, the last one's own included) +
// s x (the largest port time among them), s = (L - h) / gap stays for L steps to go:
// stays go where they weigh most, and h is L less whole gaps. Per distinct port time v,
// the members where it is the largest form one run of h; the best h there maximizes
// W[x+1] - v i over x = m0 + h = r + gap i (W the prefix sums of whole messages, members
// doubled around the ring, r fixed by m0 + L): a range maximum per residue r.
double ring_end(const std::vector<Path>& starts, const std::vector<double>& whole, const std::vector<double>& port,
                std::size_t last_step, std::size_t gap) {
  const std::size_t n = whole.size();
  std::vector<double> sums(2 * n + 1, 0);
  for (std::size_t x = 0; x < 2 * n; ++x) sums[x + 1] = sums[x] + whole[x % n];
  std::vector<double> values(port);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<std::vector<RangeMax>> best(values.size());  // per value, per residue
  // Per value: the first member at or after x (doubled) whose port time is at least it.
  std::vector<std::vector<std::size_t>> reach(values.size(), std::vector<std::size_t>(2 * n + 1, SIZE_MAX));
  for (std::size_t v = 0; v < values.size(); ++v) {
    for (std::size_t r = 0; r < gap; ++r) {
      std::vector<double> q;
      for (std::size_t x = r, i = 0; x < 2 * n; x += gap, ++i)
        q.push_back(sums[x + 1] - values[v] * static_cast<double>(i));
      best[v].emplace_back(std::move(q));
    }
    for (std::size_t x = 2 * n; x-- > 0;) reach[v][x] = port[x % n] >= values[v] ? x : reach[v][x + 1];
  }
  double end = -std::numeric_limits<double>::infinity();
  for (const Path& s : starts) {
    const std::size_t steps = last_step - s.step, x0 = s.member, r = (x0 + steps) % gap;
    for (std::size_t v = 0; v < values.size(); ++v) {
      // h where values[v] is the largest port time on the way: from the first member
      // with it (or more) to just before the first with more; x = x0 + h of residue r.
      const std::size_t first = reach[v][x0], more = v + 1 < values.size() ? reach[v + 1][x0] : SIZE_MAX;
      if (first == SIZE_MAX) continue;
      const std::size_t lo = first, hi = std::min(x0 + steps, more == SIZE_MAX ? more : more - 1);
      if (hi < lo || hi < r) continue;
      const std::size_t i_lo = lo <= r ? 0 : (lo - r + gap - 1) / gap, i_hi = (hi - r) / gap;
      if (i_hi < i_lo) continue;
      // sums[x+1] - sums[x0] + v (steps - h) / gap, with (steps - h) / gap = (steps + x0 - r) / gap - i.
      const double path =
          best[v][r].over(i_lo, i_hi) - sums[x0] + values[v] * static_cast<double>((steps + x0 - r) / gap);
      end = std::max(end, s.at + path);
    }
  }
  return end;
}

}  // namespace

std::optional<RingTailDataflow> ring_tail_dataflow_times(const RingTail& t, std::size_t from,
                                                         const std::vector<RingTailRank>& ranks,
                                                         const std::vector<PortTrace>& host_out,
                                                         const std::vector<PortTrace>& host_in, const CostParams& p,
                                                         const CostLayout& l, double most_updates) {
  const int n = t.ranks;
  const auto un = static_cast<std::size_t>(n);
  RingTailDataflow out;
  from = std::min(from, un - 1);  // all simulated: nothing left to compute
  auto rank_of = [&](std::size_t m) { return static_cast<std::size_t>(wrap(t.root + static_cast<long long>(m), n)); };
  auto host = [&](std::size_t r) { return l.node_of_rank.empty() ? 0 : l.node_of_rank[r]; };
  // Per member, side by side (the recurrence touches them together): its stream to the
  // next member, and itself as receiver.
  struct Member {
    double posted, recv_posted, recvs_done, done = kNever;
    double out_free = 0, in_free = 0, core_free = 0, hout_free = kNever, hin_free = kNever;
    std::size_t touch_step = SIZE_MAX, next_touch = 0;  // its next receive that waits (step), in its list
    bool local, copies, first = true;
  };
  std::vector<Member> mem(un);
  for (std::size_t m = 0; m < un; ++m) {
    const RingTailRank& r = ranks[rank_of(m)];
    Member& x = mem[m];
    x.posted = r.send_posted_us, x.recv_posted = r.recv_posted_us, x.recvs_done = r.recvs_done_us;
    x.local = host(rank_of(m)) == host(rank_of(m + 1));
    x.copies = (x.local ? p.intra : p.inter).receiver_copies;
  }
  const std::vector<std::vector<std::pair<std::size_t, double>>> touched = touched_steps(t, from, ranks);
  for (std::size_t m = 0; m < un; ++m)
    if (!touched[m].empty()) mem[m].touch_step = touched[m][0].first;
  const RingCosts rc = ring_costs(t, p, l);
  const std::vector<int>& block_size = rc.block_size;
  const std::size_t full_blocks = rc.full_blocks;
  const auto& costs = rc.costs;
  const int written = p.prices_written() ? 4 : 0;  // every computed send forwards a block received
  // A stream's first computed message must take each port after every simulated message
  // did: later, or at the same instant after them in the order ties go (tie_order).
  auto after_all = [&](const PortTrace& port, double match, std::uint64_t order) {
    if (p.shared_ports) return match > port.free;  // no flow beside it: nothing to share
    return match > port.last || (match == port.last && order > port.last_order);
  };
  out.times.messages = full_blocks * (un - 1 - from);
  std::vector<std::size_t> blocks;  // those with bytes: each moves one member on per step
  for (std::size_t x = 0; x < un; ++x)
    if (block_size[x] >= 0) blocks.push_back(x);
  std::vector<double> arrived(un, kNever);  // per block: when its latest message ended
  // When member m's message of step j (block b) starts, as the simulator would start it;
  // NaN where its stream's first computed message would take a port beside a simulated one.
  auto start_of = [&](std::size_t m, std::size_t b, std::size_t j, const MessageCost& c) {
    Member& x = mem[m];
    const std::size_t next = m + 1 == un ? 0 : m + 1;
    Member& to_member = mem[next];
    // Member m forwards block b, received in step j-1 (its receives before complete).
    if (j > from) x.recvs_done = std::max(x.recvs_done, arrived[b]);
    x.posted = std::max(x.posted, x.recvs_done);
    if (to_member.touch_step <= j) {
      const auto& steps = touched[next];
      std::size_t& k = to_member.next_touch;
      for (; k < steps.size() && steps[k].first <= j; ++k)
        to_member.recv_posted = std::max(to_member.recv_posted, steps[k].second);
      to_member.touch_step = k < steps.size() ? steps[k].first : SIZE_MAX;
    }
    const double match = std::max(x.posted, to_member.recv_posted);
    if (x.first) {
      const std::size_t r = rank_of(m), to = rank_of(next);
      const std::uint64_t order = tie_order(ranks[r].local, ranks[r].sends, ranks[to].local, ranks[to].recvs);
      bool ok = after_all(ranks[r].out, match, order) && after_all(ranks[to].in, match, order);
      if (x.copies) ok = ok && after_all(ranks[to].core, match, order);
      const auto ho = static_cast<std::size_t>(host(r)), hi = static_cast<std::size_t>(host(to));
      if (!x.local) ok = ok && after_all(host_out[ho], match, order) && after_all(host_in[hi], match, order);
      if (!ok) return std::numeric_limits<double>::quiet_NaN();
      x.out_free = ranks[r].out.free, x.in_free = ranks[to].in.free, x.core_free = ranks[to].core.free;
      if (!x.local) x.hout_free = host_out[ho].free, x.hin_free = host_in[hi].free;
      x.first = false;
    }
    // Its ranks' ports and the copier's core, then (between hosts) the hosts' links.
    double start = std::max({match, x.out_free, x.in_free});
    if (x.copies) start = std::max(start, x.core_free), x.core_free = start + c.port_us;
    if (!x.local) {
      start = std::max({start, x.hout_free, x.hin_free});
      x.hout_free = x.hin_free = start + c.port_us;
    }
    x.out_free = x.in_free = start + c.port_us;
    return start;
  };
  // Per block, its cost's index but for the sender's link (local or not): its size, both
  // ways where the sender also receives in that step or the receiver also sends.
  std::vector<std::size_t> code(un, 0);
  for (std::size_t b = 0; b < un; ++b)
    if (block_size[b] >= 0) {
      const bool both = block_size[b == 0 ? un - 1 : b - 1] >= 0 || block_size[b + 1 == un ? 0 : b + 1] >= 0;
      code[b] = static_cast<std::size_t>(block_size[b]) * 8 + (both ? 2 : 0) + static_cast<std::size_t>(written);
    }
  auto cost = [&](std::size_t m, std::size_t b) -> const MessageCost& {
    const std::size_t k = code[b] + static_cast<std::size_t>(mem[m].local);
    return costs[k / 8][k % 8];
  };
  // Steps from `from` to `to` by recurrence, each start kept in `starts` where given;
  // false where a stream's first computed message would take a port beside a simulated one.
  auto steps_by_recurrence = [&](std::size_t to, std::vector<Path>* starts) {
    for (std::size_t j = from; j < to; ++j, ++out.times.steps_computed)
      for (const std::size_t b : blocks) {
        const std::size_t m = b + j < un ? b + j : b + j - un;
        const MessageCost& c = cost(m, b);
        const double start = start_of(m, b, j, c);
        if (std::isnan(start)) return false;
        mem[m].done = arrived[b] = done_on_idle_ports(p, start, c);
        if (starts) starts->push_back({m, j, start});
      }
    return true;
  };
  // Every gap-th block with bytes, all alike, from block `phase` on.
  const std::size_t gap = full_blocks > 0 && un % full_blocks == 0 ? un / full_blocks : 0;
  std::size_t phase = 0;
  while (gap > 0 && phase < gap && block_size[phase] < 0) ++phase;
  bool spaced = gap > 0 && phase < gap && costs.size() == 1;
  for (std::size_t x = 0; x < un && spaced; ++x) spaced = (block_size[x] >= 0) == (x % gap == phase);
  if (spaced && from + gap + 1 < un) {
    // The first `gap` steps by recurrence, in which every member sends once (the first
    // message of its stream, checked), then every later start as a longest path from
    // those (a stay reaches back `gap` steps, a hop one) or from a receive that waited.
    std::vector<Path> starts;
    if (!steps_by_recurrence(from + gap, &starts)) {
      out.apart = false;
      return out;
    }
    std::vector<double> whole(un), port(un);
    for (std::size_t m = 0; m < un; ++m) {
      const MessageCost& c = cost(m, phase);
      whole[m] = done_on_idle_ports(p, 0, c), port[m] = c.port_us;
      const std::size_t next = m + 1 == un ? 0 : m + 1;
      for (std::size_t k = mem[next].next_touch; k < touched[next].size(); ++k)
        starts.push_back({m, touched[next][k].first, touched[next][k].second});
    }
    out.times.closed_form = true;
    out.times.time_us = std::max(ring_end(starts, whole, port, un - 2, gap), end_of_simulated(t, ranks));
    return out;
  }
  if (static_cast<double>(out.times.messages) > most_updates) return std::nullopt;
  if (!steps_by_recurrence(un - 1, nullptr)) {
    out.apart = false;
    return out;
  }
  // Each rank ends with its last message out and the last one in.
  double end = end_of_simulated(t, ranks);
  for (const Member& x : mem) end = std::max(end, x.done);
  out.times.time_us = end;
  return out;
}

}  // namespace collbench
