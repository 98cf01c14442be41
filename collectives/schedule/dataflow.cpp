#include "collectives/schedule/dataflow.hpp"

#include <algorithm>
#include <iterator>
#include <memory_resource>

namespace collbench {
namespace {

using Marks = std::array<std::ptrdiff_t, kFlowQueues>;

void raise(Marks& to, const Marks& from) {
  for (std::size_t q = 0; q < kFlowQueues; ++q) to[q] = std::max(to[q], from[q]);
}

// Per element range of one buffer: the last item that wrote it and, per queue, the
// last that read it since. A write needs only the latest writer and readers: they
// already waited for everything before them.
struct Access {
  Marks write{-1, -1, -1}, read{-1, -1, -1};
};

// A buffer's ranges, from each start to the next: a sorted array while few (most
// schedules: a search and a short shift are all they need), then one with a gap that
// follows the accesses (a ring over thousands of ranks splits its buffer as often, each
// split beside the last one: there a split moves nothing, and a range is found a few
// steps from the last one used, else by a search).
class Ledger {
 public:
  Ledger(std::pmr::memory_resource* arena, std::size_t most_flat) : most_flat_(most_flat), slots_(arena) {
    slots_.reserve(16);
    slots_.emplace_back(0, Access{});
  }
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Calls f on the Access of every range inside [offset, offset + count).
  template <class F>
  void each(std::size_t offset, std::size_t count, F&& f) {
    if (count == 0) return;
    if (!gapped_) {
      const std::size_t first = flat_split(offset), end = flat_split(offset + count);
      for (std::size_t i = first; i < end; ++i) f(slots_[i].second);
      if (slots_.size() > most_flat_) to_gapped();
      return;
    }
    // The region's end is searched from its start (a split after `first` keeps it).
    const std::size_t first = split(offset);
    finger_ = first;
    const std::size_t end = split(offset + count);
    for (std::size_t i = first; i < end; ++i) f(slot(i).second);
  }

 private:
  using Range = std::pair<std::size_t, Access>;

  // The index of the range starting at `at`, made if need be.
  std::size_t flat_split(std::size_t at) {
    auto after =
        std::upper_bound(slots_.begin(), slots_.end(), at, [](std::size_t a, const Range& r) { return a < r.first; });
    const auto it = std::prev(after);
    if (it->first == at) return static_cast<std::size_t>(it - slots_.begin());
    const auto made = slots_.insert(after, Range{at, it->second});  // may move the array: begin() after
    return static_cast<std::size_t>(made - slots_.begin());
  }

  void to_gapped() {
    gapped_ = true;
    grow();
  }

  // Ranges by index, the gap skipped.
  std::size_t size() const { return slots_.size() - (gap_end_ - gap_begin_); }
  Range& slot(std::size_t i) { return slots_[i < gap_begin_ ? i : i + (gap_end_ - gap_begin_)]; }

  // The last range starting at or before `at`: a few steps from the one last used, else
  // a search.
  std::size_t find(std::size_t at) {
    const std::size_t n = size();
    std::size_t i = std::min(finger_, n - 1);
    if (slot(i).first <= at) {
      for (int k = 0; k < 4; ++k, ++i)
        if (i + 1 == n || slot(i + 1).first > at) return i;
    } else {
      for (int k = 0; k < 4 && i > 0; ++k)
        if (slot(--i).first <= at) return i;
    }
    std::size_t lo = 0, hi = n;  // slot(lo) starts at or before `at`, slot(hi) beyond it
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (slot(mid).first <= at ? lo : hi) = mid;
    }
    return lo;
  }

  // The index of the range starting at `at`, made if need be.
  std::size_t split(std::size_t at) {
    const std::size_t i = find(at);
    if (slot(i).first == at) return i;
    if (gap_begin_ == gap_end_) grow();
    move_gap(i + 1);
    slots_[gap_begin_++] = Range{at, slot(i).second};
    return i + 1;
  }

