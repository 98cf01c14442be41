// What makes the numbers trustworthy without MPI: call counts by size and budget,
// outlier counting, and who is blamed for wrong results.
#include <gtest/gtest.h>

#include "harness/common/stats.hpp"
#include "harness/common/timing.hpp"
#include "harness/run/sweep_errors.hpp"

using namespace collbench;

TEST(Repetitions, AutoCountsFollowOsuBySize) {
  const Repetitions r;
  EXPECT_EQ(r.warmup_at(8), 100);
  EXPECT_EQ(r.warmup_at(8192), 100);
  EXPECT_EQ(r.warmup_at(8196), 10);
  EXPECT_EQ(r.iters_at(1024, 0), 1000) << "no estimate: no budget";
  EXPECT_EQ(r.iters_at(1 << 20, 0), 100);
  EXPECT_EQ(r.iters_at(1024, 1e-6), 1000) << "1 ms of calls fits the 1 s budget";
}

TEST(Repetitions, BudgetCutsSlowSizesButKeepsAMinimum) {
  Repetitions r;
  EXPECT_EQ(r.iters_at(64 << 20, 0.025), 40) << "1 s / 25 ms";
  r.rounds = 4;
  EXPECT_EQ(r.iters_at(64 << 20, 0.025), 10) << "the budget is shared by the rounds";
  EXPECT_EQ(r.iters_at(64 << 20, 1.0), 10) << "at least 10 calls per round";
  r.min_iters = 3;
  EXPECT_EQ(r.iters_at(64 << 20, 1.0), 3) << "--min-iters: fewer where a call takes seconds";
  EXPECT_EQ(r.iters_at(64 << 20, 0.025), 10) << "the floor only where the budget cuts deeper";
  r.budget_s = 0;
  EXPECT_EQ(r.iters_at(64 << 20, 1.0), 100) << "0: no limit";
  r.iters = 7;
  r.warmup = 3;
  EXPECT_EQ(r.iters_at(64 << 20, 1.0), 7) << "explicit counts win";
  EXPECT_EQ(r.warmup_at(8), 3);
}

TEST(Stats, OutliersAreCallsFarAboveTheMedian) {
  std::vector<double> t(99, 10.0);
  EXPECT_EQ(count_outliers(t, percentile(t, 50)), 0);
  t.push_back(30e6);  // a rank stopped for 30 s
  EXPECT_EQ(count_outliers(t, percentile(t, 50)), 1);
  t.push_back(200.0);  // exactly 20x is not an outlier
  EXPECT_EQ(count_outliers(t, percentile(t, 50)), 1);
}

TEST(Stats, AStallOfARetransmissionAtLargeSizesIsAnOutlier) {
  // 16 MiB over 1 Gbit/s: 180 ms calls; a link down for 2 s stalls one call for ~3 s.
  std::vector<double> t(20, 180e3);
  t.push_back(3.1e6);
  EXPECT_EQ(count_outliers(t, percentile(t, 50)), 1);
  EXPECT_TRUE(is_outlier(180e3 * 3.1, 180e3)) << "over 3x and 0.38 s beyond";
  EXPECT_FALSE(is_outlier(60e3 * 4, 60e3)) << "4x but only 0.18 s beyond";
  EXPECT_FALSE(is_outlier(180e3 * 2.9, 180e3)) << "0.34 s beyond, but under 3x";
  EXPECT_TRUE(is_outlier(50e3 * 19, 50e3)) << "19x, under the 20x rule, but 0.9 s beyond";
  EXPECT_FALSE(is_outlier(10e6 * 1.5, 10e6)) << "a 10 s call 5 s slower: only 1.5x, ordinary spread at 1 GiB";
  EXPECT_FALSE(is_outlier(5000, 1000)) << "5x but 4 ms beyond: a scheduler tick, not a stall";
}

TEST(SweepErrors, BlamesTheLibraryWhenOnlyItsRowsAreWrong) {
  SweepErrors e{{{"mpi", true, 3}, {"ring", false, 0}, {"tree", false, 0}}};
  EXPECT_EQ(e.total(), 3);
  EXPECT_EQ(e.blame("MPI_Allreduce"),
            "the MPI library returned wrong results: 3 wrong element(s) from MPI_Allreduce (mpi rows); every "
            "reference algorithm, which uses only MPI point-to-point, was right");
}

TEST(SweepErrors, BlamesAnAlgorithmWhenTheLibraryWasRight) {
  SweepErrors e{{{"mpi", true, 0}, {"ring", false, 5}, {"tree", false, 0}}};
  EXPECT_EQ(e.blame("MPI_Allreduce"), "5 wrong element(s) from ring, while MPI_Allreduce was right on the same inputs");
  SweepErrors all{{{"mpi", true, 0}, {"ring", false, 5}, {"tree", false, 1}}};
  EXPECT_NE(all.blame("MPI_Allreduce").find("suspect MPI point-to-point"), std::string::npos);
  SweepErrors none{{{"mpi", true, 0}, {"ring", false, 0}}};
  EXPECT_EQ(none.blame("MPI_Allreduce"), "");
}
