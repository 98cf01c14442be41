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

#include "collectives/memory_space.hpp"
#include "collectives/staged_transport.hpp"
#include "harness/common/default_registry.hpp"
#include "harness/common/session.hpp"
#include "harness/run/sweep.hpp"

using namespace collbench;

namespace {

class DeferredSpace : public MemorySpace {
 public:
  // `flush_before_copy_out` false: a broken space whose copies out do not wait.
  explicit DeferredSpace(bool flush_before_copy_out = true) : flush_out_(flush_before_copy_out) {}
  MemoryKind kind() const override { return MemoryKind::device; }
  std::string_view name() const override { return "emulated-device"; }
  OwnedBuffer allocate(std::size_t bytes) override { return host_space().allocate(bytes); }
  OwnedBuffer allocate_staging(std::size_t bytes) override { return host_space().allocate(bytes); }
  void copy_in(void* dst, const void* src, std::size_t bytes) override {
    synchronize();
    std::memcpy(dst, src, bytes);
  }
  void copy_out(void* dst, const void* src, std::size_t bytes) override {
    if (flush_out_) synchronize();
    std::memcpy(dst, src, bytes);
  }
  void reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count) override {
    queued_.push_back([=] { host_space().reduce(t, op, dst, a, b, count); });
  }
  void copy(void* dst, const void* src, std::size_t bytes) override {
    queued_.push_back([=] { host_space().copy(dst, src, bytes); });
  }
  void synchronize() override {
    for (auto& f : queued_) f();
    done_ += queued_.size();
    queued_.clear();
  }
  std::size_t done() const { return done_; }

 private:
  std::size_t done_ = 0;
  bool flush_out_;
  std::vector<std::function<void()>> queued_;
};

SweepSpec spec(const Registry& r, Collective c, DType t, ReduceOp op, int root) {
  SweepSpec o;
  o.collective = c;
  for (const AlgorithmEntry* a : r.for_collective(c))
    if (!a->is_baseline()) o.algorithms.push_back(a);
  o.dtype = t;
  o.op = op;
  o.root = root;
  o.memory = MemoryKind::device;
  o.transport = TransportKind::mpi_staged;
  // Odd element counts at every rank count, and pipelines of several 1 KiB segments.
  o.sizes.min_bytes = 3 * dtype_size(t) * 5;
  o.sizes.max_bytes = 60 * 1024;
  o.sizes.step_factor = 1024;
  o.segment_bytes = 1024;
  o.reps.warmup = 0;
  o.reps.iters = 2;
  o.check_every = 1;
  return o;
}

}  // namespace

TEST(StagedTransport, EveryReferenceAlgorithmIsRightOnDeviceMemory) {
  Registry r = default_registry();
  Session session(r, MPI_COMM_WORLD, 0);
  ResultSink discard;
  DeferredSpace device;
  StagedTransport staged(session.transport, device);
  const int n = staged.size();
  struct Case {
    DType t;
    ReduceOp op;
    ExecutionOrder order;
    bool in_place;
  };
  for (Collective c : kAllCollectives)
    for (Case k : {Case{DType::f32, ReduceOp::sum, ExecutionOrder::dataflow, false},
                   Case{DType::bf16, ReduceOp::max, ExecutionOrder::steps, true},
                   Case{DType::i64, ReduceOp::prod, ExecutionOrder::dataflow, true}}) {
      SweepSpec o = spec(r, c, k.t, k.op, n - 1);
      o.order = k.order;
      o.in_place = k.in_place;
      const SweepErrors e = run_sweep(o, session, staged, discard);
      ASSERT_FALSE(e.algorithms.empty());
      for (const auto& a : e.algorithms)
        EXPECT_EQ(a.wrong, 0) << collective_name(c) << " " << a.name << " " << dtype_name(k.t)
                              << (k.in_place ? " in place" : "") << " order " << kExecutionOrderNames.name(k.order);
    }
  EXPECT_GT(device.done(), 0u) << "the reductions and copies went through the space";
}

TEST(StagedTransport, StagingBeforeQueuedWorkIsDoneIsCaught) {
  Registry r = default_registry();
  Session session(r, MPI_COMM_WORLD, 0);
  ResultSink discard;
  DeferredSpace broken(false);
  StagedTransport staged(session.transport, broken);
  SweepSpec o = spec(r, Collective::allreduce, DType::f32, ReduceOp::sum, 0);
  o.algorithms = {r.find(Collective::allreduce, "ring")};
  const std::int64_t wrong = run_sweep(o, session, staged, discard).total();
  // Alone, a rank sends nothing, so nothing is staged.
  if (staged.size() > 1) EXPECT_GT(wrong, 0);
  else EXPECT_EQ(wrong, 0);
}

TEST(StagedTransport, RefusesTaggedMessages) {
  Registry r = default_registry();
  Session session(r, MPI_COMM_WORLD, 0);
  DeferredSpace device;
  StagedTransport staged(session.transport, device);
  std::byte b{};
  EXPECT_THROW(staged.post_send(0, 1, &b, 1), std::logic_error);
  EXPECT_EQ(staged.name(), "mpi-p2p-staged");
  EXPECT_EQ(&staged.memory(), &device);
}
