#include "harness/common/timing.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>

#include "collectives/process/progress.hpp"
#include "harness/common/control.hpp"

namespace collbench {
namespace {

bool barrier_yields = false;

// The untimed barrier before a call. MPI_Barrier busy-polls; where ranks outnumber the
// cores, a rank spinning there holds a core its peer needs until the scheduler's tick
// (4 ms here) preempts it, and every small call measures that tick. Polling a
// non-blocking barrier and yielding between polls lets the peer run at once.
void barrier(MPI_Comm comm) {
  if (!barrier_yields) {
    MPI_Barrier(comm);
    return;
  }
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &r);
  for (int done = 0;; sched_yield()) {
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    if (done) return;
  }
}

}  // namespace

void set_barrier_yields(bool yields) { barrier_yields = yields; }
namespace {

// One rank's whole series, on every rank.
std::vector<double> series_of(int owner, const std::vector<double>& mine, MPI_Comm comm) {
  std::string bytes = doubles_to_bytes(mine);
  control_broadcast(bytes, owner, comm);
  return bytes_to_doubles(bytes);
}

// The rank whose series has the largest (`slowest`) or smallest total.
int rank_by_total(const std::vector<double>& t, bool slowest, MPI_Comm comm) {
  std::vector<double> totals(static_cast<std::size_t>(size_of(comm)), 0.0);
  totals[static_cast<std::size_t>(rank_of(comm))] = std::accumulate(t.begin(), t.end(), 0.0);
  control_allreduce(
      totals, [](double a, double b) { return a + b; }, comm);
  const auto it =
      slowest ? std::max_element(totals.begin(), totals.end()) : std::min_element(totals.begin(), totals.end());
  return static_cast<int>(it - totals.begin());
}

std::vector<double> combine_ranks(std::vector<double> t, TimingPolicy policy, RankAggregate a, MPI_Comm comm) {
  switch (a) {
    case RankAggregate::rank0: return series_of(0, t, comm);
    case RankAggregate::mean: {
      control_allreduce(
          t, [](double x, double y) { return x + y; }, comm);
      for (double& x : t) x /= size_of(comm);
      return t;
    }
    case RankAggregate::max:
    case RankAggregate::min: {
      const bool max = a == RankAggregate::max;
      // Calls of a loop are not aligned across ranks, so a loop reports one rank's own
      // series: its mean is exactly what a plain loop timed on that rank gives.
      if (policy == TimingPolicy::loop) return series_of(rank_by_total(t, max, comm), t, comm);
      control_allreduce(
          t, [max](double x, double y) { return max ? std::max(x, y) : std::min(x, y); }, comm);
      return t;
    }
  }
  return t;
}

}  // namespace

std::string timing_policy_text(TimingPolicy t, RankAggregate a) {
  std::string what;
  if (t == TimingPolicy::loop)
    what =
        "one barrier, then the timed calls back to back (as nccl-tests and a plain MPI_Wtime loop); "
        "a rank's time for a call is the gap between consecutive completions; ranks combined: ";
  else
    what =
        "a barrier (not timed) before every call; each call timed alone on every rank (as the OSU "
        "benchmarks); ranks combined: ";
  switch (a) {
    case RankAggregate::max:
      return what + (t == TimingPolicy::loop ? "max, the series of the slowest rank (largest total; nccl-tests -a 3)"
                                             : "max, each call's slowest rank");
    case RankAggregate::min:
      return what + (t == TimingPolicy::loop ? "min, the series of the fastest rank (smallest total; nccl-tests -a 2)"
                                             : "min, each call's fastest rank");
    case RankAggregate::mean:
      return what +
             "mean, each call's mean over ranks (so avg_us is the mean over ranks of each rank's mean, "
             "OSU's 'Avg Latency' and nccl-tests -a 1)";
    case RankAggregate::rank0: return what + "rank0, rank 0's own times (nccl-tests -a 0)";
  }
  return what;
}

