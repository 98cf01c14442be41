#include "collectives/cost_model/cost_simulator.hpp"

#include "collectives/schedule/dataflow.hpp"
#include "collectives/schedule/written_spans.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <memory_resource>
#include <queue>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>

namespace collbench {
namespace {

// What a message or operation of `bytes` costs: alpha at the size itself, and the bytes
// at the per-byte rate measured where the measurement touched as much memory as this
// call does (`footprint_equivalent` bytes).
struct Charge {
  double alpha_us = 0, bytes_us = 0;
};
Charge charge(const Piecewise& cost, double bytes, double footprint_equivalent) {
  if (bytes <= 0) return {};
  return {cost.at(bytes).alpha_us, bytes * cost.at(std::max(bytes, footprint_equivalent)).us_per_byte};
}

struct Posted {
  double at = 0;
  std::size_t bytes = 0;
  std::uint32_t item = 0;  // its position in the poster's receive or send queue
  bool both_ways = false;  // the poster's step sends and receives
  bool written = false;    // a send of bytes the poster writes in the call
  bool rewrites = false;   // a receive into bytes the poster sends to a peer on its host
};

// Sends or receives of one (sender, receiver) pair waiting for their match, oldest
// first: a channel never holds both, since a post matches whatever waits on the other
// side. Waiting posts come from one pool, so posting allocates nothing once it has grown.
class Channels {
 public:
  static constexpr std::uint32_t kNone = ~0u;
  struct Channel {
    int from = 0, to = 0;  // simulated sender and receiver
    bool local = true;
    bool sends = false;  // what waits
    std::uint32_t head = kNone, tail = kNone;
  };

  std::uint32_t add(int from, int to, bool local) {
    channels_.push_back({from, to, local});
    return static_cast<std::uint32_t>(channels_.size() - 1);
  }
  Channel& operator[](std::uint32_t i) { return channels_[i]; }
  bool empty(const Channel& c) const { return c.head == kNone; }
  const Posted& front(const Channel& c) const { return nodes_[c.head].posted; }
  void push(Channel& c, const Posted& p) {
    std::uint32_t n = free_;
    if (n == kNone)
      n = static_cast<std::uint32_t>(nodes_.size()), nodes_.emplace_back();
    else
      free_ = nodes_[n].next;
    nodes_[n] = {p, kNone};
    if (c.head == kNone)
      c.head = n;
    else
      nodes_[c.tail].next = n;
    c.tail = n;
  }
  void pop(Channel& c) {
    const std::uint32_t n = c.head;
    c.head = nodes_[n].next;
    nodes_[n].next = free_, free_ = n;
  }

 private:
  struct Node {
    Posted posted;
    std::uint32_t next = kNone;
  };
  std::vector<Channel> channels_;
  std::vector<Node> nodes_;
  std::uint32_t free_ = kNone;
};

// A matched message ready to go (start), or one completing at both its ends (done).
struct SimMessage {
  int from = 0, to = 0;  // simulated sender and receiver
  std::size_t bytes = 0;
  std::uint32_t send_item = 0, recv_item = 0;
  bool local = true, both_ways = false, written = false, rewrites = false;
  std::uint32_t flow = 0, version = 0;  // with shared ports: its flow, and which of its end times
};

// Events in time order, ties by `order`, then in the order they were made. The heap holds
// only the keys; messages wait in a pool, which keeps the heap small enough for the cache.
class Events {
 public:
  enum class Kind : std::uint8_t { start, done, flow_end, begin };
  struct Key {
    double time;
    std::uint64_t order;  // ties: lower first
    std::uint64_t seq;    // the order made (ties go first-made first), then the kind in bits 0-1
    std::uint32_t slot;   // the message's place in the pool
    bool operator>(const Key& o) const {
      if (time != o.time) return time > o.time;
      return order != o.order ? order > o.order : seq > o.seq;
    }
  };
  void push(double time, Kind kind, const SimMessage& m, std::uint64_t order = 0) {
    std::uint32_t i;
    if (free_.empty())
      i = static_cast<std::uint32_t>(pool_.size()), pool_.push_back(m);
    else
      i = free_.back(), free_.pop_back(), pool_[i] = m;
    heap_.push({time, order, seq_++ << 2 | static_cast<std::uint64_t>(kind), i});
  }
  bool empty() const { return heap_.empty(); }
  // Whether the next event is of `kind` at `time`.
  bool next_is(double time, Kind kind) const {
    return !heap_.empty() && heap_.top().time == time && static_cast<Kind>(heap_.top().seq & 3) == kind;
  }
  std::tuple<double, Kind, SimMessage> pop() {
    const Key k = heap_.top();
    heap_.pop();
    free_.push_back(k.slot);
    return {k.time, static_cast<Kind>(k.seq & 3), pool_[k.slot]};
  }

