// NCCL over the run's ranks: its point-to-point as a Transport (a step's sends and
// receives in one group, on the memory space's stream) and its collectives as baselines.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "collectives/transport/gpu/cuda_check.hpp"
#include "collectives/transport/gpu/nccl.hpp"

namespace collbench {
namespace {

void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::f32: return ncclFloat32;
    case DType::f64: return ncclFloat64;
    case DType::f16: return ncclFloat16;
    case DType::bf16: return ncclBfloat16;
    case DType::i32: return ncclInt32;
    case DType::i64: return ncclInt64;
  }
  throw std::logic_error("nccl: unknown dtype");
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return ncclSum;
    case ReduceOp::prod: return ncclProd;
    case ReduceOp::min: return ncclMin;
    case ReduceOp::max: return ncclMax;
  }
  throw std::logic_error("nccl: unknown op");
}

class NcclTransport final : public Transport {
 public:
  NcclTransport(int rank, int size, MemorySpace& space, const BroadcastBytes& bcast)
      : rank_(rank), size_(size), space_(space), stream_(static_cast<cudaStream_t>(space.native_stream())) {
    if (!stream_) throw std::logic_error("the nccl transport needs a GPU's memory space");
    ncclUniqueId id{};
    if (rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    bcast(&id, sizeof id);
    nccl_check(ncclCommInitRank(&comm_, size, id, rank), "ncclCommInitRank");
  }
  ~NcclTransport() override {
    if (comm_) ncclCommDestroy(comm_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string_view name() const override { return "nccl-p2p"; }
  OwnedBuffer allocate(std::size_t bytes) override { return space_.allocate(bytes); }
  MemorySpace& memory() override { return space_; }
  ncclComm_t comm() const { return comm_; }
  cudaStream_t stream() const { return stream_; }

  Ticket start_send(const Message& m) override { return queue(true, m); }
  Ticket start_recv(const Message& m) override { return queue(false, m); }
  Ticket post_send(int, int, const std::byte*, std::size_t) override { return tagged(); }
  Ticket post_recv(int, int, std::byte*, std::size_t) override { return tagged(); }

  Completion wait_any(std::span<const Ticket> tickets) override {
    launch();
    for (;;)
      for (std::size_t i = 0; i < tickets.size(); ++i)
        if (done(tickets[i])) return {i, spend(tickets[i])};
  }
  void wait_some(std::span<const Ticket> tickets, std::vector<std::size_t>& out) override {
    launch();
    for (std::size_t found = out.size(); out.size() == found;)
      for (std::size_t i = 0; i < tickets.size(); ++i)
        if (done(tickets[i])) spend(tickets[i]), out.push_back(i);
  }
  void wait_all(std::span<const Ticket> tickets) override {
    launch();
    for (Ticket t : tickets) {
      while (!done(t)) {}
      spend(t);
    }
  }

 private:
  struct Flight {
    bool send = false;
    Message m;
    std::uint64_t mark = 0;  // the stream's mark after its group (MemorySpace::mark)
  };

  Ticket queue(bool send, const Message& m) {
    const Ticket t = next_++;
    flights_.emplace(t, Flight{send, m, 0});
    pending_.push_back(t);
    return t;
  }
  [[noreturn]] static Ticket tagged() {
    throw std::logic_error("the nccl transport carries schedule messages only, not tagged ones");
  }
  // Everything posted since the last wait goes out as one group.
  void launch() {
    if (pending_.empty()) return;
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    for (Ticket t : pending_) {
      const Flight& f = flights_.at(t);
      if (f.send)
        nccl_check(ncclSend(f.m.data, f.m.bytes, ncclUint8, f.m.peer, comm_, stream_), "ncclSend");
      else
        nccl_check(ncclRecv(f.m.data, f.m.bytes, ncclUint8, f.m.peer, comm_, stream_), "ncclRecv");
    }
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    const std::uint64_t mark = space_.mark();
    for (Ticket t : pending_) flights_.at(t).mark = mark;
    pending_.clear();
  }
  bool done(Ticket t) { return space_.reached(flights_.at(t).mark); }
  // Forgets a completed ticket; returns the bytes a receive got.
  std::size_t spend(Ticket t) {
    auto it = flights_.find(t);
    const std::size_t bytes = it->second.send ? 0 : it->second.m.bytes;
    flights_.erase(it);
    return bytes;
  }

  int rank_, size_;
  MemorySpace& space_;
  cudaStream_t stream_;
  ncclComm_t comm_ = nullptr;
  Ticket next_ = 0;
  std::unordered_map<Ticket, Flight> flights_;
  std::vector<Ticket> pending_;
};

// NCCL's own collective on the call's device buffers, then the stream waited for.
class NcclCollective final : public PreparedCollective {
 public:
  NcclCollective(const CollectiveCall& c, NcclTransport& t) : c_(c), t_(t) {
    // An in-place all-to-all would overwrite blocks before they are sent: send from a copy.
    const bool all_to_all = c.collective == Collective::alltoall || c.collective == Collective::alltoallv;
    if (all_to_all && c.in_place)
      staged_ = t.allocate(PeerBlocks(t.size(), c.count, c.counts.get()).recv_total(t.rank()) * dtype_size(c.dtype));
  }
  void run() override {
    const ncclDataType_t dt = nccl_type(c_.dtype);
    const std::size_t elem = dtype_size(c_.dtype), n = c_.count;
    auto* recv = static_cast<std::byte*>(c_.recv);
    const int rank = t_.rank(), size = t_.size();
    ncclComm_t comm = t_.comm();
    cudaStream_t s = t_.stream();
    switch (c_.collective) {
      case Collective::allreduce:
        nccl_check(ncclAllReduce(c_.send, recv, n, dt, nccl_op(c_.op), comm, s), "ncclAllReduce");
        break;
      case Collective::broadcast:
        nccl_check(ncclBroadcast(recv, recv, n, dt, c_.root, comm, s), "ncclBroadcast");
        break;
      case Collective::reduce:
        nccl_check(ncclReduce(c_.send, recv, n, dt, nccl_op(c_.op), c_.root, comm, s), "ncclReduce");
        break;
      case Collective::allgather: nccl_check(ncclAllGather(c_.send, recv, n, dt, comm, s), "ncclAllGather"); break;
      case Collective::reduce_scatter:
        if (!c_.in_place) {
          nccl_check(ncclReduceScatter(c_.send, recv, n, dt, nccl_op(c_.op), comm, s), "ncclReduceScatter");
        } else {
          // NCCL's in-place result sits at this rank's block; MPI's (and the check's) at
          // the front: one device copy more.
          std::byte* mine = recv + static_cast<std::size_t>(rank) * n * elem;
          nccl_check(ncclReduceScatter(c_.send, mine, n, dt, nccl_op(c_.op), comm, s), "ncclReduceScatter");
          if (rank != 0)
            cuda_check(cudaMemcpyAsync(recv, mine, n * elem, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
        }
        break;
      case Collective::gather:
        nccl_check(ncclGroupStart(), "ncclGroupStart");
        if (rank == c_.root) {
          for (int r = 0; r < size; ++r)
            if (r != rank)
              nccl_check(ncclRecv(recv + static_cast<std::size_t>(r) * n * elem, n, dt, r, comm, s), "ncclRecv");
        } else {
          nccl_check(ncclSend(c_.send, n, dt, c_.root, comm, s), "ncclSend");
        }
        nccl_check(ncclGroupEnd(), "ncclGroupEnd");
        if (rank == c_.root && !c_.in_place)
          cuda_check(cudaMemcpyAsync(recv + static_cast<std::size_t>(rank) * n * elem, c_.send, n * elem,
                                     cudaMemcpyDeviceToDevice, s),
                     "cudaMemcpyAsync");
        break;
      case Collective::alltoall:
      case Collective::alltoallv: all_to_all(dt, elem, recv, s); break;
    }
    cuda_check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  }

 private:
  // As nccl-tests' alltoall: one grouped ncclSend and ncclRecv per peer, itself included.
  void all_to_all(ncclDataType_t dt, std::size_t elem, std::byte* recv, cudaStream_t s) {
    const PeerBlocks b(t_.size(), c_.count, c_.counts.get());
    const int me = t_.rank();
    const auto* send = static_cast<const std::byte*>(c_.send);
    if (staged_.data()) {
      cuda_check(cudaMemcpyAsync(staged_.data(), recv, b.recv_total(me) * elem, cudaMemcpyDeviceToDevice, s),
                 "cudaMemcpyAsync");
      send = staged_.data();
    }
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    for (int p = 0; p < b.nranks(); ++p) {
      if (b.count(me, p) > 0)
        nccl_check(ncclSend(send + b.send_offset(me, p) * elem, b.count(me, p), dt, p, t_.comm(), s), "ncclSend");
      if (b.count(p, me) > 0)
        nccl_check(ncclRecv(recv + b.recv_offset(me, p) * elem, b.count(p, me), dt, p, t_.comm(), s), "ncclRecv");
    }
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
  }

  CollectiveCall c_;
  NcclTransport& t_;
  OwnedBuffer staged_;
};

}  // namespace

std::unique_ptr<Transport> make_nccl_transport(int rank, int size, MemorySpace& space, const BroadcastBytes& bcast) {
  return std::make_unique<NcclTransport>(rank, size, space, bcast);
}

std::unique_ptr<PreparedCollective> prepare_nccl_collective(const CollectiveCall& call, Transport& transport) {
  auto* nccl = dynamic_cast<NcclTransport*>(&transport);
  if (!nccl) throw std::logic_error("the nccl baseline runs on the nccl transport (--memory device --transport nccl)");
  return std::make_unique<NcclCollective>(call, *nccl);
}

}  // namespace collbench
