// The parameter server's pure parts: roles, partitioning, the staleness rule, SGD and
// the sparse-row checks.
#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

#include "algorithms/parameter_server/plan.hpp"

using namespace collbench;

namespace {
PsConfig dense(std::size_t elements, std::size_t partition_bytes, PsAssignment a = PsAssignment::round_robin) {
  PsConfig c;
  c.partition_bytes = partition_bytes;
  c.assignment = a;
  c.tensors = {{"w", elements, 1, false}};
  return c;
}
}  // namespace

TEST(PsRoles, LastRanksServeAndBadCountsAreRefused) {
  const PsRoles r = ps_roles(5, 2);
  EXPECT_EQ(r.workers(), 3);
  EXPECT_FALSE(r.is_server(2));
  EXPECT_TRUE(r.is_server(3));
  EXPECT_EQ(r.server_rank(1), 4);
  EXPECT_EQ(r.server_index(4), 1);
  EXPECT_THROW(ps_roles(4, 0), std::invalid_argument);
  EXPECT_THROW(ps_roles(4, 4), std::invalid_argument);
  EXPECT_THROW(ps_roles(1, 1), std::invalid_argument);
}

TEST(PsPlan, RoundRobinCutsTensorsIntoPartitionsAndDealsThemInOrder) {
  // 1000 f32 = 4000 B in partitions of at most 1024 B (256 elements): 256,256,256,232.
  const PsPlan p = make_ps_plan(dense(1000, 1024), 3);
  ASSERT_EQ(p.partitions.size(), 4u);
  EXPECT_EQ(p.partitions[3].first_row, 768u);
  EXPECT_EQ(p.partitions[3].rows, 232u);
  EXPECT_EQ(p.partitions[0].server, 0);
  EXPECT_EQ(p.partitions[2].server, 2);
  EXPECT_EQ(p.partitions[3].server, 0);
  EXPECT_EQ(p.server_bytes, (std::vector<std::size_t>{(256 + 232) * 4, 256 * 4, 256 * 4}));
  EXPECT_DOUBLE_EQ(p.imbalance(), (256.0 + 232) * 4 / (4000.0 / 3));
  EXPECT_EQ(p.partition_of(0, 767), 2u);
  EXPECT_EQ(p.partition_of(0, 768), 3u);
}

TEST(PsPlan, DefaultPartitionIsBytePSsAndSparseRowsStayWhole) {
  PsConfig c;
  EXPECT_EQ(c.partition_bytes, 4096000u);
  c.partition_bytes = 100;
  c.tensors = {{"emb", 10, 8, true}};  // 32-byte rows: 3 whole rows per partition
  const PsPlan p = make_ps_plan(c, 2);
  ASSERT_EQ(p.partitions.size(), 4u);
  EXPECT_EQ(p.rows_per_partition[0], 3u);
  EXPECT_EQ(p.partitions[3].rows, 1u);
  c.partition_bytes = 8;  // smaller than a row: one row each, never a split row
  EXPECT_EQ(make_ps_plan(c, 2).partitions.size(), 10u);
}

TEST(PsPlan, HashAssignmentIsDeterministicCoversEveryByteAndMayBeUneven) {
  const PsPlan a = make_ps_plan(dense(1 << 16, 1024, PsAssignment::hash), 3);
  const PsPlan b = make_ps_plan(dense(1 << 16, 1024, PsAssignment::hash), 3);
  ASSERT_EQ(a.partitions.size(), 256u);
  for (std::size_t i = 0; i < a.partitions.size(); ++i) EXPECT_EQ(a.partitions[i].server, b.partitions[i].server);
  EXPECT_EQ(std::accumulate(a.server_bytes.begin(), a.server_bytes.end(), std::size_t{0}), std::size_t{1} << 18);
  for (std::size_t bytes : a.server_bytes) EXPECT_GT(bytes, 0u);
  EXPECT_GT(a.imbalance(), 1.0);  // round-robin would be exactly even here
  EXPECT_DOUBLE_EQ(make_ps_plan(dense(1 << 16, 1024), 4).imbalance(), 1.0);
}