 private:
  std::priority_queue<Key, std::vector<Key>, std::greater<>> heap_;
  std::vector<SimMessage> pool_;
  std::vector<std::uint32_t> free_;
  std::uint64_t seq_ = 0;
};

struct TransferItem {
  std::size_t bytes = 0;
  int peer = 0;
  std::uint32_t channel = 0;
  bool both_ways = false;
  bool written = false;   // a send of bytes this rank receives or computes in the call
  bool rewrites = false;  // a receive into bytes this rank sends to a peer on its host
};

// A rank's earlier phase, simulated apart: the trace of the rank that mirrors it there,
// and of that rank's host's links (none where ranks share one host).
struct EarlierPhase {
  const RankTrace* rank = nullptr;
  const PortTrace* host_out = nullptr;
  const PortTrace* host_in = nullptr;
};

struct OpItem {
  double bytes = 0;
  bool reduce = false;
  bool rewrites_sent = false;  // its result lands in bytes the rank sends to a peer on its host
  double us = 0;               // charged when the run starts, the call's footprint known
};

// One rank as the executor runs it: every transfer and operation of the schedule in its
// plan's order (dataflow, or step by step), operations one at a time on its core.
struct RankState {
  explicit RankState(std::pmr::memory_resource* arena)
      : recvs(arena), sends(arena), ops(arena), inbound(arena), core_waiting(arena) {}
  DataflowPlan plan;
  FlowProgress progress;
  std::pmr::vector<TransferItem> recvs, sends;
  std::pmr::vector<OpItem> ops;
  std::pmr::vector<std::pair<std::uint64_t, std::uint32_t>> inbound;  // channels it receives on, by key
  double start = 0;                                                   // when it may start its first item
  double time = 0;  // when the rank's executor has done all it could so far; its finish once done
  // When the core is free of operations and of copying messages in (receiver_copies):
  // infinite while a shared-port message is being copied, its end not yet known.
  double core_free = 0, core_taken_at = -1;
  std::pmr::deque<SimMessage> core_waiting;  // shared ports: messages waiting for that copy to end
  // Where the simulation waits as the executor does (Simulation::waits_): the transfers
  // it has started and not yet learnt complete, and whether the transport has completed
  // each; what it waits for (a set, all of which must complete, with how many are still
  // open; or whichever completes first), or nothing (running, or done).
  std::vector<FlowRef> in_flight;
  std::vector<char> completed;
  enum class Wait : std::uint8_t { none, all, any } wait = Wait::none;
  std::vector<FlowRef> wait_set;
  std::size_t wait_open = 0;
  // An earlier phase simulated apart (CostSimulation::add with a mirror): its transfers
  // (the first `forced` of each queue) are not posted; the last completion it learnt.
  int mirror = -1;
  EarlierPhase earlier;
  std::array<std::size_t, 2> forced{};
  double earlier_end = -std::numeric_limits<double>::infinity();
};

// One rank's completion of one transfer, learnt at some instant.
struct DoneItem {
  FlowQueue queue;
  std::uint32_t item;
  int rank;
};

}  // namespace

// RankState::core_free while a shared-port copy holds the core.
constexpr double kCopying = std::numeric_limits<double>::infinity();

class CostSimulation::Simulation {
 public:
  Simulation(int n, const Symmetry& sym, const CostParams& p, const CostLayout& l)
      : sym_(sym),
        p_(p),
        l_(l),
        n_(n),
        simulated_(sym.kind == Symmetry::Kind::none ? n : sym.block),
        waits_(p.interleaves_pairs()) {
    ranks_.reserve(static_cast<std::size_t>(simulated_));
  }

  void add(const Schedule& s, DataflowPlan* plan, double start_us, const Schedule* earlier, const Schedule* later) {
    if (ranks_.size() == static_cast<std::size_t>(simulated_))
      throw std::invalid_argument("cost simulation: more schedules than the " + std::to_string(simulated_) +
                                  " simulated ranks");
    prepare(ranks_.emplace_back(&arena_), s, plan, earlier, later);
    ranks_.back().start = start_us;
  }

  void add(const Schedule& whole, DataflowPlan* plan, int mirror) {
    add(whole, plan, 0, nullptr, nullptr);
    ranks_.back().mirror = mirror;
    has_earlier_ = true;
  }

  // Each rank added with a mirror follows that rank of `earlier`, its first phase.
  void follow(const CostResult* earlier) {
    if (!has_earlier_) return;
    if (!earlier || earlier->ranks.empty())
      throw std::invalid_argument("cost simulation: ranks follow an earlier phase, and none traced was given");
    for (RankState& st : ranks_) {
      if (st.mirror < 0) continue;
      const auto m = static_cast<std::size_t>(st.mirror);
      if (m >= earlier->ranks.size())
        throw std::invalid_argument("cost simulation: mirror " + std::to_string(st.mirror) + " was not simulated");
      st.earlier.rank = &earlier->ranks[m];
      if (!l_.node_of_rank.empty()) {
        const auto h = static_cast<std::size_t>(l_.node_of_rank[m]);
        st.earlier.host_out = &earlier->host_out[h], st.earlier.host_in = &earlier->host_in[h];
      }
      for (std::size_t q = 0; q < 2; ++q) st.forced[q] = st.earlier.rank->done[q].size();
    }
  }

  CostResult run(const CostResult* earlier) {
    follow(earlier);
    if (ranks_.size() != static_cast<std::size_t>(simulated_))
      throw std::invalid_argument("cost simulation: " + std::to_string(ranks_.size()) + " schedules for " +
                                  std::to_string(simulated_) + " simulated ranks");
    hosts_ = hosts();
    canonical_ = !p_.shared_ports;
    local_ = places_on_hosts(l_, simulated_);
    egress_.assign(ranks_.size(), {}), ingress_.assign(ranks_.size(), {});
    host_egress_.assign(hosts_, {}), host_ingress_.assign(hosts_, {});
    host_out_busy_.assign(hosts_, 0), host_in_busy_.assign(hosts_, 0);
    port_flows_.assign(2 * (ranks_.size() + hosts_) + ranks_.size(), {});
    if (trace_) {
      traces_.assign(ranks_.size(), {});
      for (std::size_t r = 0; r < ranks_.size(); ++r)
        for (std::size_t q = 0; q < kFlowQueues; ++q) {
          const std::size_t items = ranks_[r].plan.items[q].size();
          traces_[r].done[q].assign(items, 0);
          if (every_hold_ && q < 2) traces_[r].posted[q].assign(items, 0);
        }
      host_traces_[0].assign(hosts_, {}), host_traces_[1].assign(hosts_, {});
      flow_port_free_.assign(port_flows_.size(), 0);
    }
    for (RankState& st : ranks_)
      for (OpItem& op : st.ops) {
        // A rewrite is priced as p2p measured it, a pair on one host (4x its bytes).
        const Charge c = op.rewrites_sent
                             ? charge(p_.intra.rewrite, op.bytes, l_.host_footprint_bytes / 4)
                             : charge(op.reduce ? p_.reduce : p_.copy, op.bytes, l_.host_footprint_bytes / 3);
        op.us = c.alpha_us + c.bytes_us;
      }
    // Every transfer finds its channel now, receives first, so that posting looks
    // nothing up (the hot path of a simulation of millions of messages).
    for (int r = 0; r < simulated_; ++r) open_inbound(r);
    for (int r = 0; r < simulated_; ++r) attach_sends(r);
    // An executor that waits as the real one does (waits_), ports shared or receivers'
    // cores copying would change how a later phase meets an earlier one traced apart.
    if (has_earlier_ && (waits_ || p_.shared_ports || p_.intra.receiver_copies || p_.inter.receiver_copies))
      apart_ = false;
    for (int r = 0; r < simulated_; ++r)
      if (waits_)
        run_executor(r, ranks_[static_cast<std::size_t>(r)].start);
      else if (ranks_[static_cast<std::size_t>(r)].earlier.rank)
        replay(r);
      else
        advance(r, ranks_[static_cast<std::size_t>(r)].start);
    while (!events_.empty()) {
      const auto [time, kind, m] = events_.pop();
      if (kind == Events::Kind::start) {
        if (p_.shared_ports)
          deliver_shared(time, m);
        else
          deliver(time, m);
      } else if (kind == Events::Kind::flow_end) {
        end_flow(time, m);
      } else if (kind == Events::Kind::begin) {
        begin_flow(time, m);
      } else if (!canonical_) {
        // Sender first, then receiver: both learn of the completion at once.
        complete(m.from, FlowQueue::sends, m.send_item, time);
        complete(m.to, FlowQueue::recvs, m.recv_item, time);
      } else {
        complete_all_at(time, m);
      }
    }
    CostResult out;
    out.messages = delivered_;
    for (int r = 0; r < simulated_; ++r) {
      const RankState& st = ranks_[static_cast<std::size_t>(r)];
      if (!st.progress.finished())
        throw std::runtime_error("cost simulation: rank " + std::to_string(r) +
                                 " cannot finish (a transfer has no match)");
      out.finish_us.push_back(st.time);
      out.time_us = std::max(out.time_us, st.time);
    }
    out.host_out_busy_us = host_out_busy_, out.host_in_busy_us = host_in_busy_;
    out.ties_ordered = ties_ordered_;
    out.phases_apart = apart_;
    if (trace_) finish_traces(out);
    return out;
  }

