#include "collectives/cost_model/predict.hpp"

#include "collectives/cost_model/ring_tail.hpp"
#include "collectives/schedule/dataflow.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

namespace collbench {
namespace {

// The steps numbered in [from, to): one phase of a call.
Schedule phase_of(Schedule s, std::size_t from, std::size_t to) {
  Schedule out;
  out.scratch_count = s.scratch_count;
  for (std::size_t k = 0; k < s.steps.size(); ++k)
    if (const std::size_t x = s.number(k); x >= from && x < to) {
      out.steps.push_back(std::move(s.steps[k]));
      out.numbers.push_back(x);
    }
  return out;
}

struct Built {
  AlgorithmParams params;
  std::map<int, Schedule> by_rank;
  std::map<int, DataflowPlan> plans;        // of by_rank's schedules, made while testing a symmetry
  std::size_t from = 0, before = SIZE_MAX;  // only the steps numbered in [from, before): one phase
};

Schedule build(const PredictRequest& q, const Built& b, int r) {
  Schedule s = q.algorithm->build({q.collective, q.ranks, r, q.count, q.root, q.element_size, &b.params});
  if (b.from == 0 && b.before == SIZE_MAX) return s;  // not `?:`, which would copy s
  return phase_of(std::move(s), b.from, b.before);
}

const Schedule& schedule_of(const PredictRequest& q, Built& b, int r) {
  auto it = b.by_rank.find(r);
  if (it == b.by_rank.end()) it = b.by_rank.emplace(r, build(q, b, r)).first;
  return it->second;
}

// Ranks [from, to)'s schedules and their plans in the run's order, handed to `take(r,
// schedule, plan)` in rank order, each dropped before the next is built (65,536 held at
// once cost as much to free as to simulate); those b holds already (built while testing
// a symmetry) taken from it.
template <class Take>
void build_ranks(const PredictRequest& q, Built& b, int from, int to, Take&& take) {
  for (int r = from; r < to; ++r) {
    auto held = b.by_rank.find(r);
    Schedule s = held != b.by_rank.end() ? std::move(held->second) : build(q, b, r);
    auto plan = b.plans.find(r);
    DataflowPlan made = plan != b.plans.end() ? std::move(plan->second) : plan_execution(s, BufferLayout{}, q.order);
    take(r, std::move(s), std::move(made));
  }
}

bool same_transfers(const std::vector<Transfer>& a, const std::vector<Transfer>& b, const Symmetry& s, int n, int h) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].region.count != b[i].region.count || mirror_rank(s, n, a[i].peer, h) != b[i].peer) return false;
  return true;
}

// In dataflow order, when each item may start: the same steps can differ in which
// items wait for which, since that follows the buffers they touch (a double binary
// tree's two halves lie at different offsets on different ranks).
bool same_plan(const DataflowPlan& x, const DataflowPlan& y) {
  for (std::size_t q = 0; q < kFlowQueues; ++q) {
    if (x.items[q].size() != y.items[q].size()) return false;
    for (std::size_t i = 0; i < x.items[q].size(); ++i)
      if (x.items[q][i].step != y.items[q][i].step || x.items[q][i].after != y.items[q][i].after) return false;
  }
  return true;
}

// Whether `image` is `base` with every peer moved by block move h: same steps, sizes
// and operations.
bool is_image(const Schedule& base, const Schedule& image, const Symmetry& s, int n, int h) {
  if (base.steps.size() != image.steps.size()) return false;
  for (std::size_t i = 0; i < base.steps.size(); ++i) {
    if (base.number(i) != image.number(i)) return false;
    const Step &x = base.steps[i], &y = image.steps[i];
    if (!same_transfers(x.sends, y.sends, s, n, h) || !same_transfers(x.recvs, y.recvs, s, n, h)) return false;
    if (x.ops.size() != y.ops.size()) return false;
    for (std::size_t j = 0; j < x.ops.size(); ++j)
      if (x.ops[j].kind != y.ops[j].kind || x.ops[j].dst.count != y.ops[j].dst.count) return false;
  }
  return true;
}

// Of the steps numbered `from` on.
double transfers_and_steps(const Schedule& s, std::size_t from = 0) {
  double n = 0;
  for (std::size_t k = 0; k < s.steps.size(); ++k)
    if (s.number(k) >= from) n += static_cast<double>(s.steps[k].sends.size() + s.steps[k].recvs.size()) + 1;
  return n;
}

// The block a symmetry would repeat: one host's ranks where hosts hold several, else one
// rank.
int block_of(const PredictRequest& q) {
  return q.ranks_per_node > 1 && q.ranks_per_node < q.ranks ? q.ranks_per_node : 1;
}