TEST(PsPlan, MultipleTensorsAndBadModelsAreRefused) {
  PsConfig c = dense(10, 16);
  c.tensors.push_back({"emb", 4, 2, true});
  const PsPlan p = make_ps_plan(c, 2);
  EXPECT_EQ(p.first_partition, (std::vector<std::size_t>{0, 3, 5}));
  EXPECT_EQ(p.partition_of(1, 3), 4u);
  EXPECT_EQ(p.sparse_tensors, (std::vector<std::size_t>{1}));
  EXPECT_EQ(p.dense_partitions, (std::vector<std::vector<std::size_t>>{{0, 2}, {1}}));
  EXPECT_EQ(p.partitions[3].elements(), 4u);  // two rows of two elements
  EXPECT_THROW(make_ps_plan(PsConfig{}, 1), std::invalid_argument);
  EXPECT_THROW(make_ps_plan(dense(0, 16), 1), std::invalid_argument);
  EXPECT_THROW(make_ps_plan(dense(10, 0), 1), std::invalid_argument);
}

TEST(PsPlan, DefinitionsDifferWhenAnythingThatMustAgreeDiffers) {
  const PsConfig base = dense(100, 64);
  EXPECT_EQ(ps_definition(base, 2), ps_definition(dense(100, 64), 2));
  EXPECT_NE(ps_definition(base, 2), ps_definition(base, 3));
  EXPECT_NE(ps_definition(base, 2), ps_definition(dense(101, 64), 2));
  EXPECT_NE(ps_definition(base, 2), ps_definition(dense(100, 128), 2));
  PsConfig other = base;
  other.mode = PsMode::async;
  EXPECT_NE(ps_definition(base, 2), ps_definition(other, 2));
}

TEST(PsStaleness, SyncWaitsForTheAppliedStepAsyncNeverWaitsBoundedAllowsS) {
  // A worker that has pushed 5 steps pulls.
  EXPECT_FALSE(ps_pull_may_proceed(PsMode::sync, 0, 5, 5, 4));
  EXPECT_TRUE(ps_pull_may_proceed(PsMode::sync, 0, 5, 5, 5));
  EXPECT_TRUE(ps_pull_may_proceed(PsMode::async, 0, 5, 0, 0));
  EXPECT_TRUE(ps_pull_may_proceed(PsMode::bounded, 2, 5, 3, 0));   // 2 ahead, bound 2
  EXPECT_FALSE(ps_pull_may_proceed(PsMode::bounded, 2, 5, 2, 0));  // 3 ahead
  EXPECT_TRUE(ps_pull_may_proceed(PsMode::bounded, 0, 5, 5, 0));   // s = 0 is lock-step
  EXPECT_FALSE(ps_pull_may_proceed(PsMode::bounded, 0, 5, 4, 0));
  EXPECT_EQ(ps_pull_staleness(5, 3), 2);
  EXPECT_EQ(ps_pull_staleness(5, 7), 0);
}

TEST(PsSgd, UpdatesInTheParametersType) {
  std::vector<float> p{1, 2, 3}, g{10, -10, 0};
  sgd_update(DType::f32, p.data(), g.data(), 3, 0.5);
  EXPECT_EQ(p, (std::vector<float>{-4, 7, 3}));
  std::vector<double> pd{1}, gd{3};
  sgd_update(DType::f64, pd.data(), gd.data(), 1, 0.1);
  EXPECT_DOUBLE_EQ(pd[0], 1 - 0.1 * 3);
  EXPECT_THROW(require_ps_dtype(DType::f16), std::invalid_argument);
  EXPECT_THROW(require_ps_dtype(DType::i32), std::invalid_argument);
}

TEST(PsSparse, RowsMustBeInRangeAndUnique) {
  EXPECT_EQ(sparse_indices_problem({0, 3, 9}, 10), "");
  EXPECT_EQ(sparse_indices_problem({}, 10), "");
  EXPECT_EQ(sparse_indices_problem({0, 10}, 10), "sparse row index 10 is out of range for a table of 10 rows");
  EXPECT_EQ(sparse_indices_problem({4, 1, 4}, 10), "sparse row index 4 appears more than once in one push");
}