  CostLayout& layout() { return l_; }
  void trace(bool every_hold) { trace_ = true, every_hold_ = every_hold; }

 private:
  void prepare(RankState& st, const Schedule& s, DataflowPlan* plan, const Schedule* earlier, const Schedule* later) {
    st.plan = plan ? std::move(*plan) : plan_execution(s, BufferLayout{}, l_.order);
    st.progress = FlowProgress(st.plan);
    // Sized once: the arena never reuses what a growing vector leaves behind.
    st.recvs.reserve(st.plan.of(FlowQueue::recvs).size());
    st.sends.reserve(st.plan.of(FlowQueue::sends).size());
    st.ops.reserve(st.plan.of(FlowQueue::ops).size());
    // Which sends carry bytes this rank writes in the call: earlier in it, or later (the
    // previous of back-to-back calls left them in the sender's cache, where they fit:
    // the written test prices that per size). Only worth the bookkeeping where the model
    // prices them apart.
    const bool track = p_.prices_written();
    WrittenSpans written;
    if (track)
      for (const Schedule* part : {earlier, &s, later})
        if (part)
          for (const Step& x : part->steps) written.add(x);
    // What this rank sends to peers on its host anywhere in the call (back-to-back calls
    // repeat it): an operation storing there rewrites lines a peer's core has read.
    WrittenSpans sent_here;
    if (p_.prices_rewrite()) {
      const int me = static_cast<int>(ranks_.size()) - 1;
      for (const Schedule* part : {earlier, &s, later})
        if (part)
          for (const Step& x : part->steps)
            for (const Transfer& t : x.sends)
              if (same_node(me, t.peer)) sent_here.add(t.region);
    }
    for (const Step& x : s.steps) {
      const bool both = !x.sends.empty() && !x.recvs.empty();
      for (const Transfer& t : x.recvs)
        st.recvs.push_back({t.region.count * l_.element_size, t.peer, 0, both, false, sent_here.overlaps(t.region)});
      for (const Transfer& t : x.sends)
        st.sends.push_back({t.region.count * l_.element_size, t.peer, 0, both, track && written.overlaps(t.region)});
      for (const LocalOp& op : x.ops)
        st.ops.push_back({static_cast<double>(op.dst.count * l_.element_size), op.kind == LocalOp::Kind::reduce,
                          sent_here.overlaps(op.dst)});
    }
  }

  // Ties where ports are not shared (tie_order): done events first, then starts.
  std::uint64_t start_order(const SimMessage& m) const {
    return tie_order(local_[static_cast<std::size_t>(m.from)], m.send_item, local_[static_cast<std::size_t>(m.to)],
                     m.recv_item);
  }

  void complete_all_at(double time, const SimMessage& first) {
    std::vector<DoneItem>& batch = done_batch_;
    batch.clear();
    auto add = [&](const SimMessage& m) {
      batch.push_back({FlowQueue::sends, m.send_item, m.from});
      batch.push_back({FlowQueue::recvs, m.recv_item, m.to});
    };
    add(first);
    while (events_.next_is(time, Events::Kind::done)) add(std::get<2>(events_.pop()));
    std::sort(batch.begin(), batch.end(), [](const DoneItem& a, const DoneItem& b) {
      return std::tie(a.queue, a.item, a.rank) < std::tie(b.queue, b.item, b.rank);
    });
    for (const DoneItem& d : batch) complete(d.rank, d.queue, d.item, time);
  }

  void complete(int r, FlowQueue q, std::size_t item, double t) {
    RankState& st = ranks_[static_cast<std::size_t>(r)];
    if (trace_) {
      traces_[static_cast<std::size_t>(r)].done[static_cast<std::size_t>(q)][item] = t;
      if (every_hold_) traces_[static_cast<std::size_t>(r)].learned.push_back({q, static_cast<std::uint32_t>(item), t});
    }
    // The earlier phase was replayed as if nothing later completed before it ended.
    if (t <= st.earlier_end) apart_ = false;
    if (waits_) return transport_completed(r, {q, item}, t);
    st.progress.complete_transfer(q, item);
    advance(r, std::max(t, st.time));
  }

  // A rank whose earlier phase was simulated apart: its executor from the completions
  // that phase's trace learnt, in the same order (the later phase's items it posts meanwhile
  // go out as they would).
  void replay(int r) {
    RankState& st = ranks_[static_cast<std::size_t>(r)];
    advance(r, st.start);
    for (const RankTrace::Learned& c : st.earlier.rank->learned) {
      st.progress.complete_transfer(c.queue, c.item);
      advance(r, std::max(c.at, st.time));
      st.earlier_end = c.at;
    }
  }

  // The executor learns of a completion only when a wait returns it: a set waited for
  // all of returns when its last member completes, "whichever first" with every member
  // complete by then (MPI_Waitsome).
  void transport_completed(int r, FlowRef ref, double t) {
    RankState& st = ranks_[static_cast<std::size_t>(r)];
    st.completed[static_cast<std::size_t>(std::find(st.in_flight.begin(), st.in_flight.end(), ref) -
                                          st.in_flight.begin())] = 1;
    if (st.wait == RankState::Wait::all &&
        (std::find(st.wait_set.begin(), st.wait_set.end(), ref) == st.wait_set.end() || --st.wait_open))
      return;
    if (st.wait == RankState::Wait::none) return;  // running an operation; it looks when done
    learn(st);
    run_executor(r, std::max(t, st.time));
  }

