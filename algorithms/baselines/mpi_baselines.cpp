#include "algorithms/baselines/mpi_baselines.hpp"

#include <stdexcept>
#include <string>

#include "collectives/transport/mpi/library_call.hpp"
#include "collectives/transport/mpi/mpi_names.hpp"
#include "collectives/transport/mpi/transport.hpp"

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
  return std::make_unique<MpiCollective>(call.collective, mpi_call_args(call, mpi->comm(), mpi->rank()));
}

}  // namespace

void register_mpi_baselines(Registry& registry) {
  for (const CollectiveTraits& c : kCollectiveTraits)
    registry.add({c.id, "mpi", "the MPI library's own " + std::string(mpi_names(c.id).function), nullptr, prepare_mpi});
}

}  // namespace collbench
