#include "collectives/collective.hpp"

#include <cstddef>

namespace collbench {

std::string_view collective_name(Collective c) {
  switch (c) {
    case Collective::allreduce: return "allreduce";
    case Collective::broadcast: return "broadcast";
    case Collective::reduce: return "reduce";
    case Collective::gather: return "gather";
    case Collective::allgather: return "allgather";
    case Collective::reduce_scatter: return "reduce_scatter";
  }
  return "?";
}

std::optional<Collective> parse_collective(std::string_view name) {
  for (Collective c : kAllCollectives)
    if (collective_name(c) == name) return c;
  return std::nullopt;
}

bool uses_reduce_op(Collective c) {
  return c == Collective::allreduce || c == Collective::reduce || c == Collective::reduce_scatter;
}
bool uses_root(Collective c) {
  return c == Collective::broadcast || c == Collective::reduce || c == Collective::gather;
}

bool size_counts_all_blocks(Collective c) {
  return c == Collective::gather || c == Collective::allgather || c == Collective::reduce_scatter;
}
std::size_t size_in_elements(Collective c, std::size_t count, int nranks) {
  return size_counts_all_blocks(c) ? count * static_cast<std::size_t>(nranks) : count;
}

double busbw_factor(Collective c, int nranks) {
  const double n = nranks;
  switch (c) {
    case Collective::allreduce: return 2.0 * (n - 1) / n;
    case Collective::gather:
    case Collective::allgather:
    case Collective::reduce_scatter: return (n - 1) / n;
    case Collective::broadcast:
    case Collective::reduce: return 1.0;
  }
  return 1.0;
}

BufferLayout buffer_layout(Collective c, std::size_t count, int nranks, int rank, int root,
                           bool in_place) {
  BufferLayout l;
  const std::size_t all = count * static_cast<std::size_t>(nranks);
  l.send_count = count;
  switch (c) {
    case Collective::allreduce:
      l.recv_count = count;
      l.send_aliases_recv = in_place;
      break;
    case Collective::broadcast:
      l.recv_count = count;
      l.send_aliases_recv = true;
      break;
    case Collective::reduce:
      l.recv_count = rank == root ? count : 0;
      l.send_aliases_recv = in_place && rank == root;
      break;
    case Collective::gather:
      l.recv_count = rank == root ? count * static_cast<std::size_t>(nranks) : 0;
      l.send_aliases_recv = in_place && rank == root;
      l.send_offset_in_recv = l.send_aliases_recv ? count * static_cast<std::size_t>(root) : 0;
      break;
    case Collective::allgather:
      l.recv_count = all;
      l.send_aliases_recv = in_place;
      l.send_offset_in_recv = in_place ? count * static_cast<std::size_t>(rank) : 0;
      break;
    case Collective::reduce_scatter:
      l.send_count = all;
      l.recv_count = in_place ? all : count;
      l.result_count = count;
      l.send_aliases_recv = in_place;
      return l;
  }
  l.result_count = l.recv_count;
  return l;
}

CollectiveCall bind_buffers(CollectiveCall call, const BufferLayout& layout, const void* send, void* recv) {
  call.recv = recv;
  call.send = layout.send_aliases_recv
                  ? static_cast<std::byte*>(recv) + layout.send_offset_in_recv * dtype_size(call.dtype)
                  : send;
  return call;
}

}  // namespace collbench