  void learn(RankState& st) {
    for (std::size_t i = st.in_flight.size(); i-- > 0;)
      if (st.completed[i] && (st.wait == RankState::Wait::any || std::find(st.wait_set.begin(), st.wait_set.end(),
                                                                           st.in_flight[i]) != st.wait_set.end())) {
        st.progress.complete_transfer(st.in_flight[i].first, st.in_flight[i].second);
        st.in_flight.erase(st.in_flight.begin() + static_cast<std::ptrdiff_t>(i));
        st.completed.erase(st.completed.begin() + static_cast<std::ptrdiff_t>(i));
      }
    st.wait = RankState::Wait::none;
  }

  // The executor from time t: start what it knows is ready, then wait (choose_wait_set),
  // again while the wait returns at once, until it must wait for the transport. Not
  // while an operation waits for the core a copy holds: the copy's end comes back here.
  void run_executor(int r, double t) {
    RankState& st = ranks_[static_cast<std::size_t>(r)];
    for (;;) {
      advance(r, t);
      t = st.time;
      if (st.in_flight.empty() || (st.core_free == kCopying && st.progress.next_ready(st.plan, FlowQueue::ops))) return;
      choose_wait_set(st.plan, st.progress, st.in_flight, wait_positions_);
      st.wait_set.clear();
      st.wait_open = 0;
      bool any_done = false;
      for (std::size_t i : wait_positions_) {
        st.wait_set.push_back(st.in_flight[i]);
        st.wait_open += !st.completed[i];
      }
      for (char c : st.completed) any_done |= c != 0;
      st.wait = st.wait_set.empty() ? RankState::Wait::any : RankState::Wait::all;
      if (st.wait == RankState::Wait::all ? st.wait_open > 0 : !any_done) return;
      learn(st);
    }
  }

  std::size_t hosts() const {
    int h = 0;
    for (int r = 0; r < simulated_ && !l_.node_of_rank.empty(); ++r)
      h = std::max(h, l_.node_of_rank[static_cast<std::size_t>(r)] + 1);
    return static_cast<std::size_t>(h);
  }

  bool same_node(int a, int b) const {
    return l_.node_of_rank.empty() ||
           l_.node_of_rank[static_cast<std::size_t>(a)] == l_.node_of_rank[static_cast<std::size_t>(b)];
  }

  // A transfer between simulated rank `me` and real rank `peer` belongs to the channel
  // its receiver (simulated) knows by (sender class, the receiver's block seen from the
  // sender's): with a symmetry, a message to another block stands for the one its
  // mirror receives.
  std::pair<int, std::uint64_t> channel_at_receiver(int me, int peer, bool send) const {
    int cls = peer, h = 0;
    if (sym_.kind != Symmetry::Kind::none) {
      cls = peer % sym_.block;
      h = peer / sym_.block;
      if (!send && sym_.kind == Symmetry::Kind::shift) h = (n_ / sym_.block - h) % (n_ / sym_.block);
    }
    return {send ? cls : me, static_cast<std::uint64_t>(send ? me : cls) << 32 | static_cast<std::uint64_t>(h)};
  }

  // An earlier phase's transfers, traced apart, are never posted: no channel.
  void open_inbound(int r) {
    RankState& st = ranks_[static_cast<std::size_t>(r)];
    const auto recvs = std::span(st.recvs).subspan(st.forced[static_cast<std::size_t>(FlowQueue::recvs)]);
    st.inbound.reserve(recvs.size());
    for (const TransferItem& t : recvs) st.inbound.emplace_back(channel_at_receiver(r, t.peer, false).second, 0);
    std::sort(st.inbound.begin(), st.inbound.end());
    st.inbound.erase(std::unique(st.inbound.begin(), st.inbound.end()), st.inbound.end());
    for (auto& [key, id] : st.inbound) {
      const int from = static_cast<int>(key >> 32);
      id = channels_.add(from, r, same_node(r, sym_.kind == Symmetry::Kind::none ? from : real_sender(key)));
    }
    for (TransferItem& t : recvs) t.channel = find(st, channel_at_receiver(r, t.peer, false).second);
  }

  void attach_sends(int r) {
    RankState& st = ranks_[static_cast<std::size_t>(r)];
    for (TransferItem& t : std::span(st.sends).subspan(st.forced[static_cast<std::size_t>(FlowQueue::sends)])) {
      const auto [to, key] = channel_at_receiver(r, t.peer, true);
      t.channel = find(ranks_[static_cast<std::size_t>(to)], key);
      // Nobody receives it: a channel of its own, never matched, so the rank cannot finish.
      if (t.channel == Channels::kNone) t.channel = channels_.add(r, to, true);
    }
  }

  static std::uint32_t find(const RankState& st, std::uint64_t key) {
    auto it = std::lower_bound(st.inbound.begin(), st.inbound.end(), std::make_pair(key, 0u));
    return it != st.inbound.end() && it->first == key ? it->second : Channels::kNone;
  }

  // The real rank that sends on a receiver's channel of `key`.
  int real_sender(std::uint64_t key) const {
    const int cls = static_cast<int>(key >> 32), h = static_cast<int>(key & 0xffffffffu);
    if (sym_.kind == Symmetry::Kind::xor_blocks) return cls + h * sym_.block;
    return cls + ((n_ / sym_.block - h) % (n_ / sym_.block)) * sym_.block;
  }

