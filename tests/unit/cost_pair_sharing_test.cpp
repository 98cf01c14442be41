// A link that interleaves one pair's messages (UCX over TCP): the messages share the
// pair's bandwidth, and the simulation then posts as the executor does, only when the
// wait it is in returns.
#include <gtest/gtest.h>

#include <limits>

#include "algorithms/catalog.hpp"
#include "collectives/cost_model/cost_simulator.hpp"

using namespace collbench;

namespace {

constexpr double kUsPerByte = 1e-3;
constexpr double kNever = std::numeric_limits<double>::infinity();  // no size interleaves

std::vector<Schedule> all_ranks(ScheduleBuilder build, int n, std::size_t count, const AlgorithmParams* params) {
  std::vector<Schedule> out;
  for (int r = 0; r < n; ++r) out.push_back(build({Collective::broadcast, n, r, count, 0, 4, params}));
  return out;
}

CostParams shared_ports(double pair_shares_from, bool receiver_copies = false) {
  CostParams p;
  p.intra = {0, kUsPerByte};
  p.intra.pair_shares_from_bytes = pair_shares_from;
  p.intra.receiver_copies = receiver_copies;
  p.shared_ports = true;
  return p;
}

CostLayout dataflow() {
  CostLayout l;
  l.order = ExecutionOrder::dataflow;
  return l;
}

}  // namespace

TEST(CostPairSharing, AScatterAllgatherRootsTwoMessagesToOnePeerShareItsLink) {
  // 2 ranks, 4000 bytes: the root sends the second half (scatter) and the first (ring)
  // at once. One after another, rank 1 forwards its half while the first streams in
  // (4000 bytes' time); interleaved, both halves arrive after 4000 and the forward
  // takes 2000 more, as measured on an emulated 1 Gbit/s link (results/model).
  const auto s = all_ranks(build_scatter_allgather_broadcast, 2, 1000, nullptr);
  const double whole = 4000 * kUsPerByte;
  EXPECT_DOUBLE_EQ(simulate_schedules(s, shared_ports(kNever), dataflow()).time_us, whole);
  EXPECT_DOUBLE_EQ(simulate_schedules(s, shared_ports(0), dataflow()).time_us, 1.5 * whole);
  // Below the size the link interleaves from, one after another still.
  EXPECT_DOUBLE_EQ(simulate_schedules(s, shared_ports(2001), dataflow()).time_us, whole);
  // Step by step the scatter's message is alone on the link.
  EXPECT_DOUBLE_EQ(simulate_schedules(s, shared_ports(0), {}).time_us, whole);
}

TEST(CostPairSharing, AMessageCostsTheExchangeOnlyWhileMessagesGoTheOtherWay) {
  // The same broadcast where both ways at once cost twice one way. The ring step sends
  // and receives, but in dataflow order rank 1 forwards its half only once both halves
  // have arrived: nothing overlaps, so it costs what it does without the exchange cost
  // (priced by its step, the root's ring half and the forward would take 8000 bytes'
  // time in all).
  const auto s = all_ranks(build_scatter_allgather_broadcast, 2, 1000, nullptr);
  const double whole = 4000 * kUsPerByte;
  CostParams p = shared_ports(0);
  p.intra.exchange = {0, 2 * kUsPerByte};
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, dataflow()).time_us, 1.5 * whole);
}

TEST(CostPairSharing, AMessageSlowsWhileTheOtherWayStartsAndTakesTheExchangesAlpha) {
  // Rank 0 sends 1000 bytes at 0; rank 1 sends 1000 bytes back once a copy of 0.5 us
  // ends. Alone each takes 1 us; both ways at once each moves at half speed. Rank 0's:
  // 0.5 alone, the other 0.5 at half speed, to 1.5; rank 1's: from 0.5 at half speed to
  // 1.5, its other half alone, to 2. Both overlapped, so both take the exchange's alpha
  // (3; one way's is 2).
  const std::size_t c = 250;
  std::vector<Schedule> s(2);
  s[0].steps = {Step{{{1, {BufferId::send, 0, c}}}, {}, {}}, Step{{}, {{1, {BufferId::recv, 0, c}}}, {}}};
  s[1].steps = {Step{{},
                     {{0, {BufferId::recv, 0, c}}},
                     {LocalOp{LocalOp::Kind::copy, {BufferId::recv, c, c}, {BufferId::send, 0, c}, {}}}},
                Step{{{0, {BufferId::recv, c, c}}}, {}, {}}};
  CostParams p = shared_ports(kNever);
  p.copy = {0.5, 0};
  p.intra.pieces[0].alpha_us = 2;
  const CostResult one_way = simulate_schedules(s, p, dataflow());
  EXPECT_DOUBLE_EQ(one_way.time_us, 0.5 + 1 + 2);  // no exchange cost: rank 1's send alone
  p.intra.exchange = {3, 2 * kUsPerByte};
  // Priced once as it starts, rank 1's would end at 0.5 + 2 + 3.
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, dataflow()).time_us, 2 + 3);
}

TEST(CostPairSharing, AReceiverThatCopiesCopiesInterleavedMessagesTogether) {
  // The same where the receiving core copies each message: interleaved messages share
  // the core too, so they still arrive together (one after another on the core, the
  // scatter's half would arrive first and be forwarded at once).
  const auto s = all_ranks(build_scatter_allgather_broadcast, 2, 1000, nullptr);
  const double whole = 4000 * kUsPerByte;
  EXPECT_DOUBLE_EQ(simulate_schedules(s, shared_ports(kNever, true), dataflow()).time_us, whole);
  EXPECT_DOUBLE_EQ(simulate_schedules(s, shared_ports(0, true), dataflow()).time_us, 1.5 * whole);
}

TEST(CostPairSharing, AChainsMiddleRanksForwardOneSegmentAtATimeAsTheExecutorWaits) {
  // 4 ranks, 4 segments of 1000 bytes (1 us each). The root's four sends share its
  // link: all arrive at rank 1 after 4 us. Rank 1's executor waits for segment 0 alone,
  // forwards it, then waits for that send with segment 1 (its step), so it forwards one
  // segment at a time: rank 2 has segment k at 5 + k, rank 3 at 6 + k, the last at 9.
  // Posting every forward as soon as its segment arrived would share rank 1's link
  // four ways (all at rank 2 after 8 us, at rank 3 after 12); one after another on the
  // root's link, the usual pipeline ends after 4 + 2 us.
  AlgorithmParams params;
  params.segment_bytes = 1000;
  const auto s = all_ranks(build_pipelined_chain_broadcast, 4, 1000, &params);
  EXPECT_DOUBLE_EQ(simulate_schedules(s, shared_ports(0), dataflow()).time_us, 9);
  EXPECT_DOUBLE_EQ(simulate_schedules(s, shared_ports(kNever), dataflow()).time_us, 6);
}
