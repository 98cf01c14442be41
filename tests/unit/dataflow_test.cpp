// The dependency rules that let the executor overlap steps (collectives/schedule/dataflow.hpp):
// each test names one rule and a schedule where breaking it would change the plan.
#include <gtest/gtest.h>

#include "algorithms/catalog.hpp"
#include "collectives/schedule/dataflow.hpp"
#include "collectives/schedule/registry.hpp"
#include "tests/unit/small_regions.hpp"

using namespace collbench;
using namespace collbench::test;

namespace {

constexpr std::ptrdiff_t kNone = -1;

// Step 0: receive into scratch[0,4) and fold it into recv[0,4). Step 1 is up to the test.
Schedule receive_then_reduce() {
  Schedule s;
  s.scratch_count = 8;
  s.steps.resize(2);
  s.steps[0].recvs.push_back({1, scratch(0)});
  s.steps[0].ops.push_back(reduce_op(recv(0), send(0), scratch(0)));
  return s;
}

std::ptrdiff_t after(const DataflowPlan& p, FlowQueue q, std::size_t item, FlowQueue on) {
  return p.of(q).at(item).after[static_cast<std::size_t>(on)];
}

}  // namespace

TEST(Dataflow, AReceiveWaitsForTheOperationStillReadingItsRegion) {
  Schedule s = receive_then_reduce();
  s.steps[1].recvs.push_back({1, scratch(0)});
  EXPECT_EQ(after(plan_dataflow(s, kOutOfPlace), FlowQueue::recvs, 1, FlowQueue::ops), 0);
}

TEST(Dataflow, AReceiveIntoAnotherRegionStartsBeforeThePreviousStepsOperations) {
  Schedule s = receive_then_reduce();
  s.steps[1].recvs.push_back({1, scratch(4)});
  const DataflowPlan p = plan_dataflow(s, kOutOfPlace);
  EXPECT_EQ(after(p, FlowQueue::recvs, 1, FlowQueue::ops), kNone);
  EXPECT_EQ(after(p, FlowQueue::recvs, 1, FlowQueue::recvs), kNone);
}

TEST(Dataflow, ASendWaitsForTheOperationThatWritesItsData) {
  Schedule s = receive_then_reduce();
  s.steps[1].sends.push_back({1, recv(0)});
  EXPECT_EQ(after(plan_dataflow(s, kOutOfPlace), FlowQueue::sends, 0, FlowQueue::ops), 0);
}

TEST(Dataflow, AnOperationWaitsOnlyForTheReceivesItReads) {
  Schedule s;
  s.scratch_count = 8;
  s.steps.resize(1);
  s.steps[0].recvs = {{1, scratch(0)}, {2, scratch(4)}};
  s.steps[0].ops.push_back(reduce_op(recv(0), send(0), scratch(0)));
  s.steps[0].ops.push_back(reduce_op(recv(4), send(4), scratch(4)));
  const DataflowPlan p = plan_dataflow(s, kOutOfPlace);
  EXPECT_EQ(after(p, FlowQueue::ops, 0, FlowQueue::recvs), 0);
  EXPECT_EQ(after(p, FlowQueue::ops, 1, FlowQueue::recvs), 1);
}

TEST(Dataflow, AnOperationWaitsForASendStillReadingWhatItOverwrites) {
  Schedule s;
  s.steps.resize(1);
  s.steps[0].sends.push_back({1, recv(0)});
  s.steps[0].ops.push_back(copy_op(recv(0), send(0)));
  EXPECT_EQ(after(plan_dataflow(s, kOutOfPlace), FlowQueue::ops, 0, FlowQueue::sends), 0);
}

TEST(Dataflow, InPlaceTheSendBufferIsPartOfTheReceiveBuffer) {
  Schedule s = receive_then_reduce();  // writes recv[0,4)
  s.steps[1].sends.push_back({1, send(0)});
  const BufferLayout in_place{8, 8, 8, true, 0};
  EXPECT_EQ(after(plan_dataflow(s, in_place), FlowQueue::sends, 0, FlowQueue::ops), 0);
  EXPECT_EQ(after(plan_dataflow(s, kOutOfPlace), FlowQueue::sends, 0, FlowQueue::ops), kNone);
}

