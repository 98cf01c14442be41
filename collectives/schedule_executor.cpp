#include "collectives/schedule_executor.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>

#include "collectives/progress.hpp"
#include "collectives/reduce_kernels.hpp"

namespace collbench {

namespace {
struct Buffers {
  std::byte* send;
  std::byte* recv;
  std::byte* scratch;
  std::size_t send_count, recv_count, scratch_count, elem;

  std::byte* resolve(const Region& r) const {
    std::byte* base = nullptr;
    std::size_t limit = 0;
    switch (r.buffer) {
      case BufferId::send: base = send; limit = send_count; break;
      case BufferId::recv: base = recv; limit = recv_count; break;
      case BufferId::scratch: base = scratch; limit = scratch_count; break;
    }
    if (r.offset > limit || r.count > limit - r.offset)
      throw std::logic_error("schedule region [" + std::to_string(r.offset) + "+" +
                             std::to_string(r.count) + "] exceeds its buffer of " +
                             std::to_string(limit) + " elements");
    return base + r.offset * elem;
  }
};

}  // namespace

BoundSchedule::BoundSchedule(const Schedule& schedule, const CollectiveCall& call,
                             const BufferLayout& layout, std::byte* scratch,
                             std::size_t scratch_bytes, ExecutionOrder order)
    : dtype_(call.dtype), op_(call.op) {
  const std::size_t elem = dtype_size(call.dtype);
  if (schedule.scratch_count * elem > scratch_bytes)
    throw std::logic_error("schedule needs more scratch than was provided");
  // Transports count bytes in int: larger messages go as several, in order.
  const Schedule s = split_large_transfers(schedule, static_cast<std::size_t>(INT_MAX) / elem);
  // The send buffer is only read; transports take non-const pointers for both directions.
  Buffers b{const_cast<std::byte*>(static_cast<const std::byte*>(call.send)),
            static_cast<std::byte*>(call.recv), scratch, layout.send_count,
            layout.recv_count, s.scratch_count, elem};
  for (const Step& st : s.steps) {
    for (const Transfer& t : st.sends)
      sends_.push_back({t.peer, b.resolve(t.region), t.region.count * elem});
    for (const Transfer& t : st.recvs)
      recvs_.push_back({t.peer, b.resolve(t.region), t.region.count * elem});
    for (const LocalOp& o : st.ops) {
      if (o.a.count != o.dst.count || (o.kind == LocalOp::Kind::reduce && o.b.count != o.dst.count))
        throw std::logic_error("local operation with regions of different lengths");
      ops_.push_back({o.kind, b.resolve(o.dst), b.resolve(o.a),
                      o.kind == LocalOp::Kind::reduce ? b.resolve(o.b) : nullptr, o.dst.count});
    }
  }
  plan_ = plan_execution(s, layout, order);
  progress_ = FlowProgress(plan_);
}

void BoundSchedule::run_op(const Op& o) const {
  if (o.kind == LocalOp::Kind::reduce) reduce(dtype_, op_, o.dst, o.a, o.b, o.count);
  else if (o.dst != o.a) std::memmove(o.dst, o.a, o.count * dtype_size(dtype_));
}

void BoundSchedule::run(Transport& transport) const {
  constexpr FlowQueue kR = FlowQueue::recvs, kS = FlowQueue::sends, kO = FlowQueue::ops;
  const auto& send_items = plan_.of(kS);
  const auto& op_items = plan_.of(kO);
  FlowProgress& p = progress_;
  InFlight& f = in_flight_;
  p.reset();
  f.tickets.clear();
  f.items.clear();
  std::size_t steps = 0;
  for (const auto& items : plan_.items) steps = std::max(steps, items.empty() ? 0 : items.back().step + 1);
  int reported_step = -1;
  for (;;) {
    // Start everything that can start; an operation may free more transfers, so go round.
    for (bool moved = true; moved;) {
      moved = false;
      // Sends first: the peer waits for them, while a receive posted a moment later
      // still matches (a short message waits as unexpected, a long one for the receive).
      for (FlowQueue q : {kS, kR})
        for (; p.next_ready(plan_, q); p.start(q), moved = true) {
          const std::size_t i = p.started(q);
          f.tickets.push_back(q == kS ? transport.start_send(sends_[i]) : transport.start_recv(recvs_[i]));
          f.items.push_back({q, i});
        }
      if (p.next_ready(plan_, kO)) {
        run_op(ops_[p.started(kO)]);
        p.start(kO);
        moved = true;
      }
    }
    if (f.tickets.empty()) {
      if (p.finished()) break;
      throw std::logic_error("schedule executor stalled: nothing in flight and nothing ready");
    }
    // The watchdog names the earliest step with work left.
    std::size_t step = steps;
    for (FlowQueue q : {kR, kS, kO})
      if (p.complete(q) < plan_.of(q).size()) step = std::min(step, plan_.of(q)[p.complete(q)].step);
    if (static_cast<int>(step) != reported_step)
      progress::set_step(reported_step = static_cast<int>(step), static_cast<int>(steps));

    f.done.clear();
    // When the next operation waits only for transfers already in flight, wait for
    // exactly those (with the sends of its step and before, which the step order would
    // have waited for too) in one call: waiting for any one at a time cost small
    // messages 10-25% in extra calls. Otherwise, whichever completes first.
    f.subset.clear();
    const std::size_t ops_done = p.complete(kO);
    if (ops_done < ops_.size()) {
      const FlowItem& next = op_items[ops_done];
      const auto need_r = next.after[static_cast<std::size_t>(kR)], need_s = next.after[static_cast<std::size_t>(kS)];
      if (static_cast<std::ptrdiff_t>(p.started(kR)) > need_r && static_cast<std::ptrdiff_t>(p.started(kS)) > need_s)
        for (std::size_t i = 0; i < f.items.size(); ++i) {
          const auto [queue, index] = f.items[i];
          const auto at = static_cast<std::ptrdiff_t>(index);
          if (queue == kR ? at <= need_r : at <= need_s || send_items[index].step <= next.step) f.subset.push_back(i);
        }
    }
    // Nothing left to start either: everything in flight is all that remains.
    const bool all_started = p.started(kR) == recvs_.size() && p.started(kS) == sends_.size();
    if (f.subset.empty() && all_started && ops_done == ops_.size())
      for (std::size_t i = 0; i < f.items.size(); ++i) f.subset.push_back(i);
    if (!f.subset.empty()) {
      f.subset_tickets.clear();
      for (std::size_t i : f.subset) f.subset_tickets.push_back(f.tickets[i]);
      transport.wait_all(f.subset_tickets);
      f.done = f.subset;
    } else {
      transport.wait_some(f.tickets, f.done);
    }
    // Drop the completed tickets, highest position first so the others keep theirs.
    std::sort(f.done.begin(), f.done.end(), std::greater<>());
    for (std::size_t at : f.done) {
      p.complete_transfer(f.items[at].first, f.items[at].second);
      f.tickets[at] = f.tickets.back();
      f.tickets.pop_back();
      f.items[at] = f.items.back();
      f.items.pop_back();
    }
  }
}

}  // namespace collbench
