#include "collectives/schedule/schedule_executor.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>

#include "collectives/kernels/reduce_kernels.hpp"
#include "collectives/process/progress.hpp"
#include "collectives/schedule/receive_fusion.hpp"
#include "collectives/transport/memory_space.hpp"

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
      case BufferId::send:
        base = send;
        limit = send_count;
        break;
      case BufferId::recv:
        base = recv;
        limit = recv_count;
        break;
      case BufferId::scratch:
        base = scratch;
        limit = scratch_count;
        break;
    }
    if (r.offset > limit || r.count > limit - r.offset)
      throw std::logic_error("schedule region [" + std::to_string(r.offset) + "+" + std::to_string(r.count) +
                             "] exceeds its buffer of " + std::to_string(limit) + " elements");
    return base + r.offset * elem;
  }
};

}  // namespace

BoundSchedule::BoundSchedule(const Schedule& schedule, const CollectiveCall& call, const BufferLayout& layout,
                             std::byte* scratch, std::size_t scratch_bytes, ExecutionOrder order, MemorySpace* space,
                             bool fuse)
    : dtype_(call.dtype), op_(call.op), space_(space) {
  const std::size_t elem = dtype_size(call.dtype);
  if (schedule.scratch_count * elem > scratch_bytes)
    throw std::logic_error("schedule needs more scratch than was provided");
  // Transports count bytes in int: larger messages go as several, in order.
  Schedule s = split_large_transfers(schedule, static_cast<std::size_t>(INT_MAX) / elem);
  std::vector<FusedReceive> fused;
  if (fuse) {
    FusedSchedule f = fuse_receives(s, layout);
    s = std::move(f.schedule);
    fused = std::move(f.receives);
  }
  // The send buffer is only read; transports take non-const pointers for both directions.
  Buffers b{const_cast<std::byte*>(static_cast<const std::byte*>(call.send)),
            static_cast<std::byte*>(call.recv),
            scratch,
            layout.send_count,
            layout.recv_count,
            s.scratch_count,
            elem};
  for (const Step& st : s.steps) {
    // The peers a stalled step waits on, for the watchdog.
    std::vector<int>& peers = step_peers_.emplace_back();
    for (const auto* transfers : {&st.sends, &st.recvs})
      for (const Transfer& t : *transfers)
        if (std::find(peers.begin(), peers.end(), t.peer) == peers.end()) peers.push_back(t.peer);
    for (const Transfer& t : st.sends) sends_.push_back({t.peer, b.resolve(t.region), t.region.count * elem});
    for (const Transfer& t : st.recvs) {
      const FusedReceive* f = recvs_.size() < fused.size() ? &fused[recvs_.size()] : nullptr;
      recv_reductions_.push_back(f && f->kind == FusedReceive::Kind::reduce
                                     ? ReceiveReduction{call.dtype, call.op, b.resolve(f->local), f->peer_first}
                                     : ReceiveReduction{});
      recvs_.push_back({t.peer, b.resolve(t.region), t.region.count * elem});
    }
    for (const LocalOp& o : st.ops) {
      if (o.a.count != o.dst.count || (o.kind == LocalOp::Kind::reduce && o.b.count != o.dst.count))
        throw std::logic_error("local operation with regions of different lengths");
      ops_.push_back({o.kind, b.resolve(o.dst), b.resolve(o.a),
                      o.kind == LocalOp::Kind::reduce ? b.resolve(o.b) : nullptr, o.dst.count});
    }
  }
  plan_ = plan_execution(s, layout, order);
  progress_ = FlowProgress(plan_);
  steps_ = s.steps.size();
  precompile();
}

Ticket BoundSchedule::start_recv(Transport& t, std::size_t i) const {
  return recv_reductions_[i].local ? t.start_recv_reduce(recvs_[i], recv_reductions_[i]) : t.start_recv(recvs_[i]);
}

void BoundSchedule::run_op(const Op& o) const {
  if (space_) {
    if (o.kind == LocalOp::Kind::reduce)
      space_->reduce(dtype_, op_, o.dst, o.a, o.b, o.count);
    else if (o.dst != o.a)
      space_->copy(o.dst, o.a, o.count * dtype_size(dtype_));
    return;
  }
  if (o.kind == LocalOp::Kind::reduce)
    reduce(dtype_, op_, o.dst, o.a, o.b, o.count);
  else if (o.dst != o.a)
    std::memmove(o.dst, o.a, o.count * dtype_size(dtype_));
}

// Carries out the executor's decisions on a transport.
struct BoundSchedule::Executing {
  const BoundSchedule& s;
  Transport& t;
  int reported = -1;
  Ticket start(FlowQueue q, std::size_t i) {
    return q == FlowQueue::sends ? t.start_send(s.sends_[i]) : s.start_recv(t, i);
  }
  void op(std::size_t i) { s.run_op(s.ops_[i]); }
  void wait_all(std::span<const Ticket> tickets, int step) {
    report(step);
    t.wait_all(tickets);
  }
  bool wait_some(std::span<const Ticket> tickets, std::vector<std::size_t>& done, int step) {
    report(step);
    t.wait_some(tickets, done);
    return true;
  }
  // The watchdog names the earliest step with work left.
  void report(int step) {
    if (step != reported) progress::set_step(reported = step, static_cast<int>(s.steps_), s.peers_of(step));
  }
};

