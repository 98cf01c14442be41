#include "harness/model/predict.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>

namespace collbench {
namespace {

struct Built {
  AlgorithmParams params;
  std::map<int, Schedule> by_rank;
};

const Schedule& schedule_of(const PredictRequest& q, Built& b, int r) {
  auto it = b.by_rank.find(r);
  if (it == b.by_rank.end()) {
    const ScheduleRequest sq{q.collective, q.ranks, r, q.count, q.root, q.element_size, &b.params};
    it = b.by_rank.emplace(r, q.algorithm->build(sq)).first;
  }
  return it->second;
}

// A step's shape: message sizes and operations, not peers.
bool same_shape(const Schedule& a, const Schedule& b) {
  if (a.steps.size() != b.steps.size()) return false;
  auto counts = [](const std::vector<Transfer>& t) {
    std::vector<std::size_t> c;
    for (const Transfer& x : t) c.push_back(x.region.count);
    return c;
  };
  for (std::size_t s = 0; s < a.steps.size(); ++s) {
    const Step &x = a.steps[s], &y = b.steps[s];
    if (counts(x.sends) != counts(y.sends) || counts(x.recvs) != counts(y.recvs) || x.ops.size() != y.ops.size()) return false;
    for (std::size_t i = 0; i < x.ops.size(); ++i)
      if (x.ops[i].kind != y.ops[i].kind || x.ops[i].dst.count != y.ops[i].dst.count) return false;
  }
  return true;
}

bool has_reverse(const std::vector<Transfer>& in, int peer, std::size_t count) {
  return std::any_of(in.begin(), in.end(), [&](const Transfer& t) { return t.peer == peer && t.region.count == count; });
}

// Whether the sampled ranks and their peers all look alike, each transfer met in the
// same step; a link shared between ranks of one host rules the path out.
std::string why_not_symmetric(const PredictRequest& q, Built& b) {
  if (q.ranks_per_node > 1 && q.ranks_per_node < q.ranks) return "ranks of one host share its link";
  std::set<int> sample{0, std::min(1, q.ranks - 1), q.ranks / 2, q.ranks - 1};
  std::set<int> peers;
  for (int r : sample)
    for (const Step& s : schedule_of(q, b, r).steps) {
      for (const Transfer& t : s.sends) peers.insert(t.peer);
      for (const Transfer& t : s.recvs) peers.insert(t.peer);
      if (peers.size() > 64) return "its sampled ranks talk to more than 64 peers";
    }
  sample.insert(peers.begin(), peers.end());
  const Schedule& first = schedule_of(q, b, 0);
  for (int r : sample)
    if (!same_shape(first, schedule_of(q, b, r))) return "rank " + std::to_string(r) + " does something else than rank 0";
  for (int r : std::set<int>{0, std::min(1, q.ranks - 1), q.ranks / 2, q.ranks - 1}) {
    const Schedule& mine = schedule_of(q, b, r);
    for (std::size_t s = 0; s < mine.steps.size(); ++s) {
      for (const Transfer& t : mine.steps[s].sends)
        if (!has_reverse(schedule_of(q, b, t.peer).steps[s].recvs, r, t.region.count)) return "transfers meet in different steps";
      for (const Transfer& t : mine.steps[s].recvs)
        if (!has_reverse(schedule_of(q, b, t.peer).steps[s].sends, r, t.region.count)) return "transfers meet in different steps";
    }
  }
  return "";
}

CostLayout layout_of(const PredictRequest& q) {
  CostLayout l;
  l.element_size = q.element_size;
  if (q.ranks_per_node < q.ranks)
    for (int r = 0; r < q.ranks; ++r) l.node_of_rank.push_back(r / q.ranks_per_node);
  return l;
}

}  // namespace

Prediction predict(const PredictRequest& q, const CostParams& p, PredictMethod method) {
  const auto t0 = std::chrono::steady_clock::now();
  Built b;
  b.params.segment_bytes = q.segment_bytes;
  b.params.order = ExecutionOrder::steps;
  if (q.ranks_per_node < q.ranks)
    for (int r = 0; r < q.ranks; ++r) b.params.node_of_rank.push_back(r / q.ranks_per_node);
  const CostLayout layout = layout_of(q);
  Prediction out;
  const std::string why = method == PredictMethod::full ? "full simulation asked for" : why_not_symmetric(q, b);
  if (why.empty()) {
    const CostResult r = simulate_symmetric(schedule_of(q, b, 0), 0, p, layout);
    out = {r.time_us, PredictMethod::symmetric, r.messages, 0};
  } else {
    if (method == PredictMethod::symmetric)
      throw std::invalid_argument("--method symmetric does not hold for " + q.algorithm->name + " here: " + why);
    std::size_t per_rank = 0;
    for (const Step& s : schedule_of(q, b, 0).steps) per_rank += s.sends.size() + s.recvs.size() + 1;
    if (static_cast<double>(per_rank) * q.ranks > kMostSimulatedTransfers)
      throw std::invalid_argument(q.algorithm->name + " on " + std::to_string(q.ranks) + " ranks needs a full simulation (" +
                                  why + ") of about " + std::to_string(per_rank * static_cast<std::size_t>(q.ranks)) +
                                  " transfers and steps, more than collbench simulates");
    std::vector<Schedule> all;
    all.reserve(static_cast<std::size_t>(q.ranks));
    for (int r = 0; r < q.ranks; ++r) {
      auto it = b.by_rank.find(r);
      if (it != b.by_rank.end()) all.push_back(std::move(it->second));
      else all.push_back(q.algorithm->build({q.collective, q.ranks, r, q.count, q.root, q.element_size, &b.params}));
    }
    const CostResult r = simulate_schedules(all, p, layout);
    out = {r.time_us, PredictMethod::full, r.messages, 0};
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace collbench