TEST(Dataflow, TransfersOfOneStepNeverWaitForEachOther) {
  Schedule s;
  s.steps.resize(1);
  s.steps[0].recvs.push_back({1, recv(0)});
  s.steps[0].sends.push_back({1, send(0)});
  s.steps[0].sends.push_back({2, send(0)});
  const DataflowPlan p = plan_dataflow(s, BufferLayout{8, 8, 8, true, 0});  // the send overlaps the receive
  for (FlowQueue q : {FlowQueue::recvs, FlowQueue::sends})
    for (const FlowItem& it : p.of(q)) EXPECT_EQ(it.after, (std::array<std::ptrdiff_t, 3>{kNone, kNone, kNone}));
}

TEST(Dataflow, PipelinedRingReceivesTheNextSegmentWhileReducingThisOne) {
  // 2 ranks, 32 elements, 4-element segments: 4 reduce-scatter steps on rank 0, each
  // receiving into one of two scratch slots.
  AlgorithmParams params;
  params.segment_bytes = 16;
  const Schedule s = build_ring_pipelined_allreduce({Collective::allreduce, 2, 0, 32, 0, 4, &params});
  const DataflowPlan p = plan_dataflow(s, buffer_layout(Collective::allreduce, 32, 2, 0, 0, false));
  EXPECT_EQ(after(p, FlowQueue::recvs, 1, FlowQueue::ops), kNone);  // the other slot
  EXPECT_EQ(after(p, FlowQueue::recvs, 2, FlowQueue::ops), 0);      // slot of segment 0, once it is reduced
  EXPECT_EQ(after(p, FlowQueue::recvs, 3, FlowQueue::ops), 1);
}

TEST(Dataflow, StepOrderWaitsForEverythingBefore) {
  Schedule s = receive_then_reduce();
  s.steps[1].recvs.push_back({1, scratch(4)});
  const DataflowPlan p = plan_steps(s);
  EXPECT_EQ(after(p, FlowQueue::recvs, 1, FlowQueue::ops), 0);
  EXPECT_EQ(after(p, FlowQueue::recvs, 1, FlowQueue::recvs), 0);
  EXPECT_EQ(after(p, FlowQueue::ops, 0, FlowQueue::recvs), 0);
}

TEST(DataflowPlan, TheSameWhetherABuffersRangesAreInAFlatOrAGappedArray) {
  // Up to kMostFlatRanges a buffer's ranges sit in a sorted array, then in one with a gap
  // that follows the accesses: every reference algorithm's plan is the one the gapped
  // array alone gives, rings over 64 and 256 ranks included (their buffers split into as
  // many ranges, past the array's first growth and its limit).
  Registry registry;
  register_reference_algorithms(registry);
  int compared = 0;
  for (Collective c : {Collective::allreduce, Collective::broadcast, Collective::reduce})
    for (const AlgorithmEntry* a : registry.for_collective(c)) {
      if (a->is_baseline()) continue;
      for (int n : {4, 16, 64, 256})
        for (std::size_t count : {std::size_t{64}, std::size_t{65536}})
          for (int r : {0, 1, n / 3, n - 1}) {
            const AlgorithmParams params;
            const Schedule s = a->build({c, n, r, count, 0, 4, &params});
            const DataflowPlan flat = plan_dataflow(s, BufferLayout{}), gapped = plan_dataflow(s, BufferLayout{}, 0);
            for (std::size_t q = 0; q < kFlowQueues; ++q) {
              ASSERT_EQ(flat.items[q].size(), gapped.items[q].size());
              for (std::size_t i = 0; i < flat.items[q].size(); ++i)
                ASSERT_EQ(flat.items[q][i].after, gapped.items[q][i].after)
                    << a->name << " on " << n << " ranks, rank " << r << ", count " << count << ", queue " << q
                    << ", item " << i;
            }
            ++compared;
          }
    }
  EXPECT_GT(compared, 300);
}
