#pragma once
// How a sweep times one algorithm at one size: how many calls (by size, as OSU does,
// within a time budget), how each call is timed, how ranks' times are combined, and
// which timed calls have their results checked.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collectives/names.hpp"
#include "collectives/schedule/registry.hpp"

namespace collbench {

enum class TimingPolicy { per_call, loop };
inline constexpr NameTable<TimingPolicy, 2> kTimingPolicyNames{
    {{{TimingPolicy::per_call, "per-call"}, {TimingPolicy::loop, "loop"}}}};

// How the ranks' times for the same calls become one series (nccl-tests' -a choices;
// `mean` is OSU's "Avg Latency": the mean over ranks of each rank's mean).
enum class RankAggregate { max, mean, min, rank0 };
inline constexpr NameTable<RankAggregate, 4> kRankAggregateNames{{{{RankAggregate::max, "max"},
                                                                   {RankAggregate::mean, "mean"},
                                                                   {RankAggregate::min, "min"},
                                                                   {RankAggregate::rank0, "rank0"}}}};

// What the policy times and how ranks are combined, as the table header and metadata state it.
std::string timing_policy_text(TimingPolicy t, RankAggregate a);

// Calls per algorithm, size and round. `kAuto` counts follow OSU: 100 warm-up and 1000
// timed calls up to 8 KiB, 10 and 100 above; the timed calls of one algorithm and size
// then get at most `budget_s` seconds in all rounds together (estimated from the
// warm-up), and never fewer than `min_iters` per round (10; fewer where a call takes
// seconds, as on slow links). Explicit counts always win.
struct Repetitions {
  static constexpr int kAuto = -1;
  static constexpr std::size_t kSmallBytes = 8192;
  int warmup = kAuto;
  int iters = kAuto;
  int rounds = 1;  // each round times every algorithm in turn
  double budget_s = 1.0;
  int min_iters = 10;
  int warmup_at(std::size_t bytes) const;
  // `call_s`: the estimated time of one call (0: unknown, no budget applies).
  int iters_at(std::size_t bytes, double call_s) const;
};
std::string repetitions_text(const Repetitions& r);

// Checks of timed calls' results. A checked call is prepared before and checked after,
// outside the measured time: the last timed call of every round, and every `every`-th.
struct CallCheck {
  int every = 0;
  std::function<void()> prepare;                 // reloads inputs, poisons the output
  std::function<std::int64_t()> wrong_elements;  // on this rank
};

struct TimedCalls {
  std::vector<double> seconds;  // per timed call, combined over ranks (same on all ranks)
  int warmup = 0;
  int checked = 0;         // timed calls whose result was checked
  std::int64_t wrong = 0;  // wrong elements this rank found in them
};

// Runs `calls` untimed calls; returns the mean seconds of the second half's (0 for none).
double warm_up(int calls, const std::function<void()>& call);

// Runs the warm-up calls, then the timed calls under `policy`, combined over ranks by
// `aggregate`. `check` may be null (no checks). Collective over `comm`.
// Whether the barrier before each timed call yields the core while it waits (set where
// ranks outnumber the cores; MPI_Barrier otherwise).
void set_barrier_yields(bool yields);

TimedCalls time_calls(PreparedCollective& call, std::size_t bytes, const Repetitions& reps, TimingPolicy policy,
                      RankAggregate aggregate, const CallCheck* check, MPI_Comm comm);

}  // namespace collbench
