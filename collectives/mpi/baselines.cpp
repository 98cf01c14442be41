#include "collectives/mpi/baselines.hpp"

#include <climits>
#include <stdexcept>

#include "collectives/mpi/transport.hpp"
#include "collectives/mpi/datatypes.hpp"

namespace collbench {
namespace {

// The call as MPI sees it, with MPI_IN_PLACE where the caller asked for in place.
struct MpiArgs {
  const void* send;
  void* recv;
  MPI_Count count;
  MPI_Datatype type;
  MPI_Op op;
  int root;
  MPI_Comm comm;
  bool large;  // needs the MPI-4 large-count (_c) entry points
};

class MpiCollective final : public PreparedCollective {
 public:
  MpiCollective(Collective c, MpiArgs a) : c_(c), a_(a) {}
  void run() override {
    const int n = static_cast<int>(a_.count);
    switch (c_) {
      case Collective::allreduce:
        if (a_.large) MPI_Allreduce_c(a_.send, a_.recv, a_.count, a_.type, a_.op, a_.comm);
        else MPI_Allreduce(a_.send, a_.recv, n, a_.type, a_.op, a_.comm);
        break;
      case Collective::broadcast:
        if (a_.large) MPI_Bcast_c(a_.recv, a_.count, a_.type, a_.root, a_.comm);
        else MPI_Bcast(a_.recv, n, a_.type, a_.root, a_.comm);
        break;
      case Collective::reduce:
        if (a_.large) MPI_Reduce_c(a_.send, a_.recv, a_.count, a_.type, a_.op, a_.root, a_.comm);
        else MPI_Reduce(a_.send, a_.recv, n, a_.type, a_.op, a_.root, a_.comm);
        break;
      case Collective::gather:
        if (a_.large) MPI_Gather_c(a_.send, a_.count, a_.type, a_.recv, a_.count, a_.type, a_.root, a_.comm);
        else MPI_Gather(a_.send, n, a_.type, a_.recv, n, a_.type, a_.root, a_.comm);
        break;
      case Collective::allgather:
        if (a_.large) MPI_Allgather_c(a_.send, a_.count, a_.type, a_.recv, a_.count, a_.type, a_.comm);
        else MPI_Allgather(a_.send, n, a_.type, a_.recv, n, a_.type, a_.comm);
        break;
      case Collective::reduce_scatter:
        if (a_.large) MPI_Reduce_scatter_block_c(a_.send, a_.recv, a_.count, a_.type, a_.op, a_.comm);
        else MPI_Reduce_scatter_block(a_.send, a_.recv, n, a_.type, a_.op, a_.comm);
        break;
    }
  }

 private:
  Collective c_;
  MpiArgs a_;
};

std::unique_ptr<PreparedCollective> prepare_mpi(const CollectiveCall& call, Transport& transport) {
  auto* mpi = dynamic_cast<MpiTransport*>(&transport);
  if (!mpi) throw std::invalid_argument("the mpi baseline needs the MPI transport");
  MpiArgs a{call.send, call.recv, static_cast<MPI_Count>(call.count), mpi_datatype(call.dtype),
            uses_reduce_op(call.collective) ? mpi_op(call.dtype, call.op) : MPI_OP_NULL,
            call.root, mpi->comm(), call.count > static_cast<std::size_t>(INT_MAX)};
  if (call.in_place && (!uses_root(call.collective) || mpi->rank() == call.root)) a.send = MPI_IN_PLACE;
  return std::make_unique<MpiCollective>(call.collective, a);
}

}  // namespace

void register_mpi_baselines(Registry& registry) {
  const std::pair<Collective, const char*> functions[] = {{Collective::allreduce, "MPI_Allreduce"},
                                                          {Collective::broadcast, "MPI_Bcast"},
                                                          {Collective::reduce, "MPI_Reduce"},
                                                          {Collective::gather, "MPI_Gather"},
                                                          {Collective::allgather, "MPI_Allgather"},
                                                          {Collective::reduce_scatter, "MPI_Reduce_scatter_block"}};
  for (const auto& [c, function] : functions)
    registry.add({c, "mpi", std::string("the MPI library's own ") + function, nullptr, prepare_mpi});
}

}  // namespace collbench
