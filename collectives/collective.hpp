#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "dtype.hpp"

namespace collbench {

enum class Collective { allreduce, broadcast, reduce, gather };
inline constexpr std::array kAllCollectives{Collective::allreduce, Collective::broadcast,
                                            Collective::reduce, Collective::gather};

std::string_view collective_name(Collective c);
std::optional<Collective> parse_collective(std::string_view name);
bool uses_reduce_op(Collective c);
bool uses_root(Collective c);

// nccl-tests' bus-bandwidth factor: busbw = algbw * factor.
double busbw_factor(Collective c, int nranks);

// Element counts of one rank's buffers. `count` is the per-rank element count
// (for gather: what each rank contributes). Broadcast has a single buffer, so its
// send buffer is always the receive buffer; in place, reduce and gather alias only
// at the root, as MPI_IN_PLACE does.
struct BufferLayout {
  std::size_t send_count = 0;
  std::size_t recv_count = 0;
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
