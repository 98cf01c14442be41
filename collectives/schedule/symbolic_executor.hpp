#pragma once
// Plays the schedules of all ranks together, without MPI. Every element carries the
// index it stands for and the set of ranks whose contribution it holds, so the check
// catches unmatched or mis-sized messages, races inside a step, double-counted or
// missing contributions and elements landing in the wrong place.
#include <cstddef>
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/schedule/schedule.hpp"

namespace collbench {

struct SymbolicReport {
  std::vector<std::string> errors;         // at most kMaxErrors, then a final "..." line
  std::vector<std::size_t> elements_sent;  // per rank
  std::vector<std::size_t> elements_received;
  std::size_t max_steps = 0;
  bool ok() const { return errors.empty(); }
  static constexpr std::size_t kMaxErrors = 20;
};

struct SymbolicProblem {
  Collective collective = Collective::allreduce;
  int nranks = 1;
  std::size_t count = 0;
  int root = 0;
  bool in_place = false;
  const CountMatrix* counts = nullptr;  // alltoallv's matrix
};

// Plays the given per-rank schedules (schedules[r] is rank r's) in one execution
// order: step by step, or in dataflow order, where each rank starts whatever its plan
// allows and transfers complete as late as possible; there the player also catches
// reads of a region a posted receive has not filled yet and writes to a region still
// being sent, and reports a deadlock.
SymbolicReport play_schedules(const SymbolicProblem& p, const std::vector<Schedule>& schedules,
                              ExecutionOrder order = ExecutionOrder::steps);

// Builds every rank's schedule with `build` and plays them in both orders (the
// dataflow order only if the step order passed).
SymbolicReport verify_builder(const SymbolicProblem& p, ScheduleBuilder build, const AlgorithmParams& params = {});

}  // namespace collbench
