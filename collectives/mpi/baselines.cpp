#include "collectives/mpi/baselines.hpp"

#include <climits>
#include <iterator>
#include <string>
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
  int small() const { return static_cast<int>(count); }
};

// The MPI library's call for each collective, in Collective order; large counts take
// the MPI-4 _c entry points.
using MpiCall = void (*)(const MpiArgs&);
constexpr MpiCall kMpiCalls[] = {
    [](const MpiArgs& a) {
      if (a.large) MPI_Allreduce_c(a.send, a.recv, a.count, a.type, a.op, a.comm);
      else MPI_Allreduce(a.send, a.recv, a.small(), a.type, a.op, a.comm);
    },
    [](const MpiArgs& a) {
      if (a.large) MPI_Bcast_c(a.recv, a.count, a.type, a.root, a.comm);
      else MPI_Bcast(a.recv, a.small(), a.type, a.root, a.comm);
    },
    [](const MpiArgs& a) {
      if (a.large) MPI_Reduce_c(a.send, a.recv, a.count, a.type, a.op, a.root, a.comm);
      else MPI_Reduce(a.send, a.recv, a.small(), a.type, a.op, a.root, a.comm);
    },
    [](const MpiArgs& a) {
      if (a.large) MPI_Gather_c(a.send, a.count, a.type, a.recv, a.count, a.type, a.root, a.comm);
      else MPI_Gather(a.send, a.small(), a.type, a.recv, a.small(), a.type, a.root, a.comm);
    },
    [](const MpiArgs& a) {
      if (a.large) MPI_Allgather_c(a.send, a.count, a.type, a.recv, a.count, a.type, a.comm);
      else MPI_Allgather(a.send, a.small(), a.type, a.recv, a.small(), a.type, a.comm);
    },
    [](const MpiArgs& a) {
      if (a.large) MPI_Reduce_scatter_block_c(a.send, a.recv, a.count, a.type, a.op, a.comm);
      else MPI_Reduce_scatter_block(a.send, a.recv, a.small(), a.type, a.op, a.comm);
    },
};
static_assert(std::size(kMpiCalls) == kAllCollectives.size(), "one MPI call per collective, in Collective order");

class MpiCollective final : public PreparedCollective {
 public:
  MpiCollective(Collective c, MpiArgs a) : call_(kMpiCalls[static_cast<std::size_t>(c)]), a_(a) {}
  void run() override { call_(a_); }

 private:
  MpiCall call_;
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
  for (const CollectiveTraits& c : kCollectiveTraits)
    registry.add({c.id, "mpi", "the MPI library's own " + std::string(c.mpi_function), nullptr, prepare_mpi});
}

}  // namespace collbench