  // The gap moved to start at index `to`, the ranges between shifted across it.
  void move_gap(std::size_t to) {
    const auto at = [this](std::size_t k) { return slots_.begin() + static_cast<std::ptrdiff_t>(k); };
    if (to < gap_begin_) {
      std::move_backward(at(to), at(gap_begin_), at(gap_end_));
      gap_end_ -= gap_begin_ - to;
      gap_begin_ = to;
    } else if (to > gap_begin_) {
      const std::size_t moved = to - gap_begin_;
      std::move(at(gap_end_), at(gap_end_ + moved), at(gap_begin_));
      gap_begin_ += moved;
      gap_end_ += moved;
    }
  }

  // Every slot holding a range: as many again, as the gap at the end.
  void grow() {
    gap_begin_ = slots_.size();
    gap_end_ = 2 * slots_.size();
    slots_.resize(gap_end_);
  }

  // Ranges are only ever split, never merged: storage comes from the planner's arena,
  // freed with it.
  std::size_t most_flat_;
  std::pmr::vector<Range> slots_;
  bool gapped_ = false;
  std::size_t gap_begin_ = 0, gap_end_ = 0;  // slots [gap_begin_, gap_end_) hold no range
  std::size_t finger_ = 0;                   // the range last used
};

class Planner {
 public:
  Planner(const BufferLayout& layout, std::size_t most_flat) : layout_(layout), most_flat_(most_flat) {}
  Planner(const Planner&) = delete;
  Planner& operator=(const Planner&) = delete;

  Marks reads(const Region& r) {
    Marks m{-1, -1, -1};
    at(r, [&](Access& a) { raise(m, a.write); });
    return m;
  }
  Marks writes(const Region& r) {
    Marks m{-1, -1, -1};
    at(r, [&](Access& a) {
      raise(m, a.write);
      raise(m, a.read);
    });
    return m;
  }
  void record_read(const Region& r, FlowQueue q, std::ptrdiff_t i) {
    at(r, [&](Access& a) { a.read[static_cast<std::size_t>(q)] = std::max(a.read[static_cast<std::size_t>(q)], i); });
  }
  void record_write(const Region& r, FlowQueue q, std::ptrdiff_t i) {
    at(r, [&](Access& a) {
      a = Access{};
      a.write[static_cast<std::size_t>(q)] = i;
    });
  }

 private:
  template <class F>
  void at(const Region& r, F&& f) {
    const Region where = in_memory(r, layout_);
    ledgers_[static_cast<std::size_t>(where.buffer)].each(where.offset, where.count, f);
  }
  const BufferLayout& layout_;
  // The three ledgers' ranges, from a buffer on the stack first: most schedules need no
  // more, and a cost model plans one for each of 65,536 ranks.
  std::array<std::byte, 32768> first_;
  std::pmr::monotonic_buffer_resource arena_{first_.data(), first_.size()};
  std::size_t most_flat_;
  std::array<Ledger, 3> ledgers_{Ledger(&arena_, most_flat_), Ledger(&arena_, most_flat_),
                                 Ledger(&arena_, most_flat_)};  // send, recv, scratch
};

// Each queue sized once: a schedule of 131,070 steps (a ring over 65,536 ranks) would
// otherwise copy its items as they grow.
void reserve_items(DataflowPlan& plan, const Schedule& s) {
  std::array<std::size_t, kFlowQueues> n{};
  for (const Step& st : s.steps) {
    n[static_cast<std::size_t>(FlowQueue::recvs)] += st.recvs.size();
    n[static_cast<std::size_t>(FlowQueue::sends)] += st.sends.size();
    n[static_cast<std::size_t>(FlowQueue::ops)] += st.ops.size();
  }
  for (std::size_t q = 0; q < kFlowQueues; ++q) plan.items[q].reserve(n[q]);
}
}  // namespace