// Blocks a symmetry may repeat, smallest first: one host's ranks (or one rank), then
// doublings of it up to half the ranks, while simulating one block stays within what a
// full simulation may hold. A larger block catches schedules whose ranks repeat with a
// longer period, as a ring's uneven blocks do (every n / gcd(count, n) ranks).
std::vector<int> candidate_blocks(const PredictRequest& q, Built& b) {
  std::vector<int> out{block_of(q)};
  const double per_rank = transfers_and_steps(schedule_of(q, b, 0));
  for (long long k = 2LL * out[0]; k <= q.ranks / 2 && k * per_rank <= kMostSimulatedTransfers; k *= 2)
    if (q.ranks % k == 0) out.push_back(static_cast<int>(k));
  return out;
}

// Whether ranks sampled outside block 0 are images of their counterparts in block 0 (rank
// i + h*block of rank i under block move h): the first and last rank of the second,
// middle and last blocks; for a rooted collective the root and its neighbours (in block
// 0: their images in the second and last blocks); and the ranks a third and two thirds
// of the way, inside a block wherever they fall. Each sample costs a build as long as
// simulating a rank, so there are few. In dataflow order the second block's samples must
// also wait as their counterparts do. Only block 0's schedules are kept: they are
// simulated next.
bool holds(const PredictRequest& q, Built& b, const Symmetry& s) {
  const int n = q.ranks, blocks = n / s.block;
  if (s.kind == Symmetry::Kind::xor_blocks && ((n & (n - 1)) || (s.block & (s.block - 1)))) return false;
  std::set<int> sampled;
  for (int h : {1, blocks / 2, blocks - 1})
    for (int i : {0, s.block - 1}) sampled.insert(h * s.block + i);
  if (uses_root(q.collective))
    for (int r : {q.root - 1, q.root, q.root + 1}) sampled.insert((r + n) % n);
  for (int k : {1, 2}) sampled.insert(static_cast<int>(static_cast<long long>(k) * n / 3));
  std::set<int> images;
  for (int r : sampled)
    if (r >= n)
      continue;
    else if (r >= s.block)
      images.insert(r);
    else
      for (int h : {1, blocks - 1}) images.insert(mirror_rank(s, n, r, h));
  for (int r : images) {
    if (r < s.block) continue;                   // one block: nothing to compare
    const int i = r % s.block, h = r / s.block;  // r = mirror_rank(s, n, i, h) for both kinds
    const Schedule& base = schedule_of(q, b, i);
    const Schedule image = build(q, b, r);
    if (!is_image(base, image, s, n, h)) return false;
    if (q.order == ExecutionOrder::steps || h != 1) continue;
    auto it = b.plans.find(i);
    if (it == b.plans.end()) it = b.plans.emplace(i, plan_execution(base, BufferLayout{}, q.order)).first;
    if (!same_plan(it->second, plan_execution(image, BufferLayout{}, q.order))) return false;
  }
  return true;
}

// The first symmetry that holds, smallest block first, shift before XOR; none if none.
Symmetry find_symmetry(const PredictRequest& q, Built& b) {
  for (int block : candidate_blocks(q, b))
    for (auto kind : {Symmetry::Kind::shift, Symmetry::Kind::xor_blocks})
      if (const Symmetry s{kind, block}; holds(q, b, s)) return s;
  return {};
}