  // What the executor does from time t until it has to wait for a transfer: start every
  // transfer its plan allows, run the next operation allowed, and again.
  void advance(int r, double t) {
    RankState& st = ranks_[static_cast<std::size_t>(r)];
    for (bool again = true; again;) {
      again = false;
      for (FlowQueue q : {FlowQueue::recvs, FlowQueue::sends})
        while (st.progress.next_ready(st.plan, q)) {
          const std::size_t i = st.progress.started(q);
          const TransferItem& x = (q == FlowQueue::sends ? st.sends : st.recvs)[i];
          st.progress.start(q);
          if (i < st.forced[static_cast<std::size_t>(q)]) {  // earlier phase: must go when it went there
            if (t != st.earlier.rank->posted[static_cast<std::size_t>(q)][i]) apart_ = false;
            continue;
          }
          if (waits_) st.in_flight.emplace_back(q, i), st.completed.push_back(0);
          if (trace_) {
            RankTrace& tr = traces_[static_cast<std::size_t>(r)];
            tr.last_posted[static_cast<std::size_t>(q)] = t;
            if (every_hold_) tr.posted[static_cast<std::size_t>(q)][i] = t;
          }
          post(x.channel, {t, x.bytes, static_cast<std::uint32_t>(i), x.both_ways, x.written, x.rewrites},
               q == FlowQueue::sends);
        }
      // An operation waits for the core; while a shared-port copy holds it for a time not
      // yet known, the copy's end comes back here.
      if (st.core_free != kCopying && st.progress.next_ready(st.plan, FlowQueue::ops)) {
        if (st.core_free > t && st.core_taken_at == t) ties_ordered_ = true;
        t = std::max(t, st.core_free);
        st.core_taken_at = t;
        if (trace_) {
          RankTrace& tr = traces_[static_cast<std::size_t>(r)];
          const std::size_t i = st.progress.started(FlowQueue::ops);
          tr.last_posted[static_cast<std::size_t>(FlowQueue::ops)] = t;
          tr.done[static_cast<std::size_t>(FlowQueue::ops)][i] = t + st.ops[i].us;
          tr.core.take(t, 0);
        }
        t += st.ops[st.progress.started(FlowQueue::ops)].us;
        st.core_free = t;
        st.progress.start(FlowQueue::ops);
        again = true;
      }
    }
    st.time = t;
  }

  void post(std::uint32_t channel, const Posted& posted, bool send) {
    Channels::Channel& ch = channels_[channel];
    if (channels_.empty(ch) || ch.sends == send) {
      channels_.push(ch, posted);
      ch.sends = send;
      return;
    }
    const Posted other = channels_.front(ch);
    channels_.pop(ch);
    const Posted &a = send ? posted : other, &b = send ? other : posted;
    if (a.bytes != b.bytes)
      throw std::runtime_error("cost simulation: rank " + std::to_string(ch.from) + " sends " +
                               std::to_string(a.bytes) + " bytes where rank " + std::to_string(ch.to) + " receives " +
                               std::to_string(b.bytes));
    const SimMessage m{ch.from,
                       ch.to,
                       a.bytes,
                       a.item,
                       b.item,
                       ch.local,
                       a.both_ways || b.both_ways,
                       a.written,
                       ch.local && b.rewrites};
    events_.push(std::max(a.at, b.at), Events::Kind::start, m, canonical_ ? start_order(m) : 0);
  }

  MessageCost message_charge(const SimMessage& m) const {
    return message_cost(p_, l_, m.local, m.bytes, m.both_ways, m.written, m.rewrites);
  }

  // A message holds the sender's way out and the receiver's way in; between hosts,
  // their links too. Both ends learn of its completion then.
  void deliver(double time, const SimMessage& m) {
    const MessageCost c = message_charge(m);
    const double port = c.port_us;
    const auto from = static_cast<std::size_t>(m.from), to = static_cast<std::size_t>(m.to);
    Port& out = egress_[from];
    Port& in = ingress_[to];
    double start = std::max({time, out.free, in.free});
    RankState* copier = copier_of(m);
    if (copier) {
      if (copier->core_free > time && copier->core_taken_at == time) ties_ordered_ = true;
      start = std::max(start, copier->core_free);
    }
    Port *hout = nullptr, *hin = nullptr;
    if (!m.local) {
      // Every block's hosts mirror block 0's: the receiver's host link behaves as its
      // representative's.
      hout = &host_egress_[static_cast<std::size_t>(l_.node_of_rank[from])];
      hin = &host_ingress_[static_cast<std::size_t>(l_.node_of_rank[to])];
      start = std::max({start, hout->free, hin->free});
    }
    if (has_earlier_) start = after_earlier(time, m, start, port);
    // The copy is booked once every wait above is known: the core copies as the bytes come in.
    if (copier) {
      copier->core_free = start + port;
      copier->core_taken_at = time;
    }
    if (hout) note_host_busy(m, start + port);
    for (Port* x : {&out, &in, hout, hin})
      if (x) {
        if (x->free > time && x->taken_at == time) ties_ordered_ = true;
        *x = {start + port, time};
      }
    if (trace_) trace_taken(time, m, copier != nullptr);
    if (every_hold_) trace_holds(m, {time, start, start + port});
    ++delivered_;
    events_.push(start + c.alpha_us + port, Events::Kind::done, m);
  }

  // With earlier phases traced apart: the ports a message takes (its sender's way out, its
  // receiver's way in, their hosts' links) as the earlier phase held them. It waits for
  // the earlier messages matched before it and must end before those matched after it
  // start, else the later phase would have delayed the earlier one.
  double after_earlier(double time, const SimMessage& m, double start, double port) {
    const EarlierPhase &a = ranks_[static_cast<std::size_t>(m.from)].earlier,
                       &b = ranks_[static_cast<std::size_t>(m.to)].earlier;
    const PortTrace* ports[4] = {a.rank ? &a.rank->out : nullptr, b.rank ? &b.rank->in : nullptr,
                                 m.local ? nullptr : a.host_out, m.local ? nullptr : b.host_in};
    auto first_after = [time](const PortTrace& t) {
      return std::lower_bound(t.holds.begin(), t.holds.end(), time,
                              [](const PortHold& h, double at) { return h.matched < at; });
    };
    for (const PortTrace* t : ports)
      if (t) {
        auto it = first_after(*t);
        if (it != t->holds.end() && it->matched == time) apart_ = false;  // which went first is not known
        if (it != t->holds.begin()) start = std::max(start, std::prev(it)->end);
      }
    for (const PortTrace* t : ports)
      if (t)
        if (auto it = first_after(*t); it != t->holds.end() && it->start < start + port) apart_ = false;
    return start;
  }

  void trace_holds(const SimMessage& m, const PortHold& h) {
    traces_[static_cast<std::size_t>(m.from)].out.holds.push_back(h);
    traces_[static_cast<std::size_t>(m.to)].in.holds.push_back(h);
    if (!m.local) {
      host_traces_[0][static_cast<std::size_t>(l_.node_of_rank[static_cast<std::size_t>(m.from)])].holds.push_back(h);
      host_traces_[1][static_cast<std::size_t>(l_.node_of_rank[static_cast<std::size_t>(m.to)])].holds.push_back(h);
    }
  }

  // The rank whose core copies the message, where its link says so.
  RankState* copier_of(const SimMessage& m) {
    return (m.local ? p_.intra : p_.inter).receiver_copies ? &ranks_[static_cast<std::size_t>(m.to)] : nullptr;
  }

