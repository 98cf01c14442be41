#include "collectives/schedule_executor.hpp"

#include <cstring>
#include <span>
#include <stdexcept>
#include <string>

#include "collectives/progress.hpp"
#include "collectives/reduce_kernels.hpp"

namespace collbench {

namespace {
struct Buffers {
  std::byte* send;
  std::byte* recv;
  std::byte* scratch;
  std::size_t send_count, recv_count, scratch_count, elem;

  std::byte* resolve(const Region& r) const {
    std::byte* base = nullptr;
    std::size_t limit = 0;
    switch (r.buffer) {
      case BufferId::send: base = send; limit = send_count; break;
      case BufferId::recv: base = recv; limit = recv_count; break;
      case BufferId::scratch: base = scratch; limit = scratch_count; break;
    }
    if (r.offset > limit || r.count > limit - r.offset)
      throw std::logic_error("schedule region [" + std::to_string(r.offset) + "+" +
                             std::to_string(r.count) + "] exceeds its buffer of " +
                             std::to_string(limit) + " elements");
    return base + r.offset * elem;
  }
};
}  // namespace

BoundSchedule::BoundSchedule(const Schedule& s, const CollectiveCall& call,
                             const BufferLayout& layout, std::byte* scratch,
                             std::size_t scratch_bytes)
    : dtype_(call.dtype), op_(call.op) {
  const std::size_t elem = dtype_size(call.dtype);
  if (s.scratch_count * elem > scratch_bytes)
    throw std::logic_error("schedule needs more scratch than was provided");
  // The send buffer is only read; transports take non-const pointers for both directions.
  Buffers b{const_cast<std::byte*>(static_cast<const std::byte*>(call.send)),
            static_cast<std::byte*>(call.recv), scratch, layout.send_count,
            layout.recv_count, s.scratch_count, elem};
  for (const Step& st : s.steps) {
    for (const Transfer& t : st.sends)
      sends_.push_back({t.peer, b.resolve(t.region), t.region.count * elem});
    for (const Transfer& t : st.recvs)
      recvs_.push_back({t.peer, b.resolve(t.region), t.region.count * elem});
    for (const LocalOp& o : st.ops) {
      if (o.a.count != o.dst.count || (o.kind == LocalOp::Kind::reduce && o.b.count != o.dst.count))
        throw std::logic_error("local operation with regions of different lengths");
      ops_.push_back({o.kind, b.resolve(o.dst), b.resolve(o.a),
                      o.kind == LocalOp::Kind::reduce ? b.resolve(o.b) : nullptr, o.dst.count});
    }
    steps_.push_back({sends_.size(), recvs_.size(), ops_.size()});
  }
}

void BoundSchedule::run(Transport& transport) const {
  std::size_t s0 = 0, r0 = 0, o0 = 0;
  const std::size_t elem = dtype_size(dtype_);
  const int steps = static_cast<int>(steps_.size());
  for (int k = 0; k < steps; ++k) {
    const StepRange& st = steps_[static_cast<std::size_t>(k)];
    progress::set_step(k, steps);
    if (st.sends_end > s0 || st.recvs_end > r0)
      transport.exchange(std::span(sends_).subspan(s0, st.sends_end - s0),
                         std::span(recvs_).subspan(r0, st.recvs_end - r0));
    for (std::size_t i = o0; i < st.ops_end; ++i) {
      const Op& o = ops_[i];
      if (o.kind == LocalOp::Kind::reduce) reduce(dtype_, op_, o.dst, o.a, o.b, o.count);
      else if (o.dst != o.a) std::memmove(o.dst, o.a, o.count * elem);
    }
    s0 = st.sends_end;
    r0 = st.recvs_end;
    o0 = st.ops_end;
  }
}

}  // namespace collbench
