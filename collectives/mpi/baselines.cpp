#include "collectives/mpi/baselines.hpp"

#include <string>
#include <stdexcept>

#include "collectives/mpi/datatypes.hpp"
#include "collectives/mpi/library_call.hpp"
#include "collectives/mpi/transport.hpp"

namespace collbench {
namespace {

class MpiCollective final : public PreparedCollective {
 public:
  MpiCollective(Collective c, const MpiCallArgs& a) : call_(c, a) {}
  void run() override { call_.run(); }

 private:
  MpiLibraryCall call_;
};

std::unique_ptr<PreparedCollective> prepare_mpi(const CollectiveCall& call, Transport& transport) {
  auto* mpi = dynamic_cast<MpiTransport*>(&transport);
  if (!mpi) throw std::invalid_argument("the mpi baseline needs the MPI transport");
  MpiCallArgs a{call.send, call.recv, static_cast<MPI_Count>(call.count), mpi_datatype(call.dtype),
                uses_reduce_op(call.collective) ? mpi_op(call.dtype, call.op) : MPI_OP_NULL, call.root, mpi->comm()};
  if (call.in_place && (!uses_root(call.collective) || mpi->rank() == call.root)) a.send = MPI_IN_PLACE;
  return std::make_unique<MpiCollective>(call.collective, a);
}

}  // namespace

void register_mpi_baselines(Registry& registry) {
  for (const CollectiveTraits& c : kCollectiveTraits)
    registry.add({c.id, "mpi", "the MPI library's own " + std::string(c.mpi_function), nullptr, prepare_mpi});
}

}  // namespace collbench