std::string describe(const Symmetry& s) {
  return std::string(s.kind == Symmetry::Kind::shift ? "shift" : "xor") + " by " + std::to_string(s.block) +
         (s.block == 1 ? " rank" : " ranks");
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// 64 ranks (or all, where fewer) spread evenly from first to last: what estimates sample.
std::vector<int> ranks_spread_evenly(const PredictRequest& q) {
  const int samples = std::min(q.ranks, 64);
  std::vector<int> out;
  for (int i = 0; i < samples; ++i)
    out.push_back(static_cast<int>(static_cast<long long>(i) * (q.ranks - 1) / std::max(samples - 1, 1)));
  return out;
}

// Counts what a full simulation of every rank would hold, refusing once it is too much.
class FullSimulationBudget {
 public:
  FullSimulationBudget(const PredictRequest& q, std::string why) : q_(q), why_(std::move(why)) {}
  void count(int r, const Schedule& s, std::size_t from = 0) {
    transfers_ += transfers_and_steps(s, from);
    if (transfers_ > kMostSimulatedTransfers)
      refuse_count("more than", "its first " + std::to_string(r + 1) + " ranks already have that many");
  }
  // Refuses at once where ranks sampled evenly say the whole would be too much: a
  // typical (median) rank's transfers and steps n times over, or a typical rank's build
  // time n times over longer than kMostBuildSeconds (a builder may cost O(n) per rank).
  // Finding out by building them all could take minutes. Build time is this thread's CPU
  // time, and the median: one sample descheduled on a busy machine must not refuse.
  void estimate(Built& b) {
    const std::vector<int> samples = ranks_spread_evenly(q_);
    std::vector<double> counts, build_s;
    const double t0 = thread_cpu_seconds();
    for (int r : samples) counts.push_back(transfers_and_steps(schedule_of(q_, b, r)));
    const double mean_s = (thread_cpu_seconds() - t0) / static_cast<double>(samples.size());
    const std::string evidence = "estimated from " + std::to_string(samples.size()) + " ranks spread evenly";
    const double total = median(counts) * q_.ranks;
    if (total > kMostSimulatedTransfers)
      refuse_count("about " + std::to_string(static_cast<long long>(total)), evidence);
    // The median is at most twice the mean. Only where that bound is over the limit are
    // the samples built again and timed one by one: reading this clock is a system call
    // (1.3 us here), 128 of them per prediction otherwise.
    if (2 * mean_s * q_.ranks <= kMostBuildSeconds) return;
    for (int r : samples) {
      const double t1 = thread_cpu_seconds();
      const Schedule s = build(q_, b, r);
      build_s.push_back(thread_cpu_seconds() - t1);
    }
    const double all_s = median(build_s) * q_.ranks;
    if (all_s > kMostBuildSeconds)
      refuse(", and building its " + std::to_string(q_.ranks) + " schedules would take about " +
             std::to_string(static_cast<long long>(all_s)) + " s here, more than the " +
             std::to_string(static_cast<int>(kMostBuildSeconds)) + " s collbench allows (" + evidence + ")");
  }

 private:
  // "<algorithm> on <n> ranks needs a full simulation (<why>)" and what makes it too much.
  [[noreturn]] void refuse(const std::string& too_much) const {
    throw std::invalid_argument(q_.algorithm->name + " on " + std::to_string(q_.ranks) + " ranks needs a full " +
                                "simulation (" + why_ + ")" + too_much);
  }
  [[noreturn]] void refuse_count(const std::string& how_many, const std::string& evidence) const {
    refuse(" of " + how_many + " transfers and steps, more than the " +
           std::to_string(static_cast<long long>(kMostSimulatedTransfers)) + " collbench simulates (" + evidence + ")");
  }

  const PredictRequest& q_;
  std::string why_;
  double transfers_ = 0;
};

CostLayout layout_of(const PredictRequest& q, const Built& b) {
  CostLayout layout;
  layout.element_size = q.element_size;
  layout.node_of_rank = b.params.node_of_rank;
  layout.order = q.order;
  return layout;
}

Built prepared(const PredictRequest& q) {
  Built b;
  b.params.segment_bytes = q.segment_bytes;
  b.params.order = q.order;
  if (q.ranks_per_node < q.ranks)
    for (int r = 0; r < q.ranks; ++r) b.params.node_of_rank.push_back(r / q.ranks_per_node);
  return b;
}

// Per rank, the buffers a run allocates and fills (send and receive, out of place) or
// the schedule touches, whichever is more, and its scratch.
std::size_t footprint_elements(const PredictRequest& q, const Schedule& s, int r) {
  const BufferLayout buffers = buffer_layout(q.collective, q.count, q.ranks, r, q.root, false);
  return std::max(touched_elements(s), buffers.send_count + buffers.recv_count + s.scratch_count);
}

double host_footprint_bytes(const PredictRequest& q, std::size_t per_rank_elements) {
  return static_cast<double>(per_rank_elements * q.element_size) * std::min(q.ranks_per_node, q.ranks);
}

// Whether every host's link was idle by the time the first of its ranks ended the first
// phase (block 0's hosts; the others mirror them).
bool hosts_free_between(const CostResult& first_phase, const CostLayout& layout, int block) {
  if (layout.node_of_rank.empty()) return true;
  std::map<int, double> earliest;
  for (int r = 0; r < block; ++r) {
    const int h = layout.node_of_rank[static_cast<std::size_t>(r)];
    const double end = first_phase.finish_us[static_cast<std::size_t>(r)];
    earliest[h] = earliest.count(h) ? std::min(earliest[h], end) : end;
  }
  for (const auto& [h, end] : earliest)
    if (std::max(first_phase.host_out_busy_us[static_cast<std::size_t>(h)],
                 first_phase.host_in_busy_us[static_cast<std::size_t>(h)]) > end)
      return false;
  return true;
}

std::optional<Prediction> periodic(const PredictRequest& q, const CostParams& p);
std::optional<Prediction> split(const PredictRequest& q, const CostParams& p, bool only_where_it_saves);
std::optional<Prediction> ring_tail(const PredictRequest& q, const CostParams& p);

// The symmetric path where it holds, else (automatic) the split one, else the periodic
// one, each where it holds, else the full simulation. `footprint_bytes`, where
// positive, is the host's instead of what the schedules touch.
Prediction predict_direct(const PredictRequest& q, const CostParams& p, PredictMethod method, double footprint_bytes) {
  Built b = prepared(q);
  const CostLayout layout = layout_of(q, b);
  const Symmetry sym = method == PredictMethod::full ? Symmetry{} : find_symmetry(q, b);
  if (sym.kind == Symmetry::Kind::none && method == PredictMethod::symmetric)
    throw std::invalid_argument("--method symmetric does not hold for " + q.algorithm->name +
                                " here: its ranks are not images of each other under a shift or XOR by blocks of " +
                                std::to_string(block_of(q)) + " rank(s) or a doubling of that");
  if (sym.kind == Symmetry::Kind::none && method == PredictMethod::automatic) {
    if (std::optional<Prediction> phases = split(q, p, true)) return *phases;
    if (std::optional<Prediction> line = periodic(q, p)) return *line;
    if (std::optional<Prediction> ring = ring_tail(q, p)) return *ring;
  }
  // Each schedule is built, counted and handed over, then dropped: held all at once,
  // 65,536 of them cost as much to free as to simulate.
  CostSimulation sim(q.ranks, sym, p, layout);
  // An algorithm with a ring-tail path that declined here is told apart: --method
  // ring_tail says why.
  FullSimulationBudget budget(q, method == PredictMethod::full ? "asked for"
                                 : q.algorithm->ring_allgather_head
                                     ? "no symmetry found, and its closing ring allgather's recurrence does not hold "
                                       "here (see --method ring_tail)"
                                     : "no symmetry found");
  if (sym.kind == Symmetry::Kind::none) budget.estimate(b);
  std::size_t footprint = 0;
  const int simulated = sym.kind == Symmetry::Kind::none ? q.ranks : sym.block;
  build_ranks(q, b, 0, simulated, [&](int r, Schedule s, DataflowPlan plan) {
    if (sym.kind == Symmetry::Kind::none) budget.count(r, s);
    footprint = std::max(footprint, footprint_elements(q, s, r));
    sim.add(s, std::move(plan));
  });
  sim.set_host_footprint_bytes(footprint_bytes > 0 ? footprint_bytes : host_footprint_bytes(q, footprint));
  const CostResult r = sim.run();
  Prediction out{.time_us = r.time_us,
                 .method = sym.kind == Symmetry::Kind::none ? PredictMethod::full : PredictMethod::symmetric,
                 .messages = r.messages,
                 .symmetry = {},
                 .seconds = 0};
  if (sym.kind != Symmetry::Kind::none) out.symmetry = describe(sym);
  return out;
}

// The share of the call's transfers and steps after step k, over ranks spread evenly.
double share_after(const PredictRequest& q, const Built& whole, std::size_t k) {
  double after = 0, all = 0;
  for (int r : ranks_spread_evenly(q)) {
    Schedule s = build(q, whole, r);
    all += transfers_and_steps(s);
    after += transfers_and_steps(s, k);
  }
  return all > 0 ? after / all : 1;
}

std::optional<Prediction> periodic(const PredictRequest& q, const CostParams& p) {
  if (!q.algorithm->linear_in_segments) return std::nullopt;
  Built b = prepared(q);
  const std::size_t seg = std::max<std::size_t>(1, q.algorithm->segment_bytes(b.params) / q.element_size);
  if (q.count / seg < kLeastPeriodicSegments) return std::nullopt;
  const std::size_t whole = q.count / seg, rest = q.count % seg;
  // The samples' bytes cost what the whole count's would: rank 0's and the root's buffers.
  std::size_t footprint = 0;
  for (int r : {0, q.root}) footprint = std::max(footprint, footprint_elements(q, build(q, b, r), r));
  const double footprint_bytes = host_footprint_bytes(q, footprint);
  for (const std::size_t k0 : {std::size_t{2}, std::size_t{8}, std::size_t{16}}) {
    const std::size_t ks[4] = {k0, k0 + 1, k0 + 2, k0 + 5};
    if (ks[3] >= whole) break;
    double t[4];
    Prediction last;
    for (int i = 0; i < 4; ++i) {
      PredictRequest sample = q;
      sample.count = rest + ks[i] * seg;
      last = predict_direct(sample, p, PredictMethod::automatic, footprint_bytes);
      t[i] = last.time_us;
    }
    const double d = t[1] - t[0], tolerance = 1e-9 * t[3];
    if (std::abs(t[2] - t[1] - d) > tolerance || std::abs(t[3] - t[2] - 3 * d) > tolerance) continue;
    Prediction out = last;
    out.time_us = t[3] + static_cast<double>(whole - ks[3]) * (t[3] - t[0]) / 5;
    out.method = PredictMethod::periodic;
    out.symmetry = "linear from " + std::to_string(ks[0]) + ", " + std::to_string(ks[1]) + ", " +
                   std::to_string(ks[2]) + " and " + std::to_string(ks[3]) + " whole segments";
    return out;
  }
  return std::nullopt;
}

// The split path: where a call's steps before some step K are symmetric and the rest
// are not (a reduce-scatter by recursive halving, then a gather to the root), the first
// phase is simulated as one block and the rest for every rank. Step by step each rank
// starts its second phase where the first left its mirror in block 0, its own ports free
// by then; a host's link may not be, if another rank of the host is still in its first
// phase (declines), and with shared ports two messages of the second phase matched at
// one instant may share a port otherwise than one simulation of the whole call would
// (declines). In dataflow order every rank's whole schedule runs with its first phase
// replayed from its mirror's trace (CostSimulation::add with a mirror), declined where
// the phases would meet (CostResult::phases_apart), shared ports or receivers copying.
// K is the latest of rank 0's step numbers before which blocks of one host's
// ranks are images (found by halving), or failing the host test an earlier one.
std::optional<Prediction> split(const PredictRequest& q, const CostParams& p, bool only_where_it_saves) {
  const bool steps = q.order == ExecutionOrder::steps;
  // In dataflow order the phases overlap: the second's messages are checked against the
  // ports the first holds, which shared ports and receivers' copying would blur.
  if (q.ranks < 2 || (!steps && (p.shared_ports || p.intra.receiver_copies || p.inter.receiver_copies)))
    return std::nullopt;
  // A first-phase reduction storing over bytes the rank sends within its host in the
  // second phase costs the rewrite: its price would depend on the rank's own second
  // phase, which its mirror's need not share (a gather's sender and its root).
  if (p.prices_rewrite()) return std::nullopt;
  Built whole = prepared(q);
  std::vector<std::size_t> numbers;  // where a first phase may end
  {
    const Schedule& s0 = schedule_of(q, whole, 0);
    for (std::size_t k = 1; k < s0.steps.size(); ++k) numbers.push_back(s0.number(k));
  }
  whole.by_rank.clear();
  if (numbers.empty()) return std::nullopt;
  // Blocks of one host's ranks (or one rank), shifted or XORed, whichever holds longer.
  Symmetry sym;
  std::size_t last = 0;  // the latest first phase that holds
  auto holds_before = [&](std::size_t j, Built& b, const Symmetry& s) {
    b = prepared(q);
    b.before = numbers[j];
    return holds(q, b, s);
  };
  for (auto kind : {Symmetry::Kind::shift, Symmetry::Kind::xor_blocks}) {
    const Symmetry s{kind, block_of(q)};
    Built b;
    if (!holds_before(0, b, s)) continue;
    std::size_t lo = 0;
    for (std::size_t hi = numbers.size() - 1; lo < hi;) {
      const std::size_t mid = (lo + hi + 1) / 2;
      if (holds_before(mid, b, s))
        lo = mid;
      else
        hi = mid - 1;
    }
    if (sym.kind == Symmetry::Kind::none || lo > last) sym = s, last = lo;
  }
  if (sym.kind == Symmetry::Kind::none) return std::nullopt;
  const CostLayout layout = layout_of(q, whole);
  // What the first phase wrote prices the second's sends where the model does.
  const bool written = p.prices_written();
  Built first;
  for (std::size_t j = last + 1; j-- > 0;) {
    if (!holds_before(j, first, sym)) continue;
    const std::size_t k = numbers[j];
    // Where most of the call comes after k (a double binary tree's first steps), the
    // split saves little and a tie would throw its whole simulation away; an earlier K
    // leaves still more.
    if (only_where_it_saves && share_after(q, whole, k) > kMostSplitTail) return std::nullopt;
    Built second = prepared(q);
    second.from = k;
    FullSimulationBudget budget(q, "after step " + std::to_string(k));
    // Every rank's whole schedule counts towards the footprint, as in the full
    // simulation. Step by step its second phase is kept for the tail, which starts it
    // where the head leaves the rank's mirror (made once the head has run); in dataflow
    // order the whole schedule goes to the tail as it is built, its first phase replayed
    // from its mirror's trace.
    std::vector<Schedule> rest(steps ? static_cast<std::size_t>(q.ranks) : 0), done;
    std::vector<Schedule> later_of_block;  // dataflow: block 0's second phases (written sends)
    if (written && steps) done.resize(rest.size());
    std::unique_ptr<CostSimulation> tail;
    std::size_t footprint = 0;
    try {
      budget.estimate(second);  // an earlier K leaves more to simulate in full
      if (steps) {
        for (int r = 0; r < q.ranks; ++r) {
          Schedule s = build(q, whole, r);
          footprint = std::max(footprint, footprint_elements(q, s, r));
          budget.count(r, s, k);
          if (written) done[static_cast<std::size_t>(r)] = phase_of(s, 0, k);
          rest[static_cast<std::size_t>(r)] = phase_of(std::move(s), k, SIZE_MAX);
        }
      } else {
        tail = std::make_unique<CostSimulation>(q.ranks, Symmetry{}, p, layout);
        build_ranks(q, whole, 0, q.ranks, [&](int r, Schedule s, DataflowPlan plan) {
          footprint = std::max(footprint, footprint_elements(q, s, r));
          budget.count(r, s, k);
          if (written && r < sym.block) later_of_block.push_back(phase_of(s, k, SIZE_MAX));
          tail->add(s, std::move(plan), r % sym.block);
        });
      }
    } catch (const std::invalid_argument&) {
      return std::nullopt;  // the paths after this one say so
    }
    CostSimulation head(q.ranks, sym, p, layout);
    if (!steps) head.trace(true);
    // The first phase's sends of bytes the second writes are written ones too.
    for (int r = 0; r < sym.block; ++r) {
      const auto i = static_cast<std::size_t>(r);
      head.add(schedule_of(q, first, r), 0, nullptr, !written ? nullptr : steps ? &rest[i] : &later_of_block[i]);
    }
    head.set_host_footprint_bytes(host_footprint_bytes(q, footprint));
    const CostResult a = head.run();
    if (steps && !hosts_free_between(a, layout, sym.block)) continue;
    if (steps) {
      tail = std::make_unique<CostSimulation>(q.ranks, Symmetry{}, p, layout);
      for (int r = 0; r < q.ranks; ++r) {
        const auto i = static_cast<std::size_t>(r);
        tail->add(rest[i], a.finish_us[i % static_cast<std::size_t>(sym.block)], written ? &done[i] : nullptr);
        rest[i] = {};
        if (written) done[i] = {};
      }
    }
    tail->set_host_footprint_bytes(host_footprint_bytes(q, footprint));
    const CostResult b = tail->run(steps ? nullptr : &a);
    // The full simulation may order ties otherwise; in dataflow order the second phase
    // may have changed the first.
    if ((b.ties_ordered && p.shared_ports) || !b.phases_apart) return std::nullopt;
    return Prediction{.time_us = b.time_us,
                      .method = PredictMethod::split,
                      .messages = a.messages + b.messages,
                      .symmetry = describe(sym) + " before step " + std::to_string(k) + ", then every rank",
                      .seconds = 0};
  }
  return std::nullopt;
}

std::string ring_not_repeating(const PredictRequest& q) {
  return q.algorithm->name + " on " + std::to_string(q.ranks) + " ranks: its ring allgather (" +
         std::to_string(q.ranks - 1) + " steps) did not repeat within " +
         std::to_string(static_cast<long long>(kMostRingTailUpdates)) +
         " rank steps, the most collbench computes (it repeats only where every block has the same size)";
}

std::string describe_ring(const RingTailTimes& ring, int ranks) {
  const std::string steps = std::to_string(ranks - 1);
  if (ring.closed_form)
    return " (in closed form, its blocks with bytes alike: the longest path to each rank's last step)";
  return ring.settled ? " (repeating every " + (ring.period == 1 ? "step" : std::to_string(ring.period) + " steps") +
                            " from step " + std::to_string(ring.repeating_from) + " of " + steps + ")"
                      : " (all " + steps + " steps)";
}

// The ring-tail path in dataflow order: the steps before the ring and the ring's first K
// steps simulated for every rank (K = 1, then 4 times more while a computed message would
// take a port beside a simulated one), the rest by ring_tail_dataflow_times. Declined
// where the steps before the ring run operations (an executor busy with one posts late),
// where a link lets a pair's messages share its bandwidth (a ring send would then overlap
// the one before it to the same peer, which the recurrence takes in turn), or the
// simulated part would be too large.
std::optional<Prediction> ring_tail_dataflow(const PredictRequest& q, const CostParams& p, Built& b,
                                             const RingTail& tail, std::size_t footprint) {
  const int n = q.ranks;
  const std::size_t largest = q.count * q.element_size;
  if (p.shared_ports && (p.intra.pair_shares(largest) || p.inter.pair_shares(largest))) return std::nullopt;
  std::optional<Region> span;
  if (p.prices_written() && !(span = ring_span(tail))) return std::nullopt;
  CostLayout layout = layout_of(q, b);
  struct Touch {
    Region region;
    FlowQueue queue;
    std::size_t item;
  };
  for (std::size_t k = 1;; k *= 4) {
    k = std::min(k, static_cast<std::size_t>(n - 1));
    CostSimulation sim(n, {}, p, layout);
    sim.trace();
    FullSimulationBudget budget(q, "its steps before the ring allgather and " + std::to_string(k) + " ring steps");
    std::vector<std::vector<Touch>> touches(static_cast<std::size_t>(n));
    try {
      for (int r = 0; r < n; ++r) {
        Schedule h;
        const std::size_t first =
            q.algorithm->ring_allgather_head({q.collective, n, r, q.count, q.root, q.element_size, &b.params}, h);
        if (first != tail.first_step) return std::nullopt;
        std::size_t items[kFlowQueues] = {0, 0, 0};
        auto touch = [&](const Region& g, FlowQueue fq) {
          touches[static_cast<std::size_t>(r)].push_back({g, fq, items[static_cast<std::size_t>(fq)]++});
        };
        for (const Step& x : h.steps) {
          if (!x.ops.empty()) return std::nullopt;
          for (const Transfer& t : x.recvs) touch(t.region, FlowQueue::recvs);
          for (const Transfer& t : x.sends) touch(t.region, FlowQueue::sends);
        }
        const int me = (r - q.root + n) % n;
        Schedule ring = ring_steps(tail, me, 0, k);
        for (std::size_t i = 0; i < ring.steps.size(); ++i) {
          h.steps.push_back(std::move(ring.steps[i]));
          h.numbers.push_back(ring.numbers[i]);
        }
        budget.count(r, h);
        footprint = std::max(footprint, footprint_elements(q, h, r));
        if (span) {
          const Schedule later = ring_writes(tail, *span, me);
          sim.add(h, 0, nullptr, &later);
        } else {
          sim.add(h);
        }
      }
    } catch (const std::invalid_argument&) {
      return std::nullopt;
    }
    layout.host_footprint_bytes = host_footprint_bytes(q, footprint);
    sim.set_host_footprint_bytes(layout.host_footprint_bytes);
    CostResult simulated = sim.run();
    std::vector<RingTailRank> ranks(static_cast<std::size_t>(n));
    const std::vector<std::uint32_t> places = places_on_hosts(layout, n);
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      const RankTrace& tr = simulated.ranks[r];
      RingTailRank& x = ranks[r];
      constexpr double kNever = -std::numeric_limits<double>::infinity();
      x.finish_us = simulated.finish_us[r];
      x.send_posted_us = tr.last_posted[static_cast<std::size_t>(FlowQueue::sends)];
      x.recv_posted_us = tr.last_posted[static_cast<std::size_t>(FlowQueue::recvs)];
      // A queue's items through i complete: what an item waiting for item i waits for.
      std::array<std::vector<double>, kFlowQueues> through;
      for (std::size_t fq = 0; fq < kFlowQueues; ++fq) {
        double most = kNever;
        for (double d : tr.done[fq]) through[fq].push_back(most = std::max(most, d));
      }
      const std::vector<double>& recvs = through[static_cast<std::size_t>(FlowQueue::recvs)];
      x.recvs_done_us = recvs.empty() ? kNever : recvs.back();
      for (const Touch& t : touches[r])
        x.touched.emplace_back(t.region, through[static_cast<std::size_t>(t.queue)][t.item]);
      x.out = tr.out, x.in = tr.in, x.core = tr.core;
      x.sends = tr.done[static_cast<std::size_t>(FlowQueue::sends)].size();
      x.recvs = tr.done[static_cast<std::size_t>(FlowQueue::recvs)].size();
      x.local = places[r];
    }
    const std::optional<RingTailDataflow> ring = ring_tail_dataflow_times(
        tail, k, ranks, simulated.host_out, simulated.host_in, p, layout, kMostRingTailUpdates);
    if (!ring)
      throw std::invalid_argument(
          q.algorithm->name + " on " + std::to_string(n) + " ranks: in dataflow order its ring allgather does not " +
          "repeat (the scatter's blocks arrive at different times, and the latest reaches each rank at a different " +
          "step), so every rank's " + std::to_string(n - 1) +
          " ring steps are computed: " + std::to_string(static_cast<long long>(n) * (n - 1)) +
          " rank steps, more than the " + std::to_string(static_cast<long long>(kMostRingTailUpdates)) +
          " collbench computes (--order steps computes it by a repeating recurrence instead)");
    if (!ring->apart) {
      if (k + 1 >= static_cast<std::size_t>(n)) return std::nullopt;
      continue;
    }
    return Prediction{.time_us = ring->times.time_us,
                      .method = PredictMethod::ring_tail,
                      .messages = simulated.messages + ring->times.messages,
                      .symmetry = "steps before " + std::to_string(tail.first_step) + " and the ring's first " +
                                  std::to_string(k) + (k == 1 ? " step" : " steps") +
                                  " for every rank, then the ring by recurrence" + describe_ring(ring->times, n),
                      .seconds = 0};
  }
}

