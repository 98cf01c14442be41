// The symbolic executor is the safety net for every algorithm: these tests break a
// correct ring schedule in each way it can go wrong and require the error to be caught.
#include <gtest/gtest.h>

#include "algorithms/catalog.hpp"
#include "collectives/schedule/symbolic_executor.hpp"

using namespace collbench;

namespace {
constexpr int kRanks = 4;
constexpr std::size_t kCount = 10;
const SymbolicProblem kProblem{Collective::allreduce, kRanks, kCount, 0, false};

std::vector<Schedule> ring() {
  std::vector<Schedule> s;
  for (int r = 0; r < kRanks; ++r) s.push_back(build_ring_allreduce({Collective::allreduce, kRanks, r, kCount, 0, 4}));
  return s;
}

bool mentions(const SymbolicReport& rep, const std::string& text) {
  for (const auto& e : rep.errors)
    if (e.find(text) != std::string::npos) return true;
  return false;
}

// Two ranks' allgather of one element each: each sends its element to the other and
// copies it into its own slot. Without a reduction each element holds one rank's data.
const SymbolicProblem kAllgather{Collective::allgather, 2, 1, 0, false};
std::vector<Schedule> two_rank_allgather() {
  std::vector<Schedule> s(2);
  for (int r = 0; r < 2; ++r) {
    const auto mine = static_cast<std::size_t>(r), theirs = static_cast<std::size_t>(1 - r);
    Step st;
    st.sends.push_back({1 - r, {BufferId::send, 0, 1}});
    st.recvs.push_back({1 - r, {BufferId::recv, theirs, 1}});
    st.ops.push_back(copy_op({BufferId::recv, mine, 1}, {BufferId::send, 0, 1}));
    s[r].steps.push_back(st);
  }
  return s;
}
}  // namespace

TEST(SymbolicExecutor, WithoutAReductionTracksTheRankEachElementCameFrom) {
  for (ExecutionOrder order : {ExecutionOrder::steps, ExecutionOrder::dataflow}) {
    EXPECT_TRUE(play_schedules(kAllgather, two_rank_allgather(), order).ok());
    auto s = two_rank_allgather();
    s[1].steps[0].ops[0].dst.offset = 0;  // rank 1's own element where rank 0's belongs
    s[1].steps[0].recvs[0].region.offset = 1;
    const auto rep = play_schedules(kAllgather, s, order);
    EXPECT_TRUE(mentions(rep, "rank 1: final recv[0] holds element 0 from {1}, expected element 0 from {0}"))
        << (rep.ok() ? "no error" : rep.errors.front());
  }
}

TEST(SymbolicExecutor, ReportsAReductionInACollectiveWithout) {
  auto s = two_rank_allgather();
  s[0].steps[0].ops.push_back(reduce_op({BufferId::recv, 0, 1}, {BufferId::recv, 0, 1}, {BufferId::recv, 1, 1}));
  const auto rep = play_schedules(kAllgather, s);
  EXPECT_TRUE(mentions(rep, "reduces in allgather, whose every result element is one rank's"))
      << (rep.ok() ? "no error" : rep.errors.front());
}

TEST(SymbolicExecutor, AcceptsTheCorrectRing) { EXPECT_TRUE(play_schedules(kProblem, ring()).ok()); }

TEST(SymbolicExecutor, AcceptsTheCorrectRingInDataflowOrder) {
  EXPECT_TRUE(play_schedules(kProblem, ring(), ExecutionOrder::dataflow).ok());
}

TEST(SymbolicExecutor, ReportsAWrongResultInDataflowOrderToo) {
  auto s = ring();
  s[2].steps.back().recvs.clear();  // rank 2 misses the last block of the allgather
  s[1].steps.back().sends.clear();
  const auto rep = play_schedules(kProblem, s, ExecutionOrder::dataflow);
  EXPECT_TRUE(mentions(rep, "final recv")) << (rep.ok() ? "no error" : rep.errors.front());
}

