#include "collectives/cost_simulator.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>

namespace collbench {
namespace {

double ops_us(const Step& step, const CostParams& p, std::size_t elem) {
  double t = 0;
  for (const LocalOp& op : step.ops)
    t += static_cast<double>(op.dst.count * elem) *
         (op.kind == LocalOp::Kind::reduce ? p.reduce_us_per_byte : p.copy_us_per_byte);
  return t;
}

bool same_node(const CostLayout& l, int a, int b) {
  return l.node_of_rank.empty() || l.node_of_rank[static_cast<std::size_t>(a)] == l.node_of_rank[static_cast<std::size_t>(b)];
}

struct Posted {
  double at = 0;
  std::size_t bytes = 0;
};

struct Message {
  double ready = 0;
  std::size_t seq = 0;
  int from = 0, to = 0;
  std::size_t bytes = 0;
  bool operator>(const Message& o) const { return std::tie(ready, seq) > std::tie(o.ready, o.seq); }
};

class Simulation {
 public:
  Simulation(const std::vector<Schedule>& s, const CostParams& p, const CostLayout& l)
      : s_(s), p_(p), l_(l), n_(static_cast<int>(s.size())), ranks_(s.size()),
        egress_(s.size(), 0), ingress_(s.size(), 0) {}

  CostResult run() {
    for (int r = 0; r < n_; ++r) enter(r, 0, 0.0);
    while (!heap_.empty()) {
      const Message m = heap_.top();
      heap_.pop();
      deliver(m);
    }
    CostResult out;
    out.messages = delivered_;
    for (int r = 0; r < n_; ++r) {
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
        for (const Transfer& tr : x.recvs) post(tr.peer, r, t, tr.region.count * l_.element_size, false);
        for (const Transfer& tr : x.sends) post(r, tr.peer, t, tr.region.count * l_.element_size, true);
        return;
      }
      t += ops_us(x, p_, l_.element_size);
    }
    st.step = steps.size();
    st.time = t;
  }

  void post(int from, int to, double at, std::size_t bytes, bool send) {
    auto& ch = channels_[{from, to}];
    (send ? ch.first : ch.second).push_back({at, bytes});
    while (!ch.first.empty() && !ch.second.empty()) {
      const Posted a = ch.first.front(), b = ch.second.front();
      ch.first.pop_front();
      ch.second.pop_front();
      if (a.bytes != b.bytes)
        throw std::runtime_error("cost simulation: rank " + std::to_string(from) + " sends " + std::to_string(a.bytes) +
                                 " bytes where rank " + std::to_string(to) + " receives " + std::to_string(b.bytes));
      heap_.push({std::max(a.at, b.at), seq_++, from, to, a.bytes});
    }
  }

  void deliver(const Message& m) {
    const bool local = same_node(l_, m.from, m.to);
    const LinkCost& link = local ? p_.intra : p_.inter;
    const double wire = static_cast<double>(m.bytes) * link.us_per_byte, port = p_.overhead_us + wire;
    double start = std::max({m.ready, egress_[static_cast<std::size_t>(m.from)], ingress_[static_cast<std::size_t>(m.to)]});
    if (!local) {
      const int hf = l_.node_of_rank[static_cast<std::size_t>(m.from)], ht = l_.node_of_rank[static_cast<std::size_t>(m.to)];
      start = std::max({start, host_egress_[hf], host_ingress_[ht]});
      host_egress_[hf] = host_ingress_[ht] = start + port;
    }
    egress_[static_cast<std::size_t>(m.from)] = ingress_[static_cast<std::size_t>(m.to)] = start + port;
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
  const CostParams& p_;
  const CostLayout& l_;
  int n_;
  std::vector<RankState> ranks_;
  std::vector<double> egress_, ingress_;
  std::map<int, double> host_egress_, host_ingress_;
  std::map<std::pair<int, int>, std::pair<std::deque<Posted>, std::deque<Posted>>> channels_;  // sends, receives
  std::priority_queue<Message, std::vector<Message>, std::greater<>> heap_;
  std::size_t seq_ = 0, delivered_ = 0;
};

}  // namespace

CostResult simulate_schedules(const std::vector<Schedule>& schedules, const CostParams& p, const CostLayout& layout) {
  if (!layout.node_of_rank.empty() && layout.node_of_rank.size() != schedules.size())
    throw std::invalid_argument("cost simulation: node_of_rank has " + std::to_string(layout.node_of_rank.size()) +
                                " entries for " + std::to_string(schedules.size()) + " ranks");
  return Simulation(schedules, p, layout).run();
}

CostResult simulate_symmetric(const Schedule& s, int rank, const CostParams& p, const CostLayout& l) {
  double t = 0;
  std::size_t messages = 0;
  for (const Step& x : s.steps) {
    double end = t, egress = t, ingress = t;
    // Each peer posts its side of every transfer when this rank does, and its ports are
    // as busy as this rank's.
    auto transfer = [&](const Transfer& tr, double& port) {
      const LinkCost& link = same_node(l, rank, tr.peer) ? p.intra : p.inter;
      const double start = port;
      port = start + p.overhead_us + static_cast<double>(tr.region.count * l.element_size) * link.us_per_byte;
      end = std::max(end, port + link.alpha_us);
    };
    for (const Transfer& tr : x.recvs) transfer(tr, ingress);
    for (const Transfer& tr : x.sends) transfer(tr, egress), ++messages;
    t = end + ops_us(x, p, l.element_size);
  }
  return {{t}, t, messages};
}

}  // namespace collbench