// The ring-tail path: the steps before the ring (a binomial scatter) simulated for every
// rank, then the ring allgather by recurrence from where each rank ended them (in
// dataflow order, ring_tail_dataflow). The ring's blocks are read off the root's whole schedule; sampled ranks'
// whole schedules (the root's neighbours, the first and last ranks, thirds, halves and
// 8 spread evenly) must be their steps before the ring and then exactly the ring's.
// Declined where a ring message between hosts would start while the steps before the
// ring still hold its hosts' links.
std::optional<Prediction> ring_tail(const PredictRequest& q, const CostParams& p) {
  const RingAllgatherHead head_of = q.algorithm->ring_allgather_head;
  const int n = q.ranks;
  // A ring receive into a block the rank forwards within its host costs the rewrite,
  // which the recurrence does not price: declined where the model does.
  // Nor does it follow messages turning both ways as they overlap.
  if (!head_of || n < 2 || p.prices_rewrite() || p.exchanges_as_they_happen()) return std::nullopt;
  Built b = prepared(q);
  auto head = [&](int r, Schedule& h) {
    return head_of({q.collective, n, r, q.count, q.root, q.element_size, &b.params}, h);
  };
  std::size_t footprint = 0;
  std::optional<RingTail> tail;
  {
    Schedule whole = build(q, b, q.root), h;
    const std::size_t first = head(q.root, h);
    tail = ring_tail_of(whole, n, q.root, first);
    if (!tail) return std::nullopt;
    std::set<int> sampled{q.root, (q.root + 1) % n, (q.root + n - 1) % n, 0, 1, n - 1, n / 2, n / 3, 2 * n / 3};
    for (int i = 0; i < 8; ++i) sampled.insert(static_cast<int>(static_cast<long long>(i) * (n - 1) / 7));
    for (int r : sampled) {
      Schedule w = r == q.root ? std::move(whole) : build(q, b, r), hr;
      if (head(r, hr) != first || !follows_ring_tail(*tail, r, w, hr)) return std::nullopt;
      footprint = std::max(footprint, footprint_elements(q, w, r));
    }
  }
  if (q.order != ExecutionOrder::steps) return ring_tail_dataflow(q, p, b, *tail, footprint);
  CostLayout layout = layout_of(q, b);
  CostSimulation sim(n, {}, p, layout);
  FullSimulationBudget budget(q, "its steps before the ring allgather");
  std::vector<bool> written_first(static_cast<std::size_t>(n), false);
  std::optional<Region> span;
  if (p.prices_written() && !(span = ring_span(*tail))) return std::nullopt;
  for (int r = 0; r < n; ++r) {
    Schedule h;
    if (head(r, h) != tail->first_step) return std::nullopt;
    budget.count(r, h);
    footprint = std::max(footprint, footprint_elements(q, h, r));
    const int me = (r - q.root + n) % n;
    written_first[static_cast<std::size_t>(r)] = wrote(h, tail->blocks[static_cast<std::size_t>(me)]);
    // The steps before the ring send written bytes where the ring writes them too.
    if (span) {
      const Schedule later = ring_writes(*tail, *span, me);
      sim.add(h, 0, nullptr, &later);
    } else {
      sim.add(h);
    }
  }
  layout.host_footprint_bytes = host_footprint_bytes(q, footprint);
  sim.set_host_footprint_bytes(layout.host_footprint_bytes);
  const CostResult before = sim.run();
  // A ring message between hosts must not wait for the steps before the ring on the
  // sender's host's way out or the receiver's way in.
  std::vector<double> links_free(static_cast<std::size_t>(n), -std::numeric_limits<double>::infinity());
  for (int r = 0; r < n && !layout.node_of_rank.empty(); ++r) {
    const auto ha = static_cast<std::size_t>(layout.node_of_rank[static_cast<std::size_t>(r)]),
               hz = static_cast<std::size_t>(layout.node_of_rank[static_cast<std::size_t>((r + 1) % n)]);
    if (ha != hz)
      links_free[static_cast<std::size_t>(r)] = std::max(before.host_out_busy_us[ha], before.host_in_busy_us[hz]);
  }
  const std::optional<RingTailTimes> ring =
      ring_tail_times(*tail, before.finish_us, written_first, links_free, p, layout, kMostRingTailUpdates);
  if (ring && ring->hosts_busy) return std::nullopt;
  if (!ring) throw std::invalid_argument(ring_not_repeating(q));
  return Prediction{.time_us = ring->time_us,
                    .method = PredictMethod::ring_tail,
                    .messages = before.messages + ring->messages,
                    .symmetry = "steps before " + std::to_string(tail->first_step) +
                                " for every rank, then the ring by recurrence" + describe_ring(*ring, n),
                    .seconds = 0};
}

}  // namespace

