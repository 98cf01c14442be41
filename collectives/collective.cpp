#include "collective.hpp"

#include <cstddef>

namespace collbench {

std::string_view collective_name(Collective c) {
  switch (c) {
    case Collective::allreduce: return "allreduce";
    case Collective::broadcast: return "broadcast";
    case Collective::reduce: return "reduce";
    case Collective::gather: return "gather";
  }
  return "?";
}

std::optional<Collective> parse_collective(std::string_view name) {
  for (Collective c : kAllCollectives)
    if (collective_name(c) == name) return c;
  return std::nullopt;
}

bool uses_reduce_op(Collective c) { return c == Collective::allreduce || c == Collective::reduce; }
bool uses_root(Collective c) { return c != Collective::allreduce; }

double busbw_factor(Collective c, int nranks) {
  const double n = nranks;
  switch (c) {
    case Collective::allreduce: return 2.0 * (n - 1) / n;
    case Collective::gather: return (n - 1) / n;
    case Collective::broadcast:
    case Collective::reduce: return 1.0;
  }
  return 1.0;
}

BufferLayout buffer_layout(Collective c, std::size_t count, int nranks, int rank, int root,
                           bool in_place) {
  BufferLayout l;
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
  }
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
