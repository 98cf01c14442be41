// Which receives the executor fuses with the operation they feed, for transports that
// reduce on receive (collectives/schedule/receive_fusion.hpp): each test names one rule
// and a schedule where breaking it would change what some item reads. That every
// reference algorithm stays exact with fusion is tested over shm (mapped_transport_test).
#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <vector>

#include "collectives/schedule/receive_fusion.hpp"
#include "tests/unit/small_regions.hpp"

using namespace collbench;
using namespace collbench::test;

namespace {

// A ring step: send one block, receive the other into scratch and fold it into recv.
Schedule ring_step(Region local) {
  Schedule s;
  s.scratch_count = 8;
  s.steps.resize(2);
  s.steps[0].sends.push_back({1, send(4)});
  s.steps[0].recvs.push_back({1, scratch(0)});
  s.steps[0].ops.push_back(reduce_op(recv(0), local, scratch(0)));
  return s;
}

}  // namespace

TEST(ReceiveFusion, AReceiveIntoScratchFoldedIntoRecvBecomesOneReduction) {
  const FusedSchedule f = fuse_receives(ring_step(send(0)), kOutOfPlace);
  EXPECT_EQ(f.reductions, 1u);
  ASSERT_EQ(f.receives.size(), 1u);
  EXPECT_EQ(f.receives[0].kind, FusedReceive::Kind::reduce);
  EXPECT_FALSE(f.receives[0].peer_first);  // recv = send op (sent): the local operand is a
  EXPECT_EQ(f.schedule.steps[0].recvs[0].region.buffer, BufferId::recv);
  EXPECT_TRUE(f.schedule.steps[0].ops.empty());
}

TEST(ReceiveFusion, OperandOrderIsKept) {
  Schedule s = ring_step(send(0));
  s.steps[0].ops[0] = reduce_op(recv(0), scratch(0), recv(0));  // recv = (sent) op recv
  const FusedSchedule f = fuse_receives(s, kOutOfPlace);
  ASSERT_EQ(f.reductions, 1u);
  EXPECT_TRUE(f.receives[0].peer_first);
}

TEST(ReceiveFusion, NotWhereTheStepSendsWhatTheOperationOverwrites) {
  // Recursive doubling in place: the peer reads recv while this rank would reduce into it.
  Schedule s;
  s.scratch_count = 8;
  s.steps.resize(1);
  s.steps[0].sends.push_back({1, recv(0)});
  s.steps[0].recvs.push_back({1, scratch(0)});
  s.steps[0].ops.push_back(reduce_op(recv(0), recv(0), scratch(0)));
  EXPECT_EQ(fuse_receives(s, kInPlace).reductions, 0u);
}

TEST(ReceiveFusion, NotWhereTheLocalOperandIsWrittenElsewhere) {
  // recv[4,8) is neither dst nor read-only: another item could change it meanwhile.
  EXPECT_EQ(fuse_receives(ring_step(recv(4)), kOutOfPlace).reductions, 0u);
  // In place, send[0,4) is recv[0,4): dst itself, so that one fuses.
  EXPECT_EQ(fuse_receives(ring_step(send(0)), kInPlace).reductions, 1u);
}

TEST(ReceiveFusion, NotWhereTheScratchIsReadLater) {
  Schedule s = ring_step(send(0));
  s.steps[1].sends.push_back({1, scratch(0)});
  EXPECT_EQ(fuse_receives(s, kOutOfPlace).reductions, 0u);
  // Written whole again first: then nothing reads what the fused receive skipped.
  Schedule t = ring_step(send(0));
  t.steps[1].recvs.push_back({1, scratch(0)});
  t.steps[1].ops.push_back(copy_op(recv(4), scratch(0)));
  t.steps[1].sends.push_back({1, send(0)});
  const FusedSchedule f = fuse_receives(t, kOutOfPlace);
  EXPECT_EQ(f.reductions, 1u);
  EXPECT_EQ(f.copies, 1u);  // and step 1's receive lands in recv[4,8) directly
}