Prediction predict(const PredictRequest& q, const CostParams& p, PredictMethod method) {
  const auto t0 = std::chrono::steady_clock::now();
  Prediction out;
  if (method == PredictMethod::split) {
    std::optional<Prediction> phases = split(q, p, false);
    if (!phases)
      throw std::invalid_argument("--method split does not hold for " + q.algorithm->name +
                                  " here: it needs a first phase whose ranks are images of each other, a second "
                                  "phase small enough to simulate in full, and host links free between the two; in "
                                  "dataflow order also ports not shared, receivers that do not copy, and a second "
                                  "phase that takes no port beside the first");
    out = *phases;
  } else if (method == PredictMethod::periodic) {
    std::optional<Prediction> line = periodic(q, p);
    if (!line)
      throw std::invalid_argument("--method periodic does not hold for " + q.algorithm->name +
                                  " here: it is not pipelined, has fewer than " +
                                  std::to_string(kLeastPeriodicSegments) +
                                  " segments, or its time does not grow by the same amount with each segment");
    out = *line;
  } else if (method == PredictMethod::ring_tail) {
    std::optional<Prediction> ring = ring_tail(q, p);
    if (!ring)
      throw std::invalid_argument(
          "--method ring_tail does not hold for " + q.algorithm->name +
          " here: it needs schedules that end in a ring allgather over every rank "
          "(scatter_allgather), a model without a rewrite cost nor, with shared ports, an exchange "
          "cost, and, step by step, host links "
          "free when the ring starts; in "
          "dataflow order, steps before the ring without operations, links that send a pair's "
          "messages one after another, and few enough ring steps simulated before every ring "
          "message comes after them on its ports");
    out = *ring;
  } else {
    out = predict_direct(q, p, method, 0);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace collbench