int Repetitions::warmup_at(std::size_t bytes) const {
  if (warmup != kAuto) return warmup;
  return bytes <= kSmallBytes ? 100 : 10;
}

int Repetitions::iters_at(std::size_t bytes, double call_s) const {
  if (iters != kAuto) return iters;
  const int by_size = bytes <= kSmallBytes ? 1000 : 100;
  if (!(call_s > 0) || !(budget_s > 0)) return by_size;
  const double affordable = budget_s / call_s / rounds;
  return std::clamp(static_cast<int>(std::min<double>(affordable, by_size)), std::min(min_iters, by_size), by_size);
}

std::string repetitions_text(const Repetitions& r) {
  const std::string warmup = r.warmup == Repetitions::kAuto ? "100 warm-up calls up to 8 KiB and 10 above"
                                                            : std::to_string(r.warmup) + " warm-up calls";
  std::string timed;
  if (r.iters == Repetitions::kAuto) {
    char budget[32];
    std::snprintf(budget, sizeof budget, "%g", r.budget_s);
    timed = "1000 timed calls up to 8 KiB and 100 above (as OSU), cut to fit " + std::string(budget) +
            " s per algorithm and size as estimated from the warm-up, at least " + std::to_string(r.min_iters) +
            " per round";
  } else {
    timed = std::to_string(r.iters) + " timed calls";
  }
  return warmup + "; " + timed + "; per algorithm and size, x " + std::to_string(r.rounds) +
         " round(s) interleaving the algorithms";
}

double warm_up(int calls, const std::function<void()>& call) {
  // The second half estimates a call, once the first calls' setup is past.
  const int half = calls / 2;
  double half_start = MPI_Wtime();
  for (int i = 0; i < calls; ++i) {
    progress::set_call("warm-up call", i, calls);
    if (i == half) half_start = MPI_Wtime();
    call();
  }
  return calls > half ? (MPI_Wtime() - half_start) / (calls - half) : 0;
}

TimedCalls time_calls(PreparedCollective& call, std::size_t bytes, const Repetitions& reps, TimingPolicy policy,
                      RankAggregate aggregate, const CallCheck* check, MPI_Comm comm) {
  TimedCalls out;
  out.warmup = reps.warmup_at(bytes);
  const double warm_s = warm_up(out.warmup, [&] { call.run(); });
  double call_s = 0;
  if (reps.iters == Repetitions::kAuto && out.warmup > 0) {
    std::vector<double> estimate{warm_s};
    control_allreduce(
        estimate, [](double a, double b) { return std::max(a, b); }, comm);
    call_s = estimate[0];
  }
  const int iters = reps.iters_at(bytes, call_s);

  auto checked = [&](int i) { return check && (i == iters - 1 || (check->every > 0 && (i + 1) % check->every == 0)); };
  auto verify = [&] {
    out.wrong += check->wrong_elements();
    ++out.checked;
    progress::beat();
  };
  std::vector<double> t(static_cast<std::size_t>(iters));
  const bool prepares = call.prepares_each_call();
  barrier(comm);
  double prev = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    const bool check_this = checked(i);
    progress::set_call("timed call", i, iters);
    if (check_this) check->prepare();
    if (prepares) call.before_call();
    // A loop's calls are timed back to back; around a checked or prepared one the ranks
    // meet again, so no rank's check or preparation shows up in another rank's time.
    if (policy == TimingPolicy::per_call || check_this || prepares) {
      barrier(comm);
      prev = MPI_Wtime();
    }
    call.run();
    const double now = MPI_Wtime();
    t[static_cast<std::size_t>(i)] = now - prev;
    prev = now;
    if (check_this) {
      verify();
      if (policy == TimingPolicy::loop && i + 1 < iters) {
        barrier(comm);
        prev = MPI_Wtime();
      }
    }
  }
  out.seconds = combine_ranks(std::move(t), policy, aggregate, comm);
  return out;
}

}  // namespace collbench
