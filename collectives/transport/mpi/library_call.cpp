#include "collectives/transport/mpi/library_call.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "collectives/transport/mpi/datatypes.hpp"

namespace collbench {
namespace {

// In-place reduce_scatter routes each window's result through a buffer of this size.
constexpr MPI_Count kInPlaceWindowBytes = MPI_Count{64} << 20;

const std::byte* at(const void* p, MPI_Count elements, MPI_Aint extent) {
  return p ? static_cast<const std::byte*>(p) + elements * extent : nullptr;
}
std::byte* at(void* p, MPI_Count elements, MPI_Aint extent) {
  return p ? static_cast<std::byte*>(p) + elements * extent : nullptr;
}
const void* send_at(const void* send, MPI_Count elements, MPI_Aint extent) {
  return send == MPI_IN_PLACE ? send : at(send, elements, extent);
}

// One datatype spanning `count` elements of `type`: whole chunks of `limit` elements,
// then the rest, resized so that block i of a gather lands at i * count elements.
MPI_Datatype spanning_type(MPI_Datatype type, MPI_Count count, MPI_Count limit, MPI_Aint extent) {
  const MPI_Count chunks = count / limit, rest = count % limit;
  if (chunks > INT_MAX) throw std::length_error(std::to_string(count) + " elements are too many for this MPI library");
  MPI_Datatype body = MPI_DATATYPE_NULL, tail = MPI_DATATYPE_NULL, joined = MPI_DATATYPE_NULL,
               whole = MPI_DATATYPE_NULL;
  const int l = static_cast<int>(limit);
  MPI_Type_vector(static_cast<int>(chunks), l, l, type, &body);
  if (rest > 0) {
    MPI_Type_contiguous(static_cast<int>(rest), type, &tail);
    int lengths[2] = {1, 1};
    MPI_Aint offsets[2] = {0, static_cast<MPI_Aint>(chunks * limit * extent)};
    MPI_Datatype parts[2] = {body, tail};
    MPI_Type_create_struct(2, lengths, offsets, parts, &joined);
    MPI_Type_free(&tail);
  } else {
    MPI_Type_dup(body, &joined);
  }
  MPI_Type_free(&body);
  MPI_Type_create_resized(joined, 0, static_cast<MPI_Aint>(count * extent), &whole);
  MPI_Type_free(&joined);
  MPI_Type_commit(&whole);
  return whole;
}

}  // namespace

MpiCallArgs mpi_call_args(const CollectiveCall& call, MPI_Comm comm, int rank) {
  MpiCallArgs a{call.send,
                call.recv,
                static_cast<MPI_Count>(call.count),
                mpi_datatype(call.dtype),
                uses_reduce_op(call.collective) ? mpi_op(call.dtype, call.op) : MPI_OP_NULL,
                call.root,
                comm,
                {1, 0}};
  if (call.collective == Collective::alltoall || call.collective == Collective::alltoallv) {
    int n = 1;
    MPI_Comm_size(comm, &n);
    a.blocks = PeerBlocks(n, call.count, call.counts.get());
  }
  if (call.in_place && (!uses_root(call.collective) || rank == call.root)) a.send = MPI_IN_PLACE;
  return a;
}

LargeCounts library_large_counts() {
#if COLLBENCH_MPI_LARGE_COUNT
  return LargeCounts::native;
#else
  return LargeCounts::split;
#endif
}

const char* large_counts_description() {
  return library_large_counts() == LargeCounts::native
             ? "MPI-4 large-count (_c) collectives above INT_MAX elements"
             : "no large-count (_c) collectives in this library: calls above INT_MAX elements are split";
}

MpiLibraryCall::MpiLibraryCall(Collective c, const MpiCallArgs& a, LargeCounts how, MPI_Count limit)
    : c_(c), a_(a), split_(how == LargeCounts::split && a.count > limit), limit_(limit) {
  if (c == Collective::alltoallv) {
    split_ = false;
    int me = 0;
    MPI_Comm_rank(a.comm, &me);
    const PeerBlocks& b = a.blocks;
    MPI_Count largest = 0;
    for (int p = 0; p < b.nranks(); ++p) {
      c_counts_.push_back(static_cast<MPI_Count>(b.count(me, p)));
      c_displs_.push_back(static_cast<MPI_Aint>(b.send_offset(me, p)));
      c_rcounts_.push_back(static_cast<MPI_Count>(b.count(p, me)));
      c_rdispls_.push_back(static_cast<MPI_Aint>(b.recv_offset(me, p)));
      largest = std::max({largest, c_counts_.back() + c_displs_.back(), c_rcounts_.back() + c_rdispls_.back()});
    }
    if (largest > limit) {
      if (how == LargeCounts::split)
        throw std::length_error("alltoallv with " + std::to_string(largest) +
                                " elements per rank needs MPI_Alltoallv_c, which this MPI library lacks");
      return;  // native: the _c arrays are used
    }
    v_counts_.assign(c_counts_.begin(), c_counts_.end());
    v_displs_.assign(c_displs_.begin(), c_displs_.end());
    v_rcounts_.assign(c_rcounts_.begin(), c_rcounts_.end());
    v_rdispls_.assign(c_rdispls_.begin(), c_rdispls_.end());
    return;
  }
  if (!split_) return;
  MPI_Aint lb = 0;
  MPI_Type_get_extent(a.type, &lb, &extent_);
  if (c == Collective::broadcast || c == Collective::gather || c == Collective::allgather || c == Collective::alltoall)
    whole_ = spanning_type(a.type, a.count, limit, extent_);
  if (c == Collective::reduce_scatter) {
    int n = 0;
    MPI_Comm_size(a.comm, &n);
    window_counts_.assign(static_cast<std::size_t>(n), 0);
    if (a.send == MPI_IN_PLACE) {
      limit_ = std::clamp<MPI_Count>(kInPlaceWindowBytes / std::max<MPI_Aint>(extent_, 1), 1, limit);
      window_result_.resize(static_cast<std::size_t>(limit_ * extent_));
    }
  }
}

MpiLibraryCall::~MpiLibraryCall() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (whole_ != MPI_DATATYPE_NULL && !finalized) MPI_Type_free(&whole_);
}

