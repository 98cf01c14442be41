#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "collectives/dtype.hpp"

namespace collbench {

enum class Collective { allreduce, broadcast, reduce, gather, allgather, reduce_scatter };
inline constexpr std::array kAllCollectives{Collective::allreduce, Collective::broadcast,
                                            Collective::reduce,    Collective::gather,
                                            Collective::allgather, Collective::reduce_scatter};

std::string_view collective_name(Collective c);
std::optional<Collective> parse_collective(std::string_view name);
bool uses_reduce_op(Collective c);
bool uses_root(Collective c);

// nccl-tests' bus-bandwidth factor: busbw = algbw * factor.
double busbw_factor(Collective c, int nranks);

// Whether a call's size counts every rank's block (gather, allgather, reduce_scatter:
// `count` is one rank's block and the size is n blocks, as in nccl-tests) or one
// rank's buffer (allreduce, broadcast, reduce).
bool size_counts_all_blocks(Collective c);
std::size_t size_in_elements(Collective c, std::size_t count, int nranks);

// Element counts of one rank's buffers. `count` is the per-rank element count (for
// gather and allgather what each rank contributes, for reduce_scatter what each rank
// receives). Broadcast has a single buffer, so its send buffer is always the receive
// buffer. In place follows MPI_IN_PLACE: reduce and gather alias only at the root,
// allgather's input is the rank's own block of the output, and reduce_scatter reads
// its input from the receive buffer and leaves its result at the start.
struct BufferLayout {
  std::size_t send_count = 0;
  std::size_t recv_count = 0;
  std::size_t result_count = 0;  // leading elements of recv that hold the result
  bool send_aliases_recv = false;
  std::size_t send_offset_in_recv = 0;  // elements, when aliased
};
BufferLayout buffer_layout(Collective c, std::size_t count, int nranks, int rank, int root,
                           bool in_place);

// One call of a collective on one rank: what a PreparedCollective runs.
struct CollectiveCall {
  Collective collective = Collective::allreduce;
  DType dtype = DType::f32;
  ReduceOp op = ReduceOp::sum;
  std::size_t count = 0;  // per rank, as in BufferLayout
  int root = 0;
  const void* send = nullptr;  // equals recv (+offset) when in place
  void* recv = nullptr;
  bool in_place = false;
};

// Points `call` at its buffers: send is the receive buffer (at its offset) where the
// layout aliases them, as MPI_IN_PLACE does.
CollectiveCall bind_buffers(CollectiveCall call, const BufferLayout& layout, const void* send, void* recv);

}  // namespace collbench
