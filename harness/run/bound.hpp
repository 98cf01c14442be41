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
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/process/page_bytes.hpp"
#include "collectives/schedule/registry.hpp"
#include "collectives/transport/transport.hpp"

namespace collbench {

bool has_bound(Collective c);
// "2(n-1) t_exchange + (n-1) t_reduce" for the collective.
std::string bound_formula(Collective c);

// Bytes of the block each ring step moves, for a call of `count` elements per rank.
std::size_t bound_block_bytes(Collective c, std::size_t count, int nranks, std::size_t elem);

class BoundProbes {
 public:
  // Buffers for blocks up to `max_block_bytes`, `blocks` of them (the rank count).
  BoundProbes(Transport& transport, DType dtype, ReduceOp op, std::size_t max_block_bytes, int blocks);
  // Messages per timed exchange call (the window): divide its call times by this.
  static int window(std::size_t block_bytes);
  std::unique_ptr<PreparedCollective> exchange(std::size_t block_bytes);
  std::unique_ptr<PreparedCollective> reduce(std::size_t block_bytes);

 private:
  Transport& transport_;
  DType dtype_;
  ReduceOp op_;
  OwnedBuffer send_, recv_;  // from the transport, which may move only its own memory
  PageBytes a_, b_;
  int blocks_;
};

// The bound's per-call series from the probes' (exchange already per message):
// quantile by quantile, so its min, p50 and max combine the probes' min, p50 and max.
std::vector<double> combine_bound(Collective c, int nranks, std::vector<double> exchange, std::vector<double> reduce);

}  // namespace collbench