TEST(SymbolicExecutor, ReportsASendWithoutReceive) {
  auto s = ring();
  s[1].steps[0].recvs.clear();
  s[1].steps[0].ops.clear();
  const auto rep = play_schedules(kProblem, s);
  EXPECT_TRUE(mentions(rep, "no matching receive")) << rep.errors.front();
}

TEST(SymbolicExecutor, ReportsAReceiveWithoutSend) {
  auto s = ring();
  s[0].steps[0].sends.clear();
  EXPECT_TRUE(mentions(play_schedules(kProblem, s), "no matching send"));
}

TEST(SymbolicExecutor, ReportsMismatchedMessageLengths) {
  auto s = ring();
  s[2].steps[1].sends[0].region.count -= 1;
  EXPECT_TRUE(mentions(play_schedules(kProblem, s), "which sends"));
}

TEST(SymbolicExecutor, ReportsADoubleCountedContribution) {
  auto s = ring();
  const LocalOp first = s[3].steps[0].ops[0];                             // recv = own + left neighbour's
  s[3].steps[0].ops.push_back(reduce_op(first.dst, first.dst, first.b));  // ... + left neighbour's again
  EXPECT_TRUE(mentions(play_schedules(kProblem, s), "twice"));
}

TEST(SymbolicExecutor, ReportsAMissingContribution) {
  auto s = ring();
  s[1].steps[1].ops[0].kind = LocalOp::Kind::copy;  // drop own data for one chunk
  const auto rep = play_schedules(kProblem, s);
  EXPECT_TRUE(mentions(rep, "expected element")) << (rep.ok() ? "no error" : rep.errors.front());
}

TEST(SymbolicExecutor, ReportsARaceBetweenReceiveAndSend) {
  auto s = ring();
  s[0].steps[3].recvs[0].region = s[0].steps[3].sends[0].region;
  EXPECT_TRUE(mentions(play_schedules(kProblem, s), "overwrites a region being sent"));
}

// Overlaps of one element (races are found by sorting regions, not pair by pair).
TEST(SymbolicExecutor, ReportsAReceivePartlyOverASend) {
  auto s = ring();
  Step& st = s[0].steps[3];
  Region r = st.sends[0].region;
  ASSERT_GT(r.count, 1u);
  r.offset += r.count - 1;
  st.recvs[0].region = r;  // its first element is the send's last
  EXPECT_TRUE(mentions(play_schedules(kProblem, s), "overwrites a region being sent"));
}

TEST(SymbolicExecutor, ReportsTwoReceivesWritingOneElement) {
  auto s = ring();
  Step& st = s[0].steps[3];
  Transfer second = st.recvs[0];
  ASSERT_GT(second.region.count, 1u);
  ASSERT_GE(second.region.offset + 1, second.region.count);
  second.region.offset -= second.region.count - 1;  // its last element is the first's first
  st.recvs.push_back(second);
  EXPECT_TRUE(mentions(play_schedules(kProblem, s), "two receives write overlapping regions"));
}

TEST(SymbolicExecutor, ReportsRegionsOutsideTheBuffer) {
  auto s = ring();
  s[0].steps[0].sends[0].region.offset = kCount;
  EXPECT_TRUE(mentions(play_schedules(kProblem, s), "outside its buffer"));
}

TEST(SymbolicExecutor, ReportsCombiningDifferentElements) {
  auto s = ring();
  s[2].steps[0].ops[0].a.offset = (s[2].steps[0].ops[0].a.offset + 1) % kCount;
  EXPECT_TRUE(mentions(play_schedules(kProblem, s), "combines element"));
}

TEST(SymbolicExecutor, ChecksGatherAndBroadcastExpectations) {
  // A schedule that does nothing is wrong for every collective on more than one rank.
  for (Collective c : kAllCollectives) {
    std::vector<Schedule> nothing(3);
    EXPECT_FALSE(play_schedules({c, 3, 4, 1, false}, nothing).ok()) << collective_name(c);
  }
  // ... and a trivially correct single-rank broadcast passes.
  std::vector<Schedule> one(1);
  EXPECT_TRUE(play_schedules({Collective::broadcast, 1, 4, 0, false}, one).ok());
}