void MpiLibraryCall::alltoallv() {
  const MpiCallArgs& a = a_;
  if (v_counts_.empty()) {
#if COLLBENCH_MPI_LARGE_COUNT
    MPI_Alltoallv_c(a.send, c_counts_.data(), c_displs_.data(), a.type, a.recv, c_rcounts_.data(), c_rdispls_.data(),
                    a.type, a.comm);
#endif
    return;
  }
  MPI_Alltoallv(a.send, v_counts_.data(), v_displs_.data(), a.type, a.recv, v_rcounts_.data(), v_rdispls_.data(),
                a.type, a.comm);
}

void MpiLibraryCall::run() {
  if (c_ == Collective::alltoallv) return alltoallv();
  if (split_) return run_split();
  const MpiCallArgs& a = a_;
#if COLLBENCH_MPI_LARGE_COUNT
  if (a.count > INT_MAX) {
    switch (c_) {
      case Collective::allreduce: MPI_Allreduce_c(a.send, a.recv, a.count, a.type, a.op, a.comm); return;
      case Collective::broadcast: MPI_Bcast_c(a.recv, a.count, a.type, a.root, a.comm); return;
      case Collective::reduce: MPI_Reduce_c(a.send, a.recv, a.count, a.type, a.op, a.root, a.comm); return;
      case Collective::gather: MPI_Gather_c(a.send, a.count, a.type, a.recv, a.count, a.type, a.root, a.comm); return;
      case Collective::allgather: MPI_Allgather_c(a.send, a.count, a.type, a.recv, a.count, a.type, a.comm); return;
      case Collective::reduce_scatter:
        MPI_Reduce_scatter_block_c(a.send, a.recv, a.count, a.type, a.op, a.comm);
        return;
      case Collective::alltoall: MPI_Alltoall_c(a.send, a.count, a.type, a.recv, a.count, a.type, a.comm); return;
      case Collective::alltoallv: return;  // alltoallv() above
    }
  }
#endif
  const int n = static_cast<int>(a.count);
  switch (c_) {
    case Collective::allreduce: MPI_Allreduce(a.send, a.recv, n, a.type, a.op, a.comm); return;
    case Collective::broadcast: MPI_Bcast(a.recv, n, a.type, a.root, a.comm); return;
    case Collective::reduce: MPI_Reduce(a.send, a.recv, n, a.type, a.op, a.root, a.comm); return;
    case Collective::gather: MPI_Gather(a.send, n, a.type, a.recv, n, a.type, a.root, a.comm); return;
    case Collective::allgather: MPI_Allgather(a.send, n, a.type, a.recv, n, a.type, a.comm); return;
    case Collective::reduce_scatter: MPI_Reduce_scatter_block(a.send, a.recv, n, a.type, a.op, a.comm); return;
    case Collective::alltoall: MPI_Alltoall(a.send, n, a.type, a.recv, n, a.type, a.comm); return;
    case Collective::alltoallv: return;  // alltoallv() above
  }
}

