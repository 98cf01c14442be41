#pragma once
// Receives that only feed one local operation, done by the transport as the message
// arrives, for transports that read their peers' buffers (shm, cuda-ipc): a receive into
// scratch followed by `dst = local op scratch` becomes one reduction from the sender's
// buffer straight into dst, and a receive into scratch followed by `dst = scratch` a
// receive into dst. A reduce-scatter step then reads the peer's block once and writes
// its own once, where the copy read and wrote it twice more.
//
// A receive is fused only where that cannot change what any item reads: it lands in
// scratch, which nothing reads afterwards until it is written whole again; its operation
// is the first of its step to touch that scratch, dst or the local operand, and no
// operation before it in the step touches them; no other transfer of its step writes
// any of them or reads dst; and the local operand is dst itself or the send buffer of an
// out-of-place call (never written). The fused receive then writes dst, whose
// dependencies the dataflow plan derives as for any receive (a reduction's local operand
// is dst, or memory nothing writes), and it completes, like a copy, inside the transport
// once the reduction is done, so the executor's argument that waiting cannot deadlock
// holds unchanged (dataflow.hpp). Where an operation must wait for a send of its own
// step (recursive doubling in place: the peer reads what it overwrites), nothing fuses.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/schedule/schedule.hpp"

namespace collbench {

struct FusedReceive {
  enum class Kind : std::uint8_t { none, copy, reduce } kind = Kind::none;
  Region local;             // reduce: the operand held here
  bool peer_first = false;  // reduce: the sender's data is operand a (order matters for NaN and ±0)
};

struct FusedSchedule {
  Schedule schedule;                   // fused receives retargeted to their operation's dst, which is gone
  std::vector<FusedReceive> receives;  // per receive of `schedule`, in program order
  std::size_t reductions = 0, copies = 0;
};

FusedSchedule fuse_receives(const Schedule& s, const BufferLayout& layout);

// What one rank's memory does running `s` over a transport whose receiver moves the data
// (shm), in bytes of output: copies (a receive copies what it reads from the sender's
// buffer into its own; a local copy, unless onto itself) and reductions (fused with a
// receive or local). Sends cost the sender nothing here: its receiver reads them.
//
// Each byte is also of a kind (memory_kind), by what its lines cost where the two cores
// share no cache (results/core-placement): whether its source is bytes the sender writes
// in the call (a receive reading lines modified in the other core's cache), and whether
// its destination is bytes this rank sends in the call (a peer's core reads them, so each
// store first takes the line back). Either is known in the whole call, not only earlier
// in it: back-to-back calls leave the previous call's lines where they were.
inline constexpr std::size_t kMemoryKinds = 8;
constexpr std::size_t memory_kind(bool reduce, bool source_written, bool into_sent) {
  return (reduce ? 1u : 0u) | (source_written ? 2u : 0u) | (into_sent ? 4u : 0u);
}
constexpr bool kind_reduces(std::size_t kind) { return (kind & 1u) != 0; }
constexpr bool kind_source_written(std::size_t kind) { return (kind & 2u) != 0; }
constexpr bool kind_into_sent(std::size_t kind) { return (kind & 4u) != 0; }
struct MemoryWork {
  std::array<std::size_t, kMemoryKinds> by_kind{};  // bytes by memory_kind
  std::size_t copied() const { return sum(false); }
  std::size_t reduced() const { return sum(true); }
  // Bytes read and written: 2 per byte copied, 3 per byte reduced.
  std::size_t traffic() const { return 2 * copied() + 3 * reduced(); }

 private:
  std::size_t sum(bool reduce) const {
    std::size_t n = 0;
    for (std::size_t k = 0; k < kMemoryKinds; ++k)
      if (kind_reduces(k) == reduce) n += by_kind[k];
    return n;
  }
};
// `source_written`, where given: per receive of `s`, in program order, whether its sender
// writes those bytes in the call (one rank's schedule cannot tell; memory_work_of_ranks can).
MemoryWork receiver_memory_work(const FusedSchedule& s, std::size_t element_size,
                                const std::vector<bool>* source_written = nullptr);

// Every rank's receiver_memory_work (`ranks[r]` is rank r's schedule), knowing which
// received bytes their sender writes in the call: a send overlapping what its rank
// receives into or computes anywhere in the call, as the cost model's written sends. A
// pair's sends and receives match in program order, as MPI's do.
std::vector<MemoryWork> memory_work_of_ranks(const std::vector<FusedSchedule>& ranks, std::size_t element_size);

}  // namespace collbench
