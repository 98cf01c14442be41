#pragma once
// A device emulated in host memory, for the transports that carry device buffers: its
// reductions and copies are queued and happen only when the space is synchronised,
// copied out of, or (one look later) asked whether a mark was reached, as on a GPU
// stream. A transport that reads or frees memory before the work on it is done then
// gets wrong results.
#include <cstring>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include "collectives/transport/memory_space.hpp"
#include "harness/common/session.hpp"
#include "harness/run/sweep.hpp"

namespace collbench {

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
  // A GPU gets to a mark on its own time: here, one look after it was asked.
  std::uint64_t mark() override { return done_ + queued_.size(); }
  bool reached(std::uint64_t mark) override {
    if (mark <= done_) return true;
    synchronize();
    return false;
  }
  std::size_t done() const { return done_; }

 private:
  std::size_t done_ = 0;
  bool flush_out_;
  std::vector<std::function<void()>> queued_;
};

// Every reference algorithm of `c` on device memory, at odd counts, checked on every call.
inline SweepSpec device_sweep(const Registry& r, Collective c, DType t, ReduceOp op, int root,
                              TransportKind transport) {
  SweepSpec o;
  o.collective = c;
  for (const AlgorithmEntry* a : r.for_collective(c))
    if (!a->is_baseline()) o.algorithms.push_back(a);
  o.dtype = t;
  o.op = op;
  o.root = root;
  o.memory = MemoryKind::device;
  o.transport = transport;
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

struct DeviceCase {
  DType t;
  ReduceOp op;
  ExecutionOrder order;
  bool in_place;
};

// Runs device_sweep for every collective and case over `transport`; no element may be wrong.
inline void expect_every_reference_algorithm_right(Session& session, Transport& transport, TransportKind kind,
                                                   const std::vector<DeviceCase>& cases) {
  ResultSink discard;
  for (Collective c : kAllCollectives)
    for (const DeviceCase& k : cases) {
      SweepSpec o = device_sweep(session.registry, c, k.t, k.op, transport.size() - 1, kind);
      o.order = k.order;
      o.in_place = k.in_place;
      const SweepErrors e = run_sweep(o, session, transport, discard);
      ASSERT_FALSE(e.algorithms.empty());
      for (const auto& a : e.algorithms)
        EXPECT_EQ(a.wrong, 0) << collective_name(c) << " " << a.name << " " << dtype_name(k.t)
                              << (k.in_place ? " in place" : "") << " order " << kExecutionOrderNames.name(k.order);
    }
}

}  // namespace collbench
