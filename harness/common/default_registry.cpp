#include "harness/common/default_registry.hpp"

#include "algorithms/baselines/mpi_baselines.hpp"
#include "algorithms/baselines/nccl_baselines.hpp"
#include "algorithms/catalog.hpp"
#include "algorithms/parameter_server/protocol.hpp"
#include "collectives/transport/gpu/nccl.hpp"
#include "generated/build_info.hpp"

namespace collbench {

const Registry& default_registry() {
  static const Registry registry = [] {
    Registry r;
    register_mpi_baselines(r);
    if (build_info::have_nccl) register_nccl_baselines(r);  // the baselines first, as rows list them
    register_reference_algorithms(r);
    register_parameter_server(r);
    return r;
  }();
  return registry;
}

}  // namespace collbench
