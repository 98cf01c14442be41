#include "collectives/collective.hpp"

#include <cstddef>
#include <stdexcept>

namespace collbench {
namespace {

using Q = LayoutRequest;
std::size_t all_blocks(const Q& q) { return q.count * static_cast<std::size_t>(q.nranks); }
bool at_root(const Q& q) { return q.rank == q.root; }

double factor_all_to_all(int n) { return 2.0 * (n - 1) / n; }
double factor_one_of_n(int n) { return static_cast<double>(n - 1) / n; }
double factor_one(int) { return 1.0; }

BufferLayout same_size(const Q& q, std::size_t recv, bool aliases, std::size_t offset = 0) {
  return {q.count, recv, recv, aliases, offset};
}

BufferLayout allreduce_layout(const Q& q) { return same_size(q, q.count, q.in_place); }
BufferLayout broadcast_layout(const Q& q) { return same_size(q, q.count, true); }
BufferLayout reduce_layout(const Q& q) { return same_size(q, at_root(q) ? q.count : 0, q.in_place && at_root(q)); }
BufferLayout gather_layout(const Q& q) {
  const bool aliases = q.in_place && at_root(q);
  return same_size(q, at_root(q) ? all_blocks(q) : 0, aliases,
                   aliases ? q.count * static_cast<std::size_t>(q.root) : 0);
}
BufferLayout allgather_layout(const Q& q) {
  return same_size(q, all_blocks(q), q.in_place, q.in_place ? q.count * static_cast<std::size_t>(q.rank) : 0);
}
BufferLayout reduce_scatter_layout(const Q& q) {
  return {all_blocks(q), q.in_place ? all_blocks(q) : q.count, q.count, q.in_place, 0};
}

BufferLayout all_to_all_layout(const Q& q) {
  const PeerBlocks b = q.blocks();
  if (q.in_place && !b.symmetric())
    throw std::invalid_argument(
        "alltoallv in place needs a symmetric count matrix (MPI_IN_PLACE sends what it receives)");
  const std::size_t recv = b.recv_total(q.rank);
  return {q.in_place ? recv : b.send_total(q.rank), recv, recv, q.in_place, 0};
}

ResultSource reduced(const Q&, std::size_t i) { return {i, true, 0}; }
ResultSource from_root(const Q& q, std::size_t i) { return {i, false, q.root}; }
ResultSource block_of_rank(const Q& q, std::size_t i) { return {i % q.count, false, static_cast<int>(i / q.count)}; }
ResultSource from_peer_block(const Q& q, std::size_t i) {
  const auto [from, index] = q.blocks().source_of(q.rank, i);
  return {index, false, from};
}
ResultSource own_block_reduced(const Q& q, std::size_t i) {
  return {static_cast<std::size_t>(q.rank) * q.count + i, true, 0};
}

}  // namespace

constexpr std::array<CollectiveTraits, 8> kCollectiveTraits{{
    {.id = Collective::allreduce,
     .name = "allreduce",
     .uses_root = false,
     .uses_reduce_op = true,
     .only_root_contributes = false,
     .counts_all_blocks = false,
     .takes_count_matrix = false,
     .busbw_factor = factor_all_to_all,
     .busbw_factor_text = "2(n-1)/n",
     .layout = allreduce_layout,
     .result_of = reduced},
    {.id = Collective::broadcast,
     .name = "broadcast",
     .uses_root = true,
     .uses_reduce_op = false,
     .only_root_contributes = true,
     .counts_all_blocks = false,
     .takes_count_matrix = false,
     .busbw_factor = factor_one,
     .busbw_factor_text = "1",
     .layout = broadcast_layout,
     .result_of = from_root},
    {.id = Collective::reduce,
     .name = "reduce",
     .uses_root = true,
     .uses_reduce_op = true,
     .only_root_contributes = false,
     .counts_all_blocks = false,
     .takes_count_matrix = false,
     .busbw_factor = factor_one,
     .busbw_factor_text = "1",
     .layout = reduce_layout,
     .result_of = reduced},
    {.id = Collective::gather,
     .name = "gather",
     .uses_root = true,
     .uses_reduce_op = false,
     .only_root_contributes = false,
     .counts_all_blocks = true,
     .takes_count_matrix = false,
     .busbw_factor = factor_one_of_n,
     .busbw_factor_text = "(n-1)/n",
     .layout = gather_layout,
     .result_of = block_of_rank},
    {.id = Collective::allgather,
     .name = "allgather",
     .uses_root = false,
     .uses_reduce_op = false,
     .only_root_contributes = false,
     .counts_all_blocks = true,
     .takes_count_matrix = false,
     .busbw_factor = factor_one_of_n,
     .busbw_factor_text = "(n-1)/n",
     .layout = allgather_layout,
     .result_of = block_of_rank},
    {.id = Collective::reduce_scatter,
     .name = "reduce_scatter",
     .uses_root = false,
     .uses_reduce_op = true,
     .only_root_contributes = false,
     .counts_all_blocks = true,
     .takes_count_matrix = false,
     .busbw_factor = factor_one_of_n,
     .busbw_factor_text = "(n-1)/n",
     .layout = reduce_scatter_layout,
     .result_of = own_block_reduced},
    // nccl-tests' alltoall: the size is all n blocks a rank sends, busbw (n-1)/n.
    {.id = Collective::alltoall,
     .name = "alltoall",
     .uses_root = false,
     .uses_reduce_op = false,
     .only_root_contributes = false,
     .counts_all_blocks = true,
     .takes_count_matrix = false,
     .busbw_factor = factor_one_of_n,
     .busbw_factor_text = "(n-1)/n",
     .layout = all_to_all_layout,
     .result_of = from_peer_block},
    {.id = Collective::alltoallv,
     .name = "alltoallv",
     .uses_root = false,
     .uses_reduce_op = false,
     .only_root_contributes = false,
     .counts_all_blocks = true,
     .takes_count_matrix = true,
     .busbw_factor = factor_one_of_n,
     .busbw_factor_text = "(n-1)/n",
     .layout = all_to_all_layout,
     .result_of = from_peer_block},
}};

constexpr NameTable<Collective, 8> kCollectiveNames = name_table_of<Collective>(kCollectiveTraits);
static_assert(rows_in_enum_order<Collective>(kCollectiveTraits), "kCollectiveTraits is indexed by Collective");

const CollectiveTraits& traits(Collective c) { return kCollectiveTraits[static_cast<std::size_t>(c)]; }

std::size_t size_in_elements(Collective c, std::size_t count, int nranks) {
  return size_counts_all_blocks(c) ? count * static_cast<std::size_t>(nranks) : count;
}

std::size_t count_of_size(Collective c, std::size_t bytes, std::size_t element_size, int nranks) {
  return bytes / element_size / size_in_elements(c, 1, nranks);
}

BufferLayout buffer_layout(Collective c, std::size_t count, int nranks, int rank, int root, bool in_place,
                           const CountMatrix* counts) {
  return traits(c).layout({count, nranks, rank, root, in_place, counts});
}

CollectiveCall bind_buffers(CollectiveCall call, const BufferLayout& layout, const void* send, void* recv) {
  call.recv = recv;
  call.send = layout.send_aliases_recv
                  ? static_cast<std::byte*>(recv) + layout.send_offset_in_recv * dtype_size(call.dtype)
                  : send;
  return call;
}

}  // namespace collbench
