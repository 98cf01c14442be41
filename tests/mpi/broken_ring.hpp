#pragma once
// The ring allreduce, but rank 0 forgets its own contribution to the first chunk it
// reduces: a wrong algorithm the validation must catch wherever it runs.
#include "algorithms/catalog.hpp"

namespace collbench::test {

inline Schedule broken_ring(const ScheduleRequest& q) {
  Schedule s = build_ring_allreduce(q);
  if (q.rank == 0 && q.nranks > 1 && !s.steps.empty() && !s.steps[0].ops.empty())
    s.steps[0].ops[0].kind = LocalOp::Kind::copy;
  return s;
}

}  // namespace collbench::test