  void note_host_busy(const SimMessage& m, double until) {
    for (auto [r, busy] : {std::pair{m.from, &host_out_busy_}, std::pair{m.to, &host_in_busy_}}) {
      double& b = (*busy)[static_cast<std::size_t>(l_.node_of_rank[static_cast<std::size_t>(r)])];
      b = std::max(b, until);
    }
  }

  // Shared ports: a message crossing its ports at a share of their bandwidth. Ports are
  // numbered: ranks' ways out, ranks' ways in, hosts' ways out, hosts' ways in.
  // With shared ports a message is priced both ways (the link's exchange cost) while its
  // sender also receives or its receiver also sends, as it happens, not as its step
  // says: in dataflow order a step's send and receive need not overlap (a scatter's
  // forwarding send starts once its block has arrived).
  struct Flow {
    SimMessage m;
    double left_us = 0;  // port time still to go at the full rate, one way
    double rate = 0;     // the share it moves at, slowed while both ways
    double since = 0;    // when left_us was last brought up to date
    double alpha_us = 0, both_alpha_us = 0;
    double both_speed = 1;  // one way's port time over both ways'
    bool both = false, ever_both = false;
    std::uint32_t version = 0, seen = 0;
    std::uint32_t ports[5] = {0, 0, 0, 0, 0};
    int port_count = 0;
  };
  struct Pair {
    bool busy = false;
    double last_arrival = -1;  // the time of the latest message matched
    std::deque<SimMessage> waiting;
  };

  Pair& pair_of(const SimMessage& m) {
    return pairs_[static_cast<std::uint64_t>(m.from) << 32 | static_cast<std::uint32_t>(m.to)];
  }

  // Whether the message shares its pair's bandwidth with the pair's other messages
  // rather than queueing behind them.
  bool interleaves(const SimMessage& m) const { return (m.local ? p_.intra : p_.inter).pair_shares(m.bytes); }

  void deliver_shared(double time, const SimMessage& m) {
    if (interleaves(m)) return begin_flow(time, m);
    Pair& pair = pair_of(m);
    if (pair.busy && pair.last_arrival == time) ties_ordered_ = true;
    pair.last_arrival = time;
    if (pair.busy) return pair.waiting.push_back(m);
    pair.busy = true;
    begin_flow(time, m);
  }

  // Shared ports: the receiving core as a port, which copies of messages its link
  // interleaves share (the core copies whichever message's bytes arrive).
  std::uint32_t core_port(int to) const {
    return static_cast<std::uint32_t>(2 * (ranks_.size() + hosts_) + static_cast<std::size_t>(to));
  }
  bool core_shared_by_others(const SimMessage& m) const { return !port_flows_[core_port(m.to)].empty(); }

  void begin_flow(double time, const SimMessage& m) {
    RankState* copier = copier_of(m);
    const bool joins = copier && interleaves(m) && core_shared_by_others(m);
    if (copier && !joins) {
      // Its copy waits for the receiver's core: until an operation's known end, or until
      // the copy holding it ends.
      if (copier->core_free == kCopying) return copier->core_waiting.push_back(m);
      if (copier->core_free > time) {
        if (copier->core_taken_at == time) ties_ordered_ = true;
        return events_.push(copier->core_free, Events::Kind::begin, m);
      }
      copier->core_free = kCopying;
      copier->core_taken_at = time;
    }
    const MessageCost c = message_cost(p_, l_, m.local, m.bytes, false, m.written, m.rewrites),
                      both = message_cost(p_, l_, m.local, m.bytes, true, m.written, m.rewrites);
    std::uint32_t id;
    if (free_flows_.empty())
      id = static_cast<std::uint32_t>(flows_.size()), flows_.emplace_back();
    else
      id = free_flows_.back(), free_flows_.pop_back();
    Flow& f = flows_[id];
    const std::uint32_t version = f.version + 1;
    f = Flow{};
    f.m = m, f.left_us = c.port_us, f.since = time, f.alpha_us = c.alpha_us, f.version = version;
    f.both_alpha_us = both.alpha_us;
    if (both.port_us > 0 && c.port_us > 0) f.both_speed = c.port_us / both.port_us;
    f.m.flow = id;
    const std::size_t n = ranks_.size(), h = hosts_;
    f.ports[f.port_count++] = static_cast<std::uint32_t>(m.from);
    f.ports[f.port_count++] = static_cast<std::uint32_t>(n + static_cast<std::size_t>(m.to));
    if (!m.local) {
      f.ports[f.port_count++] = static_cast<std::uint32_t>(
          2 * n + static_cast<std::size_t>(l_.node_of_rank[static_cast<std::size_t>(m.from)]));
      f.ports[f.port_count++] = static_cast<std::uint32_t>(
          2 * n + h + static_cast<std::size_t>(l_.node_of_rank[static_cast<std::size_t>(m.to)]));
    }
    if (copier && interleaves(m)) f.ports[f.port_count++] = core_port(m.to);
    for (int i = 0; i < f.port_count; ++i) port_flows_[f.ports[i]].push_back(id);
    ++delivered_;
    reshare(time, id);
  }

  // Whether a flow's sender is receiving or its receiver sending now.
  bool both_ways_now(const Flow& f) const {
    return !port_flows_[ranks_.size() + static_cast<std::size_t>(f.m.from)].empty() ||
           !port_flows_[static_cast<std::size_t>(f.m.to)].empty();
  }

  // Every flow through one of `id`'s ports moves at a new share from `time` on, and so
  // does every flow that `id` starting or ending turns both ways or back (those out of
  // its receiver and into its sender).
  void reshare(double time, std::uint32_t id) {
    const Flow changed = flows_[id];
    ++stamp_;
    auto update = [&](Flow& f) {
      f.seen = stamp_;
      f.left_us = std::max(0.0, f.left_us - (time - f.since) * f.rate);
      f.since = time;
      std::size_t crowd = 1;
      for (int j = 0; j < f.port_count; ++j) crowd = std::max(crowd, port_flows_[f.ports[j]].size());
      f.both = both_ways_now(f);
      f.ever_both = f.ever_both || f.both;
      f.rate = (f.both ? f.both_speed : 1.0) / static_cast<double>(crowd);
      f.m.version = ++f.version;
      events_.push(time + f.left_us / f.rate, Events::Kind::flow_end, f.m);
    };
    for (int i = 0; i < changed.port_count; ++i)
      for (std::uint32_t other : port_flows_[changed.ports[i]])
        if (flows_[other].seen != stamp_) update(flows_[other]);
    for (const std::size_t port :
         {static_cast<std::size_t>(changed.m.to), ranks_.size() + static_cast<std::size_t>(changed.m.from)})
      for (std::uint32_t other : port_flows_[port]) {
        Flow& f = flows_[other];
        if (f.seen == stamp_ || f.both == both_ways_now(f)) continue;
        if (f.both_speed == 1 && f.alpha_us == f.both_alpha_us) {
          f.both = !f.both;  // nothing it costs changes
          continue;
        }
        update(f);
      }
  }