DataflowPlan plan_dataflow(const Schedule& s, const BufferLayout& layout, std::size_t most_flat_ranges) {
  DataflowPlan plan;
  reserve_items(plan, s);
  Planner p(layout, most_flat_ranges);
  auto& recvs = plan.items[static_cast<std::size_t>(FlowQueue::recvs)];
  auto& sends = plan.items[static_cast<std::size_t>(FlowQueue::sends)];
  auto& ops = plan.items[static_cast<std::size_t>(FlowQueue::ops)];
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    const Step& st = s.steps[k];
    // A step's transfers are concurrent: all of them are planned before any is recorded.
    const std::size_t r0 = recvs.size(), s0 = sends.size();
    for (const Transfer& t : st.recvs) recvs.push_back({k, p.writes(t.region)});
    for (const Transfer& t : st.sends) sends.push_back({k, p.reads(t.region)});
    for (std::size_t i = 0; i < st.recvs.size(); ++i)
      p.record_write(st.recvs[i].region, FlowQueue::recvs, static_cast<std::ptrdiff_t>(r0 + i));
    for (std::size_t i = 0; i < st.sends.size(); ++i)
      p.record_read(st.sends[i].region, FlowQueue::sends, static_cast<std::ptrdiff_t>(s0 + i));
    for (const LocalOp& o : st.ops) {
      const auto me = static_cast<std::ptrdiff_t>(ops.size());
      FlowItem item{k, p.writes(o.dst)};
      raise(item.after, p.reads(o.a));
      if (o.kind == LocalOp::Kind::reduce) raise(item.after, p.reads(o.b));
      item.after[static_cast<std::size_t>(FlowQueue::ops)] = -1;  // operations run in order anyway
      ops.push_back(item);
      p.record_read(o.a, FlowQueue::ops, me);
      if (o.kind == LocalOp::Kind::reduce) p.record_read(o.b, FlowQueue::ops, me);
      p.record_write(o.dst, FlowQueue::ops, me);
    }
  }
  return plan;
}

DataflowPlan plan_steps(const Schedule& s) {
  DataflowPlan plan;
  reserve_items(plan, s);
  auto& recvs = plan.items[static_cast<std::size_t>(FlowQueue::recvs)];
  auto& sends = plan.items[static_cast<std::size_t>(FlowQueue::sends)];
  auto& ops = plan.items[static_cast<std::size_t>(FlowQueue::ops)];
  auto last = [](const std::vector<FlowItem>& q) { return static_cast<std::ptrdiff_t>(q.size()) - 1; };
  Marks before{-1, -1, -1};  // everything of the previous steps
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    const Step& st = s.steps[k];
    for (std::size_t i = 0; i < st.recvs.size(); ++i) recvs.push_back({k, before});
    for (std::size_t i = 0; i < st.sends.size(); ++i) sends.push_back({k, before});
    const Marks transfers{last(recvs), last(sends), before[static_cast<std::size_t>(FlowQueue::ops)]};
    for (std::size_t i = 0; i < st.ops.size(); ++i) ops.push_back({k, transfers});
    before = {last(recvs), last(sends), last(ops)};
  }
  return plan;
}

DataflowPlan plan_execution(const Schedule& s, const BufferLayout& layout, ExecutionOrder order) {
  return order == ExecutionOrder::steps ? plan_steps(s) : plan_dataflow(s, layout);
}

FlowProgress::FlowProgress(const DataflowPlan& plan) {
  for (std::size_t q = 0; q < kFlowQueues; ++q) sizes_[q] = plan.items[q].size();
  for (FlowQueue q : {FlowQueue::recvs, FlowQueue::sends}) done_[index(q)].assign(sizes_[index(q)], 0);
}

void FlowProgress::reset() {
  started_ = {};
  complete_ = {};
  for (auto& d : done_) std::fill(d.begin(), d.end(), 0);
}

