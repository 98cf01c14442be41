#include "collectives/cost_simulator.hpp"

#include "collectives/dataflow.hpp"

#include <algorithm>
#include <cstdint>
#include <queue>
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
  bool both_ways = false;  // the poster's step sends and receives
  std::size_t item = 0;    // its position in the poster's receive or send queue
};

// Sends and receives of one (sender, receiver) pair not yet matched, in posting order.
struct Channel {
  std::vector<Posted> sends, recvs;
  std::size_t next_send = 0, next_recv = 0;
};

// A matched message ready to go (kind start), or a transfer completing at one rank.
struct Event {
  enum class Kind : std::uint8_t { start, done } kind = Kind::start;
  double time = 0;
  std::size_t seq = 0;
  int from = 0, to = 0;  // start: simulated sender and receiver; done: `from` is the rank
  std::size_t bytes = 0, send_item = 0, recv_item = 0;
  std::size_t item = 0;  // done: the completed transfer's position in `queue`
  bool local = true, both_ways = false;
  FlowQueue queue = FlowQueue::recvs;  // done: which of the rank's queues
  bool operator>(const Event& o) const { return std::tie(time, seq) > std::tie(o.time, o.seq); }
};

struct TransferItem {
  int peer = 0;
  std::size_t bytes = 0;
  bool both_ways = false;
};

// One rank as the executor runs it: every transfer and operation of the schedule in its
// plan's order (dataflow, or step by step), operations one at a time on its core.
struct RankState {
  DataflowPlan plan;
  FlowProgress progress;
  std::vector<TransferItem> recvs, sends;
  std::vector<double> op_us;
  double time = 0;  // when the rank's core is next free; its finish once done
};

class Simulation {
 public:
  Simulation(const std::vector<Schedule>& s, int n, const Symmetry& sym, const CostParams& p, const CostLayout& l)
      : sym_(sym), p_(p), l_(l), n_(n), simulated_(static_cast<int>(s.size())), ranks_(s.size()),
        egress_(s.size(), 0), ingress_(s.size(), 0), host_egress_(hosts(), 0), host_ingress_(hosts(), 0) {
    channels_.reserve(s.size() * 4);
    for (std::size_t r = 0; r < s.size(); ++r) prepare(ranks_[r], s[r]);
  }

  CostResult run() {
    for (int r = 0; r < simulated_; ++r) advance(r, 0.0);
    while (!heap_.empty()) {
      const Event e = heap_.top();
      heap_.pop();
      if (e.kind == Event::Kind::start) {
        deliver(e);
      } else {
        RankState& st = ranks_[static_cast<std::size_t>(e.from)];
        st.progress.complete_transfer(e.queue, e.item);
        advance(e.from, std::max(e.time, st.time));
      }
    }
    CostResult out;
    out.messages = delivered_;
    for (int r = 0; r < simulated_; ++r) {
      const RankState& st = ranks_[static_cast<std::size_t>(r)];
      if (!st.progress.finished())
        throw std::runtime_error("cost simulation: rank " + std::to_string(r) + " cannot finish (a transfer has no match)");
      out.finish_us.push_back(st.time);
      out.time_us = std::max(out.time_us, st.time);
    }
    return out;
  }

 private:
  void prepare(RankState& st, const Schedule& s) {
    st.plan = plan_execution(s, BufferLayout{}, l_.order);
    st.progress = FlowProgress(st.plan);
    for (const Step& x : s.steps) {
      const bool both = !x.sends.empty() && !x.recvs.empty();
      for (const Transfer& t : x.recvs) st.recvs.push_back({t.peer, t.region.count * l_.element_size, both});
      for (const Transfer& t : x.sends) st.sends.push_back({t.peer, t.region.count * l_.element_size, both});
      for (const LocalOp& op : x.ops) {
        const Charge c = charge(op.kind == LocalOp::Kind::reduce ? p_.reduce : p_.copy,
                                static_cast<double>(op.dst.count * l_.element_size), l_.host_footprint_bytes / 3);
        st.op_us.push_back(c.alpha_us + c.bytes_us);
      }
    }
  }

  std::size_t hosts() const {
    int h = 0;
    for (int r = 0; r < simulated_ && !l_.node_of_rank.empty(); ++r) h = std::max(h, l_.node_of_rank[static_cast<std::size_t>(r)] + 1);
    return static_cast<std::size_t>(h);
  }

  bool same_node(int a, int b) const {
    return l_.node_of_rank.empty() || l_.node_of_rank[static_cast<std::size_t>(a)] == l_.node_of_rank[static_cast<std::size_t>(b)];
  }