  void end_flow(double time, const SimMessage& m) {
    Flow& f = flows_[m.flow];
    if (f.version != m.version) return;  // its share changed since this end was foreseen
    ++f.version;
    if (!f.m.local) note_host_busy(f.m, time);
    for (int i = 0; i < f.port_count; ++i) {
      if (trace_) flow_port_free_[f.ports[i]] = std::max(flow_port_free_[f.ports[i]], time);
      std::vector<std::uint32_t>& on = port_flows_[f.ports[i]];
      on.erase(std::find(on.begin(), on.end(), m.flow));
    }
    events_.push(time + (f.ever_both ? f.both_alpha_us : f.alpha_us), Events::Kind::done, f.m);
    reshare(time, m.flow);
    free_flows_.push_back(m.flow);
    if (RankState* copier = copier_of(m); copier && !(interleaves(m) && core_shared_by_others(m))) {
      copier->core_free = time;
      if (!copier->core_waiting.empty()) {
        // The next copy; with it, the messages after it that share the core with it.
        bool first = true;
        while (!copier->core_waiting.empty() && (first || (interleaves(copier->core_waiting.front()) &&
                                                           core_shared_by_others(copier->core_waiting.front())))) {
          const SimMessage next = copier->core_waiting.front();
          copier->core_waiting.pop_front();
          begin_flow(time, next);
          first = false;
        }
      } else if (!waits_) {
        advance(f.m.to, std::max(time, copier->time));
      } else if (copier->wait == RankState::Wait::none) {
        run_executor(f.m.to, std::max(time, copier->time));
      }
    }
    if (interleaves(m)) return;
    Pair& pair = pair_of(m);
    if (pair.waiting.empty()) {
      pair.busy = false;
    } else {
      const SimMessage next = pair.waiting.front();
      pair.waiting.pop_front();
      begin_flow(time, next);
    }
  }

  // A message took its ports (and the receiver's core where it copies) at `time`, one
  // after another (without shared ports).
  void trace_taken(double time, const SimMessage& m, bool copies) {
    const std::uint64_t by = canonical_ ? start_order(m) : 0;
    traces_[static_cast<std::size_t>(m.from)].out.take(time, by);
    traces_[static_cast<std::size_t>(m.to)].in.take(time, by);
    if (copies) traces_[static_cast<std::size_t>(m.to)].core.take(time, by);
    if (!m.local) {
      host_traces_[0][static_cast<std::size_t>(l_.node_of_rank[static_cast<std::size_t>(m.from)])].take(time, by);
      host_traces_[1][static_cast<std::size_t>(l_.node_of_rank[static_cast<std::size_t>(m.to)])].take(time, by);
    }
  }

  // When each port is free at the end: as the ports say, or with shared ports when the
  // last flow through it ended.
  void finish_traces(CostResult& out) {
    const std::size_t n = ranks_.size();
    for (std::size_t r = 0; r < n; ++r) {
      RankTrace& tr = traces_[r];
      tr.out.free = p_.shared_ports ? flow_port_free_[r] : egress_[r].free;
      tr.in.free = p_.shared_ports ? flow_port_free_[n + r] : ingress_[r].free;
      tr.core.free = ranks_[r].core_free;
    }
    for (std::size_t h = 0; h < hosts_; ++h) {
      host_traces_[0][h].free = p_.shared_ports ? flow_port_free_[2 * n + h] : host_egress_[h].free;
      host_traces_[1][h].free = p_.shared_ports ? flow_port_free_[2 * n + hosts_ + h] : host_ingress_[h].free;
    }
    out.ranks = std::move(traces_);
    out.host_out = std::move(host_traces_[0]), out.host_in = std::move(host_traces_[1]);
  }

