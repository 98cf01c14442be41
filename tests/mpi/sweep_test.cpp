// The harness end to end, in process: a correct algorithm yields zero errors; a
// deliberately broken one is caught by the check and counted.
#include <gtest/gtest.h>
#include <mpi.h>

#include "algorithms/catalog.hpp"
#include "harness/common/default_registry.hpp"
#include "harness/common/session.hpp"
#include "harness/run/sweep.hpp"

using namespace collbench;

namespace {
// The ring, but rank 0 forgets its own contribution to the first chunk it reduces.
Schedule broken_ring(const ScheduleRequest& q) {
  Schedule s = build_ring_allreduce(q);
  if (q.rank == 0 && q.nranks > 1 && !s.steps.empty() && !s.steps[0].ops.empty()) s.steps[0].ops[0].kind = LocalOp::Kind::copy;
  return s;
}

SweepSpec options(const Registry& r, const std::vector<std::string>& names) {
  SweepSpec o;
  for (const auto& n : names) o.algorithms.push_back(r.find(Collective::allreduce, n));
  o.sizes.min_bytes = 64;
  o.sizes.max_bytes = 64 << 10;
  o.sizes.step_factor = 32;
  o.reps.warmup = 1;
  o.reps.iters = 2;
  return o;
}
}  // namespace

TEST(Sweep, CorrectAlgorithmsReportNoErrorsAndBrokenOnesAreCaught) {
  Registry r = default_registry();
  r.add({Collective::allreduce, "broken", "test only", broken_ring, {}});
  Session session(r, MPI_COMM_WORLD, 0);
  ResultSink discard;
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);

  EXPECT_EQ(run_sweep(options(r, {"mpi", "ring"}), session, discard), 0);
  const std::int64_t wrong = run_sweep(options(r, {"broken"}), session, discard);
  if (n > 1) EXPECT_GT(wrong, 0);
  else EXPECT_EQ(wrong, 0);

  SweepSpec unchecked = options(r, {"broken"});
  unchecked.check = false;
  EXPECT_EQ(run_sweep(unchecked, session, discard), 0) << "--no-check counts nothing";
}