  // The channel a transfer between simulated rank `me` and real rank `peer` belongs to:
  // (sender class, receiver class, the receiver's block seen from the sender's).
  std::uint64_t channel_key(int me, int peer, bool send) const {
    int cls = peer, h = 0;
    if (sym_.kind != Symmetry::Kind::none) {
      cls = peer % sym_.block;
      h = peer / sym_.block;
      if (!send && sym_.kind == Symmetry::Kind::shift) h = (n_ / sym_.block - h) % (n_ / sym_.block);
    }
    const auto from = static_cast<std::uint64_t>(send ? me : cls), to = static_cast<std::uint64_t>(send ? cls : me);
    return from << 42 | to << 21 | static_cast<std::uint64_t>(h);
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
          post(r, x.peer, {t, x.bytes, x.both_ways, i}, q == FlowQueue::sends);
        }
      if (st.progress.next_ready(st.plan, FlowQueue::ops)) {
        t += st.op_us[st.progress.started(FlowQueue::ops)];
        st.progress.start(FlowQueue::ops);
        again = true;
      }
    }
    st.time = t;
  }

  void post(int me, int peer, const Posted& posted, bool send) {
    const std::uint64_t key = channel_key(me, peer, send);
    Channel& ch = channels_[key];
    (send ? ch.sends : ch.recvs).push_back(posted);
    while (ch.next_send < ch.sends.size() && ch.next_recv < ch.recvs.size()) {
      const Posted a = ch.sends[ch.next_send++], b = ch.recvs[ch.next_recv++];
      const int from = static_cast<int>(key >> 42), to = static_cast<int>(key >> 21 & ((1u << 21) - 1));
      if (a.bytes != b.bytes)
        throw std::runtime_error("cost simulation: rank " + std::to_string(from) + " sends " + std::to_string(a.bytes) +
                                 " bytes where rank " + std::to_string(to) + " receives " + std::to_string(b.bytes));
      Event e;
      e.time = std::max(a.at, b.at), e.seq = seq_++, e.from = from, e.to = to, e.bytes = a.bytes;
      e.send_item = a.item, e.recv_item = b.item, e.local = same_node(me, peer), e.both_ways = a.both_ways || b.both_ways;
      heap_.push(e);
    }
    if (ch.next_send == ch.sends.size() && ch.next_recv == ch.recvs.size()) {
      ch.sends.clear(), ch.recvs.clear();
      ch.next_send = ch.next_recv = 0;
    }
  }

  // A message holds the sender's way out and the receiver's way in; between hosts,
  // their links too. Both ends learn of its completion then.
  void deliver(const Event& m) {
    const LinkCost& link = m.local ? p_.intra : p_.inter;
    const Charge c = charge(link.cost(m.both_ways), static_cast<double>(m.bytes), l_.host_footprint_bytes / (m.local ? 4 : 2));
    const double port = p_.overhead_us + c.bytes_us;
    const auto from = static_cast<std::size_t>(m.from), to = static_cast<std::size_t>(m.to);
    double& out = egress_[from];
    double& in = ingress_[to];
    double start = std::max({m.time, out, in});
    if (!m.local) {
      // Every block's hosts mirror block 0's: the receiver's host link behaves as its
      // representative's.
      double& hout = host_egress_[static_cast<std::size_t>(l_.node_of_rank[from])];
      double& hin = host_ingress_[static_cast<std::size_t>(l_.node_of_rank[to])];
      start = std::max({start, hout, hin});
      hout = hin = start + port;
    }
    out = in = start + port;
    const double done = start + c.alpha_us + port;
    ++delivered_;
    Event e;
    e.kind = Event::Kind::done, e.time = done;
    e.seq = seq_++, e.from = m.from, e.queue = FlowQueue::sends, e.item = m.send_item;
    heap_.push(e);
    e.seq = seq_++, e.from = m.to, e.queue = FlowQueue::recvs, e.item = m.recv_item;
    heap_.push(e);
  }

  const Symmetry& sym_;
  const CostParams& p_;
  const CostLayout& l_;
  int n_, simulated_;
  std::vector<RankState> ranks_;
  std::vector<double> egress_, ingress_, host_egress_, host_ingress_;
  std::unordered_map<std::uint64_t, Channel> channels_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> heap_;
  std::size_t seq_ = 0, delivered_ = 0;
};

void check(const std::vector<Schedule>& schedules, int n, const Symmetry& sym, const CostLayout& l) {
  auto refuse = [](const std::string& why) { throw std::invalid_argument("cost simulation: " + why); };
  if (n < 1 || n > (1 << 20)) refuse("ranks must be 1 to 2^20, not " + std::to_string(n));
  if (!l.node_of_rank.empty() && l.node_of_rank.size() != static_cast<std::size_t>(n))
    refuse("node_of_rank has " + std::to_string(l.node_of_rank.size()) + " entries for " + std::to_string(n) + " ranks");
  const int simulated = sym.kind == Symmetry::Kind::none ? n : sym.block;
  if (sym.kind != Symmetry::Kind::none && (sym.block < 1 || n % sym.block))
    refuse("a block of " + std::to_string(sym.block) + " ranks does not divide " + std::to_string(n));
  if (sym.kind == Symmetry::Kind::xor_blocks && ((n & (n - 1)) || (sym.block & (sym.block - 1))))
    refuse("XOR blocks need powers of two");
  if (schedules.size() != static_cast<std::size_t>(simulated))
    refuse(std::to_string(schedules.size()) + " schedules for " + std::to_string(simulated) + " simulated ranks");
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

const CostPiece& Piecewise::at(double bytes) const {
  static const CostPiece free_piece{};
  if (pieces.empty()) return free_piece;
  auto it = std::upper_bound(pieces.begin(), pieces.end(), bytes, [](double b, const CostPiece& c) { return b < c.from_bytes; });
  return it == pieces.begin() ? *it : *std::prev(it);
}

int mirror_rank(const Symmetry& s, int ranks, int r, int h) {
  switch (s.kind) {
    case Symmetry::Kind::shift: return static_cast<int>((static_cast<long long>(r) + static_cast<long long>(h) * s.block) % ranks);
    case Symmetry::Kind::xor_blocks: return r ^ (h * s.block);
    case Symmetry::Kind::none: break;
  }
  return r;
}

CostResult simulate_schedules(const std::vector<Schedule>& schedules, int ranks, const Symmetry& symmetry,
                              const CostParams& p, const CostLayout& layout) {
  check(schedules, ranks, symmetry, layout);
  return Simulation(schedules, ranks, symmetry, p, layout).run();
}

}  // namespace collbench