  Symmetry sym_;
  CostParams p_;
  CostLayout l_;
  int n_, simulated_;
  // Every rank's items side by side, in rank order, freed at once.
  std::pmr::monotonic_buffer_resource arena_;
  std::vector<RankState> ranks_;
  // A port is free from `free` on; the message holding it until then started at time
  // `taken_at` (another starting at that time too waits only because it came second).
  struct Port {
    double free = 0, taken_at = -1;
  };
  std::vector<Port> egress_, ingress_, host_egress_, host_ingress_;
  std::vector<double> host_out_busy_, host_in_busy_;  // hosts' links: when last busy, each way
  bool ties_ordered_ = false;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_flows_;
  std::vector<std::vector<std::uint32_t>> port_flows_;  // flows through each port
  std::unordered_map<std::uint64_t, Pair> pairs_;       // by (sender, receiver)
  std::uint32_t stamp_ = 0;
  std::size_t hosts_ = 0;
  Channels channels_;
  Events events_;
  std::size_t delivered_ = 0;
  bool trace_ = false, every_hold_ = false;
  // Ties in an order the same for images (start_order) where ports are not shared; each
  // simulated rank's place among its host's ranks.
  bool canonical_ = false;
  std::vector<std::uint32_t> local_;
  std::vector<DoneItem> done_batch_;
  bool has_earlier_ = false, apart_ = true;  // ranks with an earlier phase traced apart; whether it held
  // Whether ranks post only when the executor's wait returns (choose_wait_set) rather
  // than as soon as their plan allows: where a link interleaves a pair's messages, when
  // a send is posted decides the share it gets (a chain's middle rank forwards one
  // segment at a time, its wait including the send before); elsewhere a message queued
  // behind its pair's previous one starts when that ends either way.
  bool waits_ = false;
  std::vector<std::size_t> wait_positions_;
  std::vector<RankTrace> traces_;
  std::array<std::vector<PortTrace>, 2> host_traces_;  // hosts' links out, in
  std::vector<double> flow_port_free_;                 // shared ports: when each port's last flow ended
};

namespace {

void check(int n, const Symmetry& sym, const CostLayout& l) {
  auto refuse = [](const std::string& why) { throw std::invalid_argument("cost simulation: " + why); };
  if (n < 1 || n > (1 << 20)) refuse("ranks must be 1 to 2^20, not " + std::to_string(n));
  if (!l.node_of_rank.empty() && l.node_of_rank.size() != static_cast<std::size_t>(n))
    refuse("node_of_rank has " + std::to_string(l.node_of_rank.size()) + " entries for " + std::to_string(n) +
           " ranks");
  if (sym.kind != Symmetry::Kind::none && (sym.block < 1 || n % sym.block))
    refuse("a block of " + std::to_string(sym.block) + " ranks does not divide " + std::to_string(n));
  if (sym.kind == Symmetry::Kind::xor_blocks && ((n & (n - 1)) || (sym.block & (sym.block - 1))))
    refuse("XOR blocks need powers of two");
  if (sym.kind != Symmetry::Kind::none && !l.node_of_rank.empty())
    for (int r = sym.block; r < n; r += sym.block)
      if (l.node_of_rank[static_cast<std::size_t>(r)] == l.node_of_rank[static_cast<std::size_t>(r - 1)])
        refuse("a host straddles ranks " + std::to_string(r - 1) + " and " + std::to_string(r) + ", two blocks");
}

}  // namespace

std::size_t touched_elements(const Schedule& s) {
  std::size_t end[3] = {0, 0, 0};
  auto touch = [&](const Region& r) {
    std::size_t& e = end[static_cast<int>(r.buffer)];
    e = std::max(e, r.offset + r.count);
  };
  for (const Step& x : s.steps) {
    for (const Transfer& t : x.sends) touch(t.region);
    for (const Transfer& t : x.recvs) touch(t.region);
    for (const LocalOp& op : x.ops) touch(op.dst), touch(op.a), touch(op.b);
  }
  return end[0] + end[1] + std::max(end[2], s.scratch_count);
}

bool wrote(const Schedule& s, const Region& r) {
  WrittenSpans written;
  for (const Step& x : s.steps) written.add(x);
  return written.overlaps(r);
}

double rewrite_extra_us(const CostParams& p, const CostLayout& l, double bytes) {
  if (p.intra.rewrite.pieces.empty() || bytes <= 0) return 0;
  const Charge r = charge(p.intra.rewrite, bytes, l.host_footprint_bytes / 4),
               plain = charge(p.reduce, bytes, l.host_footprint_bytes / 3);
  return std::max(0.0, r.alpha_us + r.bytes_us - plain.alpha_us - plain.bytes_us);
}

MessageCost message_cost(const CostParams& p, const CostLayout& l, bool local, std::size_t bytes, bool both_ways,
                         bool written, bool rewrites) {
  const LinkCost& link = local ? p.intra : p.inter;
  const Charge c =
      charge(link.cost(both_ways, written), static_cast<double>(bytes), l.host_footprint_bytes / (local ? 4 : 2));
  // What a stream of such messages takes each beyond their bytes, up to the whole alpha.
  const double gap = link.stream.pieces.empty()
                         ? 0
                         : std::clamp(link.stream.us(static_cast<double>(bytes)) - c.bytes_us, 0.0, c.alpha_us);
  const double extra = rewrites ? rewrite_extra_us(p, l, static_cast<double>(bytes)) : 0;
  return {c.alpha_us - gap, p.overhead_us + gap + c.bytes_us + extra};
}

const CostPiece& Piecewise::at(double bytes) const {
  static const CostPiece free_piece{};
  if (pieces.empty()) return free_piece;
  auto it = std::upper_bound(pieces.begin(), pieces.end(), bytes,
                             [](double b, const CostPiece& c) { return b < c.from_bytes; });
  return it == pieces.begin() ? *it : *std::prev(it);
}

std::uint64_t tie_order(std::size_t sender_local, std::size_t send_item, std::size_t receiver_local,
                        std::size_t recv_item) {
  auto item = [](std::size_t i) { return std::min<std::uint64_t>(i, (1u << 21) - 1); };
  auto local = [](std::size_t r) { return std::min<std::uint64_t>(r, 1023); };
  return 1ull << 63 | local(sender_local) << 52 | item(send_item) << 31 | local(receiver_local) << 21 | item(recv_item);
}

std::vector<std::uint32_t> places_on_hosts(const CostLayout& l, int ranks) {
  std::vector<std::uint32_t> out(static_cast<std::size_t>(ranks), 0);
  if (l.node_of_rank.empty()) return out;
  std::unordered_map<int, std::uint32_t> seen;  // ranks so far per host
  for (std::size_t r = 0; r < out.size(); ++r) out[r] = seen[l.node_of_rank[r]]++;
  return out;
}

int mirror_rank(const Symmetry& s, int ranks, int r, int h) {
  switch (s.kind) {
    case Symmetry::Kind::shift:
      return static_cast<int>((static_cast<long long>(r) + static_cast<long long>(h) * s.block) % ranks);
    case Symmetry::Kind::xor_blocks: return r ^ (h * s.block);
    case Symmetry::Kind::none: break;
  }
  return r;
}

CostSimulation::CostSimulation(int ranks, const Symmetry& symmetry, const CostParams& p, const CostLayout& layout) {
  check(ranks, symmetry, layout);
  impl_ = std::make_unique<Simulation>(ranks, symmetry, p, layout);
}
CostSimulation::~CostSimulation() = default;
void CostSimulation::add(const Schedule& s, double start_us, const Schedule* earlier, const Schedule* later) {
  impl_->add(s, nullptr, start_us, earlier, later);
}
void CostSimulation::add(const Schedule& s, DataflowPlan plan) { impl_->add(s, &plan, 0, nullptr, nullptr); }
void CostSimulation::set_host_footprint_bytes(double bytes) { impl_->layout().host_footprint_bytes = bytes; }
void CostSimulation::add(const Schedule& whole, DataflowPlan plan, int mirror) { impl_->add(whole, &plan, mirror); }
void CostSimulation::trace(bool every_hold) { impl_->trace(every_hold); }
CostResult CostSimulation::run(const CostResult* earlier) { return impl_->run(earlier); }

CostResult simulate_schedules(const std::vector<Schedule>& schedules, int ranks, const Symmetry& symmetry,
                              const CostParams& p, const CostLayout& layout) {
  CostSimulation sim(ranks, symmetry, p, layout);
  for (const Schedule& s : schedules) sim.add(s);
  return sim.run();
}

}  // namespace collbench
