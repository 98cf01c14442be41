#pragma once
// One description per collective: every place that needs to know what a collective
// means (its name, whether it has a root or a reduction, how its size is counted,
// its bus-bandwidth factor, its buffers, which elements its result holds) reads the
// row of kCollectiveTraits. Adding a collective is one row here, its builders, and its
// MPI row (collectives/transport/mpi/mpi_names.cpp) and call.
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "collectives/block_counts.hpp"
#include "collectives/dtype.hpp"
#include "collectives/names.hpp"

namespace collbench {

enum class Collective { allreduce, broadcast, reduce, gather, allgather, reduce_scatter, alltoall, alltoallv };

// Element counts of one rank's buffers. `count` is the per-rank element count (for
// gather and allgather what each rank contributes, for reduce_scatter what each rank
// receives, for alltoall what each rank sends each peer; for alltoallv the mean of its
// count matrix, block_counts.hpp). Broadcast has a single buffer, so its send buffer is always the receive
// buffer. In place follows MPI_IN_PLACE: reduce and gather alias only at the root,
// allgather's input is the rank's own block of the output, and reduce_scatter reads
// its input from the receive buffer and leaves its result at the start. An in-place
// all-to-all sends from the receive buffer and replaces it (alltoallv: only with a
// symmetric matrix, as MPI takes the send counts from the receive counts).
struct BufferLayout {
  std::size_t send_count = 0;
  std::size_t recv_count = 0;
  std::size_t result_count = 0;  // leading elements of recv that hold the result
  bool send_aliases_recv = false;
  std::size_t send_offset_in_recv = 0;  // elements, when aliased
};

// What element i of a rank's result must hold: input element `index` of every rank
// (a reduction) or of rank `from` alone.
struct ResultSource {
  std::size_t index = 0;
  bool all_ranks = false;
  int from = 0;
};

struct LayoutRequest {
  std::size_t count = 0;
  int nranks = 1, rank = 0, root = 0;
  bool in_place = false;
  const CountMatrix* counts = nullptr;  // alltoallv's matrix; null: `count` to every peer
  PeerBlocks blocks() const { return {nranks, count, counts}; }
};

struct CollectiveTraits {
  Collective id;
  std::string_view name;
  bool uses_root;
  bool uses_reduce_op;
  bool only_root_contributes;  // the other ranks' send buffers are not read (broadcast)
  // Whether a call's size counts every rank's block (`count` is one rank's block and
  // the size is n blocks, as in nccl-tests) or one rank's buffer.
  bool counts_all_blocks;
  bool takes_count_matrix;  // a count per (sender, receiver) pair: alltoallv
  // nccl-tests' bus-bandwidth factor: busbw = algbw * factor(n), written as `factor_text`.
  double (*busbw_factor)(int nranks);
  std::string_view busbw_factor_text;
  BufferLayout (*layout)(const LayoutRequest& q);
  // For result element i (i < layout.result_count) of rank q.rank.
  ResultSource (*result_of)(const LayoutRequest& q, std::size_t i);
};

const CollectiveTraits& traits(Collective c);
extern const std::array<CollectiveTraits, 8> kCollectiveTraits;
extern const NameTable<Collective, 8> kCollectiveNames;
inline constexpr std::array kAllCollectives{Collective::allreduce, Collective::broadcast, Collective::reduce,
                                            Collective::gather,    Collective::allgather, Collective::reduce_scatter,
                                            Collective::alltoall,  Collective::alltoallv};

inline std::string_view collective_name(Collective c) { return traits(c).name; }
inline std::optional<Collective> parse_collective(std::string_view name) { return kCollectiveNames.parse(name); }
inline bool uses_reduce_op(Collective c) { return traits(c).uses_reduce_op; }
inline bool uses_root(Collective c) { return traits(c).uses_root; }
inline bool size_counts_all_blocks(Collective c) { return traits(c).counts_all_blocks; }
inline bool takes_count_matrix(Collective c) { return traits(c).takes_count_matrix; }
inline double busbw_factor(Collective c, int nranks) { return traits(c).busbw_factor(nranks); }
// A call's size in elements from its per-rank count, and back: the count of a size
// given in bytes, rounded down to whole elements (and whole blocks where the size
// counts every rank's block). Every command turns bytes into counts with this.
std::size_t size_in_elements(Collective c, std::size_t count, int nranks);
std::size_t count_of_size(Collective c, std::size_t bytes, std::size_t element_size, int nranks);
BufferLayout buffer_layout(Collective c, std::size_t count, int nranks, int rank, int root, bool in_place,
                           const CountMatrix* counts = nullptr);

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
  SharedCounts counts;  // alltoallv's matrix (null: `count` to every peer)
};

// Points `call` at its buffers: send is the receive buffer (at its offset) where the
// layout aliases them, as MPI_IN_PLACE does.
CollectiveCall bind_buffers(CollectiveCall call, const BufferLayout& layout, const void* send, void* recv);

}  // namespace collbench
