// Device memory through host copies (the mpi-staged transport), run here on a device
// emulated in host memory: its reductions and copies are queued and happen only when the
// space is synchronised or copied out of, as on a GPU stream. Every reference algorithm
// of every collective then runs through the sweep (device buffers, inputs copied in,
// results copied back and checked exactly); and a staging that reads device data before
// the work writing it is done is caught.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <functional>
#include <vector>

#include "collectives/transport/memory_space.hpp"
#include "collectives/transport/staged_transport.hpp"
#include "harness/common/default_registry.hpp"
#include "harness/common/session.hpp"
#include "harness/run/sweep.hpp"
#include "tests/mpi/deferred_space.hpp"
#include "tests/mpi/oversubscribed.hpp"

using namespace collbench;

TEST(StagedTransport, EveryReferenceAlgorithmIsRightOnDeviceMemory) {
  Registry r = default_registry();
  Session session(r, MPI_COMM_WORLD, 0);
  yield_where_oversubscribed(session.transport);
  DeferredSpace device;
  StagedTransport staged(session.transport, device);
  expect_every_reference_algorithm_right(session, staged, TransportKind::mpi_staged,
                                         {{DType::f32, ReduceOp::sum, ExecutionOrder::dataflow, false},
                                          {DType::bf16, ReduceOp::max, ExecutionOrder::steps, true},
                                          {DType::i64, ReduceOp::prod, ExecutionOrder::dataflow, true}});
  EXPECT_GT(device.done(), 0u) << "the reductions and copies went through the space";
}

TEST(StagedTransport, StagingBeforeQueuedWorkIsDoneIsCaught) {
  Registry r = default_registry();
  Session session(r, MPI_COMM_WORLD, 0);
  yield_where_oversubscribed(session.transport);
  ResultSink discard;
  DeferredSpace broken(false);
  StagedTransport staged(session.transport, broken);
  SweepSpec o = device_sweep(r, Collective::allreduce, DType::f32, ReduceOp::sum, 0, TransportKind::mpi_staged);
  o.algorithms = {r.find(Collective::allreduce, "ring")};
  const std::int64_t wrong = run_sweep(o, session, staged, discard).total();
  // Alone, a rank sends nothing, so nothing is staged.
  if (staged.size() > 1)
    EXPECT_GT(wrong, 0);
  else
    EXPECT_EQ(wrong, 0);
}

TEST(StagedTransport, RefusesTaggedMessages) {
  Registry r = default_registry();
  Session session(r, MPI_COMM_WORLD, 0);
  yield_where_oversubscribed(session.transport);
  DeferredSpace device;
  StagedTransport staged(session.transport, device);
  std::byte b{};
  EXPECT_THROW(staged.post_send(0, 1, &b, 1), std::logic_error);
  EXPECT_EQ(staged.name(), "mpi-p2p-staged");
  EXPECT_EQ(&staged.memory(), &device);
}
