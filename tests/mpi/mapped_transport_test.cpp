// The mapped transport over shared memory (shm): messages match in order and arrive
// intact under load, memory it cannot map is refused, and every reference algorithm is
// exact over it. Over an emulated device (as cuda-ipc runs on a GPU: copies queued on the
// receiver's stream, senders freed only when they are done) every reference algorithm is
// right too.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "collectives/transport/mpi/mapped_transport.hpp"
#include "collectives/transport/shm_memory.hpp"
#include "harness/common/default_registry.hpp"
#include "harness/common/session.hpp"
#include "harness/common/validation.hpp"
#include "harness/run/bound.hpp"
#include "harness/run/sweep.hpp"
#include "tests/mpi/deferred_space.hpp"
#include "tests/mpi/oversubscribed.hpp"

using namespace collbench;

namespace {
MappedTransport& shm() {
  static MappedTransport t(MPI_COMM_WORLD, make_shm_memory());
  return t;
}

// Fills `bytes` bytes with a pattern naming the message.
void fill(std::byte* p, std::size_t bytes, unsigned tag) {
  for (std::size_t i = 0; i < bytes; ++i) p[i] = static_cast<std::byte>((tag * 131 + i * 7) & 0xff);
}
bool holds(const std::byte* p, std::size_t bytes, unsigned tag) {
  for (std::size_t i = 0; i < bytes; ++i)
    if (p[i] != static_cast<std::byte>((tag * 131 + i * 7) & 0xff)) return false;
  return true;
}
}  // namespace