// Records the decisions as a program; tickets are transfer slots (sends, then receives).
struct BoundSchedule::Recording {
  BoundSchedule& s;
  Ticket start(FlowQueue q, std::size_t i) {
    const bool send = q == FlowQueue::sends;
    s.program_.push_back({send ? Action::Kind::send : Action::Kind::recv, static_cast<std::uint32_t>(i)});
    return static_cast<Ticket>(send ? i : s.sends_.size() + i);
  }
  void op(std::size_t i) { s.program_.push_back({Action::Kind::op, static_cast<std::uint32_t>(i)}); }
  void wait_all(std::span<const Ticket> tickets, int step) {
    const std::size_t first = s.slots_.size();
    for (Ticket t : tickets) s.slots_.push_back(static_cast<std::uint32_t>(t));
    s.program_.push_back({Action::Kind::wait, static_cast<std::uint32_t>(s.waits_.size())});
    s.waits_.push_back({first, s.slots_.size(), step});
  }
  bool wait_some(std::span<const Ticket>, std::vector<std::size_t>&, int) { return false; }
};

void BoundSchedule::precompile() {
  Recording r{*this};
  if (drive(r)) {
    slot_tickets_.assign(sends_.size() + recvs_.size(), -1);
    return;
  }
  program_.clear();
  waits_.clear();
  slots_.clear();
}

void BoundSchedule::run(Transport& transport) const {
  if (precompiled())
    run_program(transport);
  else
    run_dynamic(transport);
  if (space_) space_->synchronize();
}

void BoundSchedule::run_program(Transport& transport) const {
  int reported = -1;
  const std::size_t first_recv = sends_.size();
  for (const Action& a : program_) {
    switch (a.kind) {
      case Action::Kind::send: slot_tickets_[a.index] = transport.start_send(sends_[a.index]); break;
      case Action::Kind::recv: slot_tickets_[first_recv + a.index] = start_recv(transport, a.index); break;
      case Action::Kind::op: run_op(ops_[a.index]); break;
      case Action::Kind::wait: {
        const Wait& w = waits_[a.index];
        wait_tickets_.clear();
        for (std::size_t k = w.first; k < w.last; ++k) wait_tickets_.push_back(slot_tickets_[slots_[k]]);
        if (w.step != reported) progress::set_step(reported = w.step, static_cast<int>(steps_), peers_of(w.step));
        transport.wait_all(wait_tickets_);
        break;
      }
    }
  }
}

void BoundSchedule::run_dynamic(Transport& transport) const {
  Executing e{*this, transport};
  drive(e);
}

template <class Driver>
void BoundSchedule::start_ready(Driver& d) const {
  constexpr FlowQueue kR = FlowQueue::recvs, kS = FlowQueue::sends, kO = FlowQueue::ops;
  FlowProgress& p = progress_;
  InFlight& f = in_flight_;
  // An operation may free more transfers, so go round until nothing moves.
  for (bool moved = true; moved;) {
    moved = false;
    // Sends first: the peer waits for them, while a receive posted a moment later
    // still matches (a short message waits as unexpected, a long one for the receive).
    for (FlowQueue q : {kS, kR})
      for (; p.next_ready(plan_, q); p.start(q), moved = true) {
        const std::size_t i = p.started(q);
        f.tickets.push_back(d.start(q, i));
        f.items.push_back({q, i});
      }
    if (p.next_ready(plan_, kO)) {
      d.op(p.started(kO));
      p.start(kO);
      moved = true;
    }
  }
}

std::size_t BoundSchedule::earliest_open_step() const {
  std::size_t step = steps_;
  for (FlowQueue q : {FlowQueue::recvs, FlowQueue::sends, FlowQueue::ops})
    if (progress_.complete(q) < plan_.of(q).size()) step = std::min(step, plan_.of(q)[progress_.complete(q)].step);
  return step;
}

void BoundSchedule::choose_wait_set() const {
  collbench::choose_wait_set(plan_, progress_, in_flight_.items, in_flight_.subset);
}

void BoundSchedule::retire_done() const {
  InFlight& f = in_flight_;
  // Highest position first, so the others keep theirs.
  std::sort(f.done.begin(), f.done.end(), std::greater<>());
  for (std::size_t at : f.done) {
    progress_.complete_transfer(f.items[at].first, f.items[at].second);
    f.tickets[at] = f.tickets.back();
    f.tickets.pop_back();
    f.items[at] = f.items.back();
    f.items.pop_back();
  }
}

// Start what is ready; wait for a set known in advance where one is safe (or for
// whichever completes first); retire what completed; until every item has run.
template <class Driver>
bool BoundSchedule::drive(Driver& d) const {
  InFlight& f = in_flight_;
  progress_.reset();
  f.tickets.clear();
  f.items.clear();
  for (;;) {
    start_ready(d);
    if (f.tickets.empty()) {
      if (progress_.finished()) return true;
      throw std::logic_error("schedule executor stalled: nothing in flight and nothing ready");
    }
    const int step = static_cast<int>(earliest_open_step());
    f.done.clear();
    choose_wait_set();
    if (!f.subset.empty()) {
      f.subset_tickets.clear();
      for (std::size_t i : f.subset) f.subset_tickets.push_back(f.tickets[i]);
      d.wait_all(f.subset_tickets, step);
      f.done = f.subset;
    } else if (!d.wait_some(f.tickets, f.done, step)) {
      return false;
    }
    retire_done();
  }
}

}  // namespace collbench
