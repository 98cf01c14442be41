// The harness end to end, in process: a correct algorithm yields zero errors; a
// deliberately broken one is caught by the check and counted.
#include <gtest/gtest.h>
#include <mpi.h>

#include "collectives/mpi/baselines.hpp"
#include "collectives/mpi/transport.hpp"
#include "algorithms/catalog.hpp"
#include "algorithms/catalog.hpp"
#include "harness/run/sweep.hpp"

using namespace collbench;

namespace {
// The ring, but rank 0 forgets its own contribution to the first chunk it reduces.
Schedule broken_ring(const ScheduleRequest& q) {
  Schedule s = build_ring_allreduce(q);
  if (q.rank == 0 && q.nranks > 1 && !s.steps.empty() && !s.steps[0].ops.empty()) s.steps[0].ops[0].kind = LocalOp::Kind::copy;
  return s;
}

RunOptions options(const Registry& r, const std::vector<std::string>& names) {
  RunOptions o;
  for (const auto& n : names) o.algorithms.push_back(r.find(Collective::allreduce, n));
  o.min_bytes = 64;
  o.max_bytes = 64 << 10;
  o.step_factor = 32;
  o.warmup = 1;
  o.iters = 2;
  return o;
}
}  // namespace

TEST(Sweep, CorrectAlgorithmsReportNoErrorsAndBrokenOnesAreCaught) {
  Registry r;
  register_mpi_baselines(r);
  register_reference_algorithms(r);
  r.add({Collective::allreduce, "broken", "test only", broken_ring, {}});
  MpiTransport t(MPI_COMM_WORLD);
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);

  EXPECT_EQ(run_sweep(options(r, {"mpi", "ring"}), r, t, MPI_COMM_WORLD, {}), 0);
  const std::int64_t wrong = run_sweep(options(r, {"broken"}), r, t, MPI_COMM_WORLD, {});
  if (n > 1) EXPECT_GT(wrong, 0);
  else EXPECT_EQ(wrong, 0);

  RunOptions unchecked = options(r, {"broken"});
  unchecked.check = false;
  EXPECT_EQ(run_sweep(unchecked, r, t, MPI_COMM_WORLD, {}), 0) << "--no-check counts nothing";
}
