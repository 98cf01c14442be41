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
  // Each block's size, as an index into the few sizes there are (a ring's blocks take two
  // at most), and each size's cost per (local, both ways, written).
  std::map<std::size_t, int> size_of;
  std::vector<int> block_size(un, -1);
  std::size_t full_blocks = 0;
  for (std::size_t b = 0; b < un; ++b)
    if (const std::size_t bytes = t.blocks[b].count * l.element_size; bytes > 0) {
      block_size[b] = size_of.emplace(bytes, static_cast<int>(size_of.size())).first->second;
      ++full_blocks;
    }
  std::vector<std::array<MessageCost, 8>> costs(size_of.size());
  for (const auto& [bytes, i] : size_of)
    for (int k = 0; k < 8; ++k)
      costs[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)] =
          message_cost(p, l, k & 1, bytes, (k & 2) != 0, (k & 4) != 0);
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

}  // namespace collbench
