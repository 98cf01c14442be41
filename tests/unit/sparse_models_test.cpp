// The mixture-of-experts and DLRM built-ins: their all-to-alls' sizes from the
// published shapes, the count matrices on a rank count, the refusals, and the
// timeline's blocking all-to-alls.
#include <gtest/gtest.h>

#include "harness/replay/timeline.hpp"
#include "workloads/traffic.hpp"
#include "workloads/workload.hpp"

using namespace collbench;

TEST(MoeWorkload, DroplessSendsTheRoutedTokensFourTimesPerLayerAfterACountExchange) {
  WorkloadOptions o;
  o.layers = 2;
  const Workload w = load_workload("mixtral-8x7b", o);
  ASSERT_EQ(w.all_to_alls.size(), 2u * 5);
  std::size_t routed = 0, counts = 0;
  for (const AllToAllCall& a : w.all_to_alls) {
    if (a.dtype == DType::i64) {
      ++counts;
      EXPECT_EQ(a.elements_per_rank, 8u);
      continue;
    }
    ++routed;
    EXPECT_EQ(a.elements_per_rank, std::size_t{4096} * 2 * 4096);  // tokens x top-2 x hidden
  }
  EXPECT_EQ(routed, 8u);
  EXPECT_EQ(counts, 2u);
  // Forward's before backward's, each in the order it happens.
  for (std::size_t i = 1; i < w.all_to_alls.size(); ++i) {
    const AllToAllCall &a = w.all_to_alls[i - 1], &b = w.all_to_alls[i];
    EXPECT_TRUE(a.backward < b.backward || (a.backward == b.backward && a.position <= b.position));
  }
  // Attention, norms and router of each layer (no experts: they stay on their rank), embeddings, head.
  EXPECT_EQ(w.tensors.size(), 2u * 3 + 3);
}

TEST(MoeWorkload, PaddedSendsEveryExpertsCapacity) {
  WorkloadOptions o;
  o.layers = 1;
  o.moe_style = "padded";
  o.capacity_factor = 1.25;
  const Workload w = load_workload("mixtral-8x7b", o);
  ASSERT_EQ(w.all_to_alls.size(), 4u);
  // C = ceil(4096 / 8 x 1.25 x 2) = 1280 slots per expert.
  EXPECT_EQ(w.all_to_alls[0].elements_per_rank, std::size_t{8} * 1280 * 4096);
  const SharedCounts m = all_to_all_counts(w.all_to_alls[0], 4);
  EXPECT_EQ(summarize_traffic(*m).min, summarize_traffic(*m).max);
}

TEST(MoeWorkload, SkewedRoutingLoadsTheHotExpertsRank) {
  WorkloadOptions o;
  o.layers = 1;
  o.routing = "hot:5:1";  // every token to expert 5, held by rank 2 of 4
  const Workload w = load_workload("mixtral-8x7b", o);
  const SharedCounts m = all_to_all_counts(w.all_to_alls[1], 4);
  EXPECT_EQ(m->recv_total(2), m->total());
  EXPECT_EQ(summarize_traffic(*m).busiest_rank, 2);
}

TEST(MoeWorkload, RefusesExpertsTheRanksCannotShareAndUnknownStyles) {
  const Workload w = load_workload("deepseek-v3");
  EXPECT_EQ(w.all_to_alls.size(), 58u * 5);
  try {
    all_to_all_counts(w.all_to_alls[1], 3);
    ADD_FAILURE() << "256 experts on 3 ranks";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("256 experts cannot be spread evenly over 3 ranks"), std::string::npos);
  }
  WorkloadOptions o;
  o.moe_style = "greedy";
  EXPECT_THROW(load_workload("mixtral-8x7b", o), std::invalid_argument);
  o = {};
  o.routing = "hot:8:0.5";
  EXPECT_THROW(load_workload("mixtral-8x7b", o), std::invalid_argument);
}

TEST(DlrmWorkload, TablesOnUnevenRanksMakeAnAlltoallv) {
  WorkloadOptions o;
  o.batch = 1000;
  const Workload w = load_workload("dlrm-dcnv2", o);
  ASSERT_EQ(w.all_to_alls.size(), 2u);
  const AllToAllCall& a = w.all_to_alls[0];
  EXPECT_EQ(a.elements_per_rank, std::size_t{26} * 1000 * 128);
  const SharedCounts m = all_to_all_counts(a, 4);  // 26 tables: 7, 6, 7, 6 per rank
  EXPECT_EQ(m->total(), 4 * a.elements_per_rank);
  std::size_t tables = 0;
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(m->send_total(r) % (4 * 1000 * 128), 0u);
    tables += m->send_total(r) / (4 * 1000 * 128);
    for (int to = 1; to < 4; ++to) EXPECT_EQ(m->count(r, to), m->count(r, 0));  // same for every receiver
  }
  EXPECT_EQ(tables, 26u);
  EXPECT_NE(m->send_total(0), m->send_total(1));
  EXPECT_THROW(all_to_all_counts(a, 27), std::invalid_argument);  // more ranks than tables
}

TEST(Timeline, BlockingExchangesStopTheComputeAndSkipTheGradientStream) {
  ComputeModel c;
  c.forward_ms = 10;
  c.ready_ms = {20};
  c.backward_ms = {20};
  // A forward all-to-all at 4 ms into forward (3 ms), then a gradient allreduce ready at
  // 5 ms into backward (30 ms), then a backward all-to-all at 8 ms (2 ms), which does
  // not wait for the allreduce.
  const StepTimeline t = lay_out_step(c, {-6, 5, 8}, {3, 30, 2}, {true, false, true});
  EXPECT_DOUBLE_EQ(t.start_ms[0], 4);
  EXPECT_DOUBLE_EQ(t.start_ms[1], 18);  // 10 + 5, 3 later
  EXPECT_DOUBLE_EQ(t.start_ms[2], 21);  // 10 + 8 + 3
  EXPECT_DOUBLE_EQ(t.stalled_ms, 5);
  EXPECT_DOUBLE_EQ(t.blocking_ms, 5);
  EXPECT_DOUBLE_EQ(t.step_ms, 48);  // the allreduce ends at 48; compute (30 + 5 stalled) at 35
}
