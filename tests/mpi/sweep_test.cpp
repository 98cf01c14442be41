// The harness end to end, in process: a correct algorithm yields zero errors; a
// deliberately broken one is caught by the check and counted.
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>

#include "algorithms/catalog.hpp"
#include "harness/common/default_registry.hpp"
#include "harness/common/session.hpp"
#include "harness/run/sweep.hpp"
#include "tests/mpi/broken_ring.hpp"
#include "tests/mpi/oversubscribed.hpp"

using namespace collbench;

namespace {
// MPI_Allreduce, but every third call of a prepared call leaves rank 0's first element wrong.
class SometimesWrong : public PreparedCollective {
 public:
  explicit SometimesWrong(const CollectiveCall& c) : c_(c) {}
  void run() override {
    MPI_Allreduce(c_.send, c_.recv, static_cast<int>(c_.count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (++calls_ % 3 == 0 && rank == 0) static_cast<float*>(c_.recv)[0] += 1000;
  }

 private:
  CollectiveCall c_;
  int calls_ = 0;
};

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
  r.add({Collective::allreduce, "broken", "test only", test::broken_ring, {}});
  Session session(r, MPI_COMM_WORLD, 0);
  yield_where_oversubscribed(session.transport);
  ResultSink discard;
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);

  EXPECT_EQ(run_sweep(options(r, {"mpi", "ring"}), session, discard).total(), 0);
  const std::int64_t wrong = run_sweep(options(r, {"broken"}), session, discard).total();
  if (n > 1)
    EXPECT_GT(wrong, 0);
  else
    EXPECT_EQ(wrong, 0);

  SweepSpec unchecked = options(r, {"broken"});
  unchecked.check = false;
  EXPECT_EQ(run_sweep(unchecked, session, discard).total(), 0) << "--no-check counts nothing";
}

TEST(Sweep, TimedCallsAreCheckedAndALibraryIsBlamedAlone) {
  Registry r = default_registry();
  AlgorithmEntry flaky{Collective::allreduce, "flaky-library", "test only", nullptr, {}};
  flaky.prepare_library = [](const CollectiveCall& c, Transport&) { return std::make_unique<SometimesWrong>(c); };
  r.add(flaky);
  Session session(r, MPI_COMM_WORLD, 0);
  yield_where_oversubscribed(session.transport);
  ResultSink discard;
  // One size; calls: 1 untimed check, then 6 timed. Calls 3 and 6 are wrong; the
  // checked ones are the untimed one and the last timed one (call 7) unless asked.
  SweepSpec o = options(r, {"flaky-library", "ring"});
  o.sizes.max_bytes = o.sizes.min_bytes;
  o.reps.warmup = 0;
  o.reps.iters = 6;
  EXPECT_EQ(run_sweep(o, session, discard).total(), 0) << "a fault in an unchecked call goes unseen";
  o.check_every = 1;
  const SweepErrors e = run_sweep(o, session, discard);
  ASSERT_EQ(e.algorithms.size(), 2u);
  EXPECT_EQ(e.algorithms[0].wrong, 2) << "calls 3 and 6, one element each";
  EXPECT_TRUE(e.algorithms[0].library);
  EXPECT_EQ(e.algorithms[1].wrong, 0) << "ring is checked against exact values, not against the library";
  EXPECT_NE(e.blame("MPI_Allreduce").find("the MPI library returned wrong results"), std::string::npos);
}
