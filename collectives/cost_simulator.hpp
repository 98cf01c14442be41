#pragma once
// Predicts a collective's time from its schedules, without running them: every rank's
// steps in step order (a step's transfers are posted together, its operations run when
// they have all completed), each message costing the link's latency plus its bytes at
// the link's inverse bandwidth (Hockney), matched in posting order per pair of ranks as
// the executor matches them. A rank's sends leave one at a time through its port and
// its receives arrive one at a time; messages between hosts also queue for their hosts'
// links, so ranks of one host share its bandwidth. Reductions and copies cost their
// bytes at a per-byte rate. No MPI, no memory of the data: only sizes and times.
#include <cstddef>
#include <vector>

#include "collectives/schedule.hpp"

namespace collbench {

struct LinkCost {
  double alpha_us = 0;      // latency per message
  double us_per_byte = 0;   // 1 / bandwidth
};

struct CostParams {
  LinkCost intra, inter;          // between ranks of one host, and of different hosts
  double reduce_us_per_byte = 0;  // gamma: per byte of a reduction's result
  double copy_us_per_byte = 0;
  double overhead_us = 0;         // per message, on each side's port before its bytes (software)
};

struct CostLayout {
  std::size_t element_size = 4;
  std::vector<int> node_of_rank;  // empty: every rank on one host
};

struct CostResult {
  std::vector<double> finish_us;  // per rank (the symmetric path: one entry)
  double time_us = 0;             // the last rank's finish
  std::size_t messages = 0;
};

// Every rank's schedule (schedules[r] is rank r's). Throws std::runtime_error when the
// schedules cannot complete (a message with no match, or mismatched sizes).
CostResult simulate_schedules(const std::vector<Schedule>& schedules, const CostParams& p, const CostLayout& layout);

// The fast path for rank-symmetric schedules (every rank does what `schedule`'s rank
// does, relabelled, at the same times, and no two ranks' messages share a host link):
// one rank's steps, each peer assumed to mirror it. Exact where that holds.
CostResult simulate_symmetric(const Schedule& schedule, int rank, const CostParams& p, const CostLayout& layout);

}  // namespace collbench