bool FlowProgress::ready(const FlowItem& it) const {
  for (std::size_t q = 0; q < kFlowQueues; ++q)
    if (static_cast<std::ptrdiff_t>(complete_[q]) <= it.after[q]) return false;
  return true;
}

const FlowItem* FlowProgress::next_ready(const DataflowPlan& plan, FlowQueue q) const {
  const std::vector<FlowItem>& items = plan.of(q);
  const std::size_t i = started_[index(q)];
  return i < items.size() && ready(items[i]) ? &items[i] : nullptr;
}

void FlowProgress::start(FlowQueue q) {
  ++started_[index(q)];
  if (q == FlowQueue::ops) ++complete_[index(q)];
}

void FlowProgress::complete_transfer(FlowQueue q, std::size_t item) {
  std::vector<char>& done = done_[index(q)];
  done[item] = 1;
  std::size_t& prefix = complete_[index(q)];
  while (prefix < done.size() && done[prefix]) ++prefix;
}

bool FlowProgress::finished() const {
  for (std::size_t q = 0; q < kFlowQueues; ++q)
    if (complete_[q] < sizes_[q]) return false;
  return true;
}

void choose_wait_set(const DataflowPlan& plan, const FlowProgress& p, std::span<const FlowRef> items,
                     std::vector<std::size_t>& subset) {
  constexpr FlowQueue kR = FlowQueue::recvs, kS = FlowQueue::sends, kO = FlowQueue::ops;
  auto step_of = [&](std::size_t i) { return plan.of(items[i].first)[items[i].second].step; };
  // Whether every receive and send of steps up to `k` has started: the condition under
  // which waiting for a whole set cannot deadlock (dataflow.hpp, "Waiting for a set").
  auto started_through = [&](std::size_t k) {
    for (FlowQueue q : {kR, kS})
      if (p.started(q) < plan.of(q).size() && plan.of(q)[p.started(q)].step <= k) return false;
    return true;
  };
  // When the next operation waits only for transfers already in flight, wait for
  // exactly those (with the sends of its step and before, which the step order would
  // have waited for too) in one call: one call per wait, not one per transfer.
  subset.clear();
  const std::size_t ops_done = p.complete(kO);
  if (ops_done < plan.of(kO).size()) {
    const FlowItem& next = plan.of(kO)[ops_done];
    const auto need_r = next.after[static_cast<std::size_t>(kR)], need_s = next.after[static_cast<std::size_t>(kS)];
    if (static_cast<std::ptrdiff_t>(p.started(kR)) > need_r && static_cast<std::ptrdiff_t>(p.started(kS)) > need_s)
      for (std::size_t i = 0; i < items.size(); ++i) {
        const auto [queue, index] = items[i];
        const auto at = static_cast<std::ptrdiff_t>(index);
        if (queue == kR ? at <= need_r : at <= need_s || plan.of(kS)[index].step <= next.step) subset.push_back(i);
      }
  }
  if (!subset.empty()) {
    std::size_t latest = 0;
    for (std::size_t i : subset) latest = std::max(latest, step_of(i));
    if (!started_through(latest)) subset.clear();
  }
  // Nothing left to start either: everything in flight is all that remains.
  const bool all_started = p.started(kR) == plan.of(kR).size() && p.started(kS) == plan.of(kS).size();
  if (subset.empty() && all_started && ops_done == plan.of(kO).size())
    for (std::size_t i = 0; i < items.size(); ++i) subset.push_back(i);
  // Else the earliest step in flight, as the step order would wait for it, under the
  // same condition: a wait known in advance (precompile), where "any" is not.
  if (subset.empty()) {
    std::size_t lowest = step_of(0);
    for (std::size_t i = 1; i < items.size(); ++i) lowest = std::min(lowest, step_of(i));
    if (started_through(lowest))
      for (std::size_t i = 0; i < items.size(); ++i)
        if (step_of(i) == lowest) subset.push_back(i);
  }
}

}  // namespace collbench
