#pragma once
// The limit a ring algorithm can reach on these ranks, measured in the same run
// (`run --bound`): point-to-point exchange time and reduction-kernel time, each timed
// like an algorithm and interleaved with them, combined by the ring's own counts.
//
// For allreduce over n ranks of N bytes, with blocks of N/n:
//   t >= 2(n-1) t_exchange(N/n) + (n-1) t_reduce(N/n)
// t_exchange: a rank sends a block to its right neighbour while receiving one from
// its left, at the transport's streaming rate (small blocks go as a window of messages
// in flight, as osu_bibw does, so per-message latency is amortised; large ones one at
// a time, as the ring sends them, which is faster once a window leaves the cache); t_reduce: the kernel on
// one block, all ranks at once. Both probes walk, call after call, through buffers of n
// blocks (the collective's own N bytes of input and of output): any allreduce reads
// and writes that much per rank, so a probe that reused one block would time a cache
// level (at 1 MiB over shared memory, L2) the algorithms can never stay in. The sum (not the max) is a bound where each
// rank's own core moves what it receives and reduces what it owns (shared memory, TCP):
// transfer and reduction compete for that core. Reduce-scatter: (n-1)(t_exchange +
// t_reduce); allgather: (n-1) t_exchange.
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/process/page_bytes.hpp"
#include "collectives/schedule/registry.hpp"
#include "collectives/transport/transport.hpp"
#include "harness/common/result_row.hpp"
#include "harness/common/validation.hpp"

namespace collbench {

bool has_bound(Collective c);
// "2(n-1) t_exchange + (n-1) t_reduce" for the collective.
std::string bound_formula(Collective c);

// Bytes of the block each ring step moves, for a call of `count` elements per rank.
std::size_t bound_block_bytes(Collective c, std::size_t count, int nranks, std::size_t elem);

// The memory-traffic bound's probes, one per memory_kind (receive_fusion.hpp): every rank
// receives its whole per-rank buffer out of its left neighbour's send buffer at once,
// plainly (a copy) or fused (recv = send op sent); where the kind's source is written,
// after its owner has written that buffer again, untimed (lines modified in the sender's
// cache); where its destination is sent, after the left neighbour has read the receiving
// buffer, untimed (lines the storing core must take back first).
std::string memory_probe_name(std::size_t kind);  // "copy", "reduce_written", "copy_written_into_sent", ...
using MemoryProbeP50s = std::array<double, kMemoryKinds>;

class BoundProbes {
 public:
  // Buffers for blocks up to `max_block_bytes`, `blocks` of them (the rank count), and
  // for the memory probe up to `max_memory_bytes` (0: none).
  // Their inputs are `inputs`' values for this rank (and its left neighbour's, as received).
  BoundProbes(Transport& transport, const InputSpec& inputs, std::size_t max_block_bytes, int blocks,
              std::size_t max_memory_bytes = 0);
  // Messages per timed exchange call (the window): divide its call times by this.
  static int window(std::size_t block_bytes);
  std::unique_ptr<PreparedCollective> exchange(std::size_t block_bytes);
  std::unique_ptr<PreparedCollective> reduce(std::size_t block_bytes);
  // The memory probe of `kind` (memory_kind) over `bytes` per buffer.
  std::unique_ptr<PreparedCollective> memory(std::size_t kind, std::size_t bytes);
  // Their buffers: this rank's inputs, and a poisoned output.
  std::byte* memory_send() const { return memory_send_.data(); }
  std::byte* memory_recv() const { return memory_recv_.data(); }

 private:
  Transport& transport_;
  DType dtype_;
  ReduceOp op_;
  OwnedBuffer send_, recv_, memory_send_, memory_recv_,
      memory_read_back_;  // from the transport, which may move only its own memory
  PageBytes a_, b_;
  int blocks_;
};

// The memory-traffic bound (over shm, where each rank's own core moves what it receives):
// what each rank copies and reduces running the algorithm's schedule (memory_work_of_ranks:
// a receive copies, a fused receive reduces, local operations as they are), each byte at
// the rate the memory probe of its kind reached with every rank at once, for the busiest
// rank: t >= the sum over kinds of bytes / rate. Bytes read and written: 2 per byte
// copied, 3 per byte reduced. Each algorithm has its own bound: one that moves more bytes,
// or more of them between lines the other core holds, has a later one.
// Adds memory_bound_us, of_memory_bound (bound / p50) and the details to an algorithm's row,
// from the probes' p50s over `probe_bytes`; returns of_memory_bound.
double add_memory_bound(ResultRow& row, const std::vector<MemoryWork>& ranks, std::size_t probe_bytes,
                        const MemoryProbeP50s& p50_us);

// The bound's per-call series from the probes' (exchange already per message):
// quantile by quantile, so its min, p50 and max combine the probes' min, p50 and max.
std::vector<double> combine_bound(Collective c, int nranks, std::vector<double> exchange, std::vector<double> reduce);

}  // namespace collbench