// The memory-traffic bound's probes do what they price, on the algorithms' own input
// values (zeros ran faster): every rank receives its left neighbour's whole send
// buffer, plainly (a copy) or fused with its reduction; the written kinds after the
// sender has written its inputs into that buffer again, untimed (here over zeros), the
// into-sent kinds after the neighbour has read the receiving buffer.
TEST(MappedTransport, MemoryProbesReceiveTheLeftNeighboursInputs) {
  MappedTransport& t = shm();
  const int n = t.size(), me = t.rank();
  if (n < 2) GTEST_SKIP() << "needs two ranks";
  const int left = (me + n - 1) % n;
  constexpr std::size_t kCount = 1000;
  const InputSpec spec{Collective::allreduce, DType::f32, ReduceOp::sum, n};
  BoundProbes probes(t, spec, 64, n, kCount * sizeof(float));
  std::vector<float> mine(kCount), lefts(kCount);
  fill_input(spec, me, mine.data(), kCount);
  fill_input(spec, left, lefts.data(), kCount);
  const auto* send = reinterpret_cast<const float*>(probes.memory_send());
  const auto* recv = reinterpret_cast<const float*>(probes.memory_recv());
  int bad = 0, zeros = 0;
  for (std::size_t i = 0; i < kCount; ++i) {
    bad += send[i] != mine[i];
    zeros += mine[i] == 0.0f;
  }
  for (std::size_t kind = 0; kind < kMemoryKinds; ++kind) {
    const auto probe = probes.memory(kind, kCount * sizeof(float));
    EXPECT_EQ(probe->prepares_each_call(), kind_source_written(kind) || kind_into_sent(kind))
        << memory_probe_name(kind);
    if (kind_source_written(kind)) std::memset(probes.memory_send(), 0, kCount * sizeof(float));
    MPI_Barrier(MPI_COMM_WORLD);
    probe->before_call();
    MPI_Barrier(MPI_COMM_WORLD);
    probe->run();
    for (std::size_t i = 0; i < kCount; ++i) bad += recv[i] != (kind_reduces(kind) ? mine[i] + lefts[i] : lefts[i]);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  EXPECT_EQ(bad, 0);
  EXPECT_LT(zeros, static_cast<int>(kCount / 2));  // the inputs are not mostly zeros
}

// Several messages in flight each way, of different sizes, receives completed out of
// posting order: each channel must still hand them over (and free the sender) in order,
// or a sender reuses a buffer its receiver has not copied yet.
TEST(MappedTransport, MessagesInFlightArriveInOrderAndIntact) {
  MappedTransport& t = shm();
  const int n = t.size(), me = t.rank();
  if (n < 2) GTEST_SKIP() << "needs two ranks";
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr int kWindow = 3;
  constexpr std::size_t kMost = 4096;
  OwnedBuffer send = t.allocate(kWindow * kMost), recv = t.allocate(kWindow * kMost);
  int bad = 0;
  for (unsigned round = 0; round < 3000; ++round) {
    std::vector<Ticket> recvs, sends;
    for (int k = 0; k < kWindow; ++k) {
      const std::size_t bytes = 1 + (round * 37 + static_cast<unsigned>(k) * 1001) % kMost;
      recvs.push_back(t.start_recv({left, recv.data() + k * kMost, bytes}));
    }
    for (int k = 0; k < kWindow; ++k) {
      const std::size_t bytes = 1 + (round * 37 + static_cast<unsigned>(k) * 1001) % kMost;
      fill(send.data() + k * kMost, bytes, round * kWindow + static_cast<unsigned>(k));
      sends.push_back(t.start_send({right, send.data() + k * kMost, bytes}));
    }
    t.wait_all(std::vector<Ticket>{recvs.back()});  // the last first
    recvs.pop_back();
    t.wait_all(recvs);
    t.wait_all(sends);
    for (int k = 0; k < kWindow; ++k) {
      const std::size_t bytes = 1 + (round * 37 + static_cast<unsigned>(k) * 1001) % kMost;
      bad += !holds(recv.data() + k * kMost, bytes, round * kWindow + static_cast<unsigned>(k));
    }
  }
  EXPECT_EQ(bad, 0);
}

// More sends than a channel has slots, posted before any receive.
TEST(MappedTransport, SendsBeyondTheChannelsSlotsWaitTheirTurn) {
  MappedTransport& t = shm();
  const int n = t.size(), me = t.rank();
  if (n < 2) GTEST_SKIP() << "needs two ranks";
  constexpr int kMessages = 300;
  OwnedBuffer send = t.allocate(kMessages * 8), recv = t.allocate(kMessages * 8);
  std::vector<Ticket> tickets;
  for (int k = 0; k < kMessages; ++k) {
    fill(send.data() + k * 8, 8, static_cast<unsigned>(k));
    tickets.push_back(t.start_send({(me + 1) % n, send.data() + k * 8, 8}));
  }
  for (int k = 0; k < kMessages; ++k) tickets.push_back(t.start_recv({(me + n - 1) % n, recv.data() + k * 8, 8}));
  t.wait_all(tickets);
  for (int k = 0; k < kMessages; ++k) EXPECT_TRUE(holds(recv.data() + k * 8, 8, static_cast<unsigned>(k))) << k;
}

TEST(MappedTransport, RefusesMemoryItDidNotAllocateAndTaggedMessages) {
  MappedTransport& t = shm();
  std::vector<std::byte> heap(64);
  EXPECT_THROW(t.start_send({0, heap.data(), heap.size()}), std::logic_error);
  EXPECT_THROW(t.post_send(0, 1, heap.data(), heap.size()), std::logic_error);
}

// Every reference algorithm of every collective, checked against the exact values, the
// receives that feed a reduction reduced straight from the sender's buffer
// (receive_fusion.hpp): the ring's and reduce-scatter's steps do, wherever there are peers.
TEST(MappedTransport, EveryReferenceAlgorithmIsExact) {
  const Registry& r = default_registry();
  Session session(r, MPI_COMM_WORLD, 0);
  yield_where_oversubscribed(session.transport);
  ResultSink discard;
  const std::uint64_t reduced_before = shm().bytes_reduced_on_receive();
  for (const CollectiveTraits& c : kCollectiveTraits)
    for (bool in_place : {false, true}) {
      SweepSpec o;
      o.collective = c.id;
      for (const AlgorithmEntry* a : r.for_collective(c.id))
        if (!a->is_baseline()) o.algorithms.push_back(a);
      o.sizes = {64, 256 << 10, 64};
      o.in_place = in_place;
      o.reps.warmup = 1;
      o.reps.iters = 2;
      o.root = session.size() - 1;
      const SweepErrors e = run_sweep(o, session, shm(), discard);
      for (const auto& a : e.algorithms)
        EXPECT_EQ(a.wrong, 0) << c.name << "/" << a.name << (in_place ? " in place" : "");
    }
  if (session.size() > 1) {
    EXPECT_GT(shm().bytes_reduced_on_receive(), reduced_before);
  }
}

// Device memory the way cuda-ipc moves it: every reference algorithm of every collective,
// several dtypes, ops and both orders, against the exact values.
TEST(MappedTransport, EveryReferenceAlgorithmIsRightOnDeviceMemory) {
  Registry r = default_registry();
  Session session(r, MPI_COMM_WORLD, 0);
  yield_where_oversubscribed(session.transport);
  DeferredSpace device;
  MappedTransport mapped(MPI_COMM_WORLD, make_shm_memory(device));
  EXPECT_EQ(&mapped.memory(), &device);
  expect_every_reference_algorithm_right(session, mapped, TransportKind::cuda_ipc,
                                         {{DType::f32, ReduceOp::sum, ExecutionOrder::dataflow, false},
                                          {DType::f16, ReduceOp::min, ExecutionOrder::steps, true},
                                          {DType::i32, ReduceOp::prod, ExecutionOrder::dataflow, true}});
  EXPECT_GT(device.done(), 0u) << "the reductions and copies went through the space";
  // Device memory is copied and then reduced, never reduced straight from a peer's GPU.
  EXPECT_FALSE(mapped.reduces_on_receive());
  EXPECT_EQ(mapped.bytes_reduced_on_receive(), 0u);
}
