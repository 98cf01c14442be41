#include "collectives/cost_simulator.hpp"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>

namespace collbench {
namespace {

double ops_us(const Step& step, const CostParams& p, std::size_t elem) {
  double t = 0;
  for (const LocalOp& op : step.ops)
    t += static_cast<double>(op.dst.count * elem) *
         (op.kind == LocalOp::Kind::reduce ? p.reduce_us_per_byte : p.copy_us_per_byte);
  return t;
}

struct Posted {
  double at = 0;
  std::size_t bytes = 0;
};

// Sends and receives of one (sender, receiver) pair not yet matched, in posting order.
struct Channel {
  std::vector<Posted> sends, recvs;
  std::size_t next_send = 0, next_recv = 0;
};

struct Message {
  double ready = 0;
  std::size_t seq = 0;
  int from = 0, to = 0;  // simulated ranks
  std::size_t bytes = 0;
  bool local = true;
  bool operator>(const Message& o) const { return std::tie(ready, seq) > std::tie(o.ready, o.seq); }
};

class Simulation {
 public:
  Simulation(const std::vector<Schedule>& s, int n, const Symmetry& sym, const CostParams& p, const CostLayout& l)
      : s_(s), sym_(sym), p_(p), l_(l), n_(n), simulated_(static_cast<int>(s.size())), ranks_(s.size()),
        egress_(s.size(), 0), ingress_(s.size(), 0), host_egress_(hosts(), 0), host_ingress_(hosts(), 0) {
    channels_.reserve(s.size() * 4);
  }

  CostResult run() {
    for (int r = 0; r < simulated_; ++r) enter(r, 0, 0.0);
    while (!heap_.empty()) {
      const Message m = heap_.top();
      heap_.pop();
      deliver(m);
    }
    CostResult out;
    out.messages = delivered_;
    for (int r = 0; r < simulated_; ++r) {
      const RankState& st = ranks_[static_cast<std::size_t>(r)];
      if (st.step < s_[static_cast<std::size_t>(r)].steps.size())
        throw std::runtime_error("cost simulation: rank " + std::to_string(r) + " cannot finish step " +
                                 std::to_string(st.step) + " (a transfer has no match)");
      out.finish_us.push_back(st.time);
      out.time_us = std::max(out.time_us, st.time);
    }
    return out;
  }

 private:
  struct RankState {
    std::size_t step = 0;
    double time = 0;  // start of the current step, or the finish once done
    std::size_t pending = 0;
    double step_end = 0;
  };

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

  // Starts rank r's step `step` at `t`, running through steps without transfers.
  void enter(int r, std::size_t step, double t) {
    RankState& st = ranks_[static_cast<std::size_t>(r)];
    const auto& steps = s_[static_cast<std::size_t>(r)].steps;
    for (; step < steps.size(); ++step) {
      const Step& x = steps[step];
      st.step = step;
      st.time = t;
      st.pending = x.sends.size() + x.recvs.size();
      st.step_end = t;
      if (st.pending > 0) {
        for (const Transfer& tr : x.recvs) post(r, tr.peer, t, tr.region.count * l_.element_size, false);
        for (const Transfer& tr : x.sends) post(r, tr.peer, t, tr.region.count * l_.element_size, true);
        return;
      }
      t += ops_us(x, p_, l_.element_size);
    }
    st.step = steps.size();
    st.time = t;
  }

  void post(int me, int peer, double at, std::size_t bytes, bool send) {
    const std::uint64_t key = channel_key(me, peer, send);
    Channel& ch = channels_[key];
    (send ? ch.sends : ch.recvs).push_back({at, bytes});
    while (ch.next_send < ch.sends.size() && ch.next_recv < ch.recvs.size()) {
      const Posted a = ch.sends[ch.next_send++], b = ch.recvs[ch.next_recv++];
      const int from = static_cast<int>(key >> 42), to = static_cast<int>(key >> 21 & ((1u << 21) - 1));
      if (a.bytes != b.bytes)
        throw std::runtime_error("cost simulation: rank " + std::to_string(from) + " sends " + std::to_string(a.bytes) +
                                 " bytes where rank " + std::to_string(to) + " receives " + std::to_string(b.bytes));
      heap_.push({std::max(a.at, b.at), seq_++, from, to, a.bytes, same_node(me, peer)});
    }
    if (ch.next_send == ch.sends.size() && ch.next_recv == ch.recvs.size()) {
      ch.sends.clear(), ch.recvs.clear();
      ch.next_send = ch.next_recv = 0;
    }
  }

  void deliver(const Message& m) {
    const LinkCost& link = m.local ? p_.intra : p_.inter;
    const double wire = static_cast<double>(m.bytes) * link.us_per_byte, port = p_.overhead_us + wire;
    double& out = egress_[static_cast<std::size_t>(m.from)];
    double& in = ingress_[static_cast<std::size_t>(m.to)];
    double start = std::max({m.ready, out, in});
    if (!m.local) {
      // Every block's hosts mirror block 0's: the receiver's host link behaves as its
      // representative's.
      double& hout = host_egress_[static_cast<std::size_t>(l_.node_of_rank[static_cast<std::size_t>(m.from)])];
      double& hin = host_ingress_[static_cast<std::size_t>(l_.node_of_rank[static_cast<std::size_t>(m.to)])];
      start = std::max({start, hout, hin});
      hout = hin = start + port;
    }
    out = in = start + port;
    const double done = start + link.alpha_us + port;
    ++delivered_;
    complete(m.from, done);
    complete(m.to, done);
  }

  void complete(int r, double at) {
    RankState& st = ranks_[static_cast<std::size_t>(r)];
    st.step_end = std::max(st.step_end, at);
    if (--st.pending > 0) return;
    const Step& x = s_[static_cast<std::size_t>(r)].steps[st.step];
    enter(r, st.step + 1, st.step_end + ops_us(x, p_, l_.element_size));
  }

  const std::vector<Schedule>& s_;
  const Symmetry& sym_;
  const CostParams& p_;
  const CostLayout& l_;
  int n_, simulated_;
  std::vector<RankState> ranks_;
  std::vector<double> egress_, ingress_, host_egress_, host_ingress_;
  std::unordered_map<std::uint64_t, Channel> channels_;
  std::priority_queue<Message, std::vector<Message>, std::greater<>> heap_;
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