TEST(ReceiveFusion, TwoReceivesIntoOneDestinationFuseOnce) {
  // Both fused, they would write recv[0,4) at once.
  Schedule s;
  s.scratch_count = 8;
  s.steps.resize(1);
  s.steps[0].recvs.push_back({1, scratch(0)});
  s.steps[0].recvs.push_back({2, scratch(4)});
  s.steps[0].ops.push_back(reduce_op(recv(0), recv(0), scratch(0)));
  s.steps[0].ops.push_back(reduce_op(recv(0), recv(0), scratch(4)));
  const FusedSchedule f = fuse_receives(s, kOutOfPlace);
  EXPECT_EQ(f.reductions, 1u);
  EXPECT_EQ(f.schedule.steps[0].ops.size(), 1u);
}

TEST(ReceiveFusion, OnlyReceivesIntoScratch) {
  Schedule s;
  s.steps.resize(1);
  s.steps[0].recvs.push_back({1, recv(4)});
  s.steps[0].ops.push_back(reduce_op(recv(0), send(0), recv(4)));
  EXPECT_EQ(fuse_receives(s, kOutOfPlace).reductions, 0u);  // recv[4,8) may be part of the result
}

TEST(ReceiveFusion, MemoryWorkCountsWhatTheReceiverCopiesAndReduces) {
  Schedule s = ring_step(send(0));
  s.steps[1].recvs.push_back({1, recv(4)});  // the allgather half: copied by the receiver
  const FusedSchedule fused = fuse_receives(s, kOutOfPlace);
  const MemoryWork w = receiver_memory_work(fused, 4);
  EXPECT_EQ(w.reduced(), 16u);  // 4 f32, reduced straight from the sender's buffer
  EXPECT_EQ(w.copied(), 16u);
  EXPECT_EQ(w.traffic(), 2 * 16u + 3 * 16u);
  // Unfused, the same receive is copied into scratch and then reduced.
  FusedSchedule plain{s, std::vector<FusedReceive>(2), 0, 0};
  const MemoryWork u = receiver_memory_work(plain, 4);
  EXPECT_EQ(u.reduced(), 16u);
  EXPECT_EQ(u.copied(), 32u);
}

// The 2-rank ring as each rank runs it: its first step reduces the peer's input (never
// written in the call) into the block it sends next, its second copies the block the
// peer has just reduced into recv.
TEST(ReceiveFusion, MemoryWorkOfRanksTellsWhatTheSenderWritesAndWhatThePeerReads) {
  Schedule s = ring_step(send(0));
  s.steps[1].sends.push_back({1, recv(0)});  // what this rank just reduced
  s.steps[1].recvs.push_back({1, recv(4)});
  Schedule rank0 = s, rank1 = s;
  for (Step& st : rank1.steps) {  // rank 1's peer is rank 0
    for (Transfer& t : st.sends) t.peer = 0;
    for (Transfer& t : st.recvs) t.peer = 0;
  }
  const std::vector<MemoryWork> w =
      memory_work_of_ranks({fuse_receives(rank0, kOutOfPlace), fuse_receives(rank1, kOutOfPlace)}, 4);
  ASSERT_EQ(w.size(), 2u);
  for (const MemoryWork& r : w) {
    EXPECT_EQ(r.reduced(), 16u);
    EXPECT_EQ(r.copied(), 16u);
    std::array<std::size_t, kMemoryKinds> kinds{};
    // Out of place the send buffer is never written; the reduction lands in the block this
    // rank then sends (the peer's core reads it).
    kinds[memory_kind(true, false, true)] = 16;
    // The copy reads what the peer reduced, into a block nobody reads.
    kinds[memory_kind(false, true, false)] = 16;
    EXPECT_EQ(r.by_kind, kinds);
  }
  // A receive whose send is missing is a broken pair of schedules, not a silent zero.
  rank1.steps[1].sends.clear();
  EXPECT_THROW(memory_work_of_ranks({fuse_receives(rank0, kOutOfPlace), fuse_receives(rank1, kOutOfPlace)}, 4),
               std::logic_error);
}