void MpiLibraryCall::run_split() {
  const MpiCallArgs& a = a_;
  switch (c_) {
    case Collective::allreduce:
    case Collective::reduce:
      for (MPI_Count done = 0; done < a.count; done += limit_) {
        const int n = static_cast<int>(std::min(limit_, a.count - done));
        const void* send = send_at(a.send, done, extent_);
        void* recv = at(a.recv, done, extent_);
        if (c_ == Collective::allreduce)
          MPI_Allreduce(send, recv, n, a.type, a.op, a.comm);
        else
          MPI_Reduce(send, recv, n, a.type, a.op, a.root, a.comm);
      }
      return;
    case Collective::broadcast: MPI_Bcast(a.recv, 1, whole_, a.root, a.comm); return;
    case Collective::gather: MPI_Gather(a.send, 1, whole_, a.recv, 1, whole_, a.root, a.comm); return;
    case Collective::allgather: MPI_Allgather(a.send, 1, whole_, a.recv, 1, whole_, a.comm); return;
    case Collective::reduce_scatter: reduce_scatter_windows(); return;
    case Collective::alltoall: MPI_Alltoall(a.send, 1, whole_, a.recv, 1, whole_, a.comm); return;
    case Collective::alltoallv: return;
  }
}

// The send buffer (n blocks of `count`) in windows of at most limit_ elements; in each,
// every rank receives the part of its own block that the window holds. In place, the
// input is the receive buffer: a window's result goes through window_result_ and is
// copied to its place after the call, over input that earlier windows already read.
void MpiLibraryCall::reduce_scatter_windows() {
  const MpiCallArgs& a = a_;
  const bool in_place = a.send == MPI_IN_PLACE;
  int me = 0;
  MPI_Comm_rank(a.comm, &me);
  const MPI_Count total = a.count * static_cast<MPI_Count>(window_counts_.size());
  for (MPI_Count start = 0; start < total; start += limit_) {
    const MPI_Count end = std::min(total, start + limit_);
    for (std::size_t r = 0; r < window_counts_.size(); ++r) {
      const MPI_Count lo = std::max(start, static_cast<MPI_Count>(r) * a.count);
      const MPI_Count hi = std::min(end, static_cast<MPI_Count>(r + 1) * a.count);
      window_counts_[r] = static_cast<int>(std::max<MPI_Count>(hi - lo, 0));
    }
    const MPI_Count mine = std::max(start, me * a.count) - me * a.count;  // where my part starts in my block
    const void* send = at(in_place ? a.recv : a.send, start, extent_);
    void* recv = in_place ? window_result_.data() : at(a.recv, std::min(mine, a.count), extent_);
    MPI_Reduce_scatter(send, recv, window_counts_.data(), a.type, a.op, a.comm);
    const int got = window_counts_[static_cast<std::size_t>(me)];
    if (in_place && got > 0)
      std::memcpy(at(a.recv, mine, extent_), window_result_.data(), static_cast<std::size_t>(got * extent_));
  }
}

}  // namespace collbench
