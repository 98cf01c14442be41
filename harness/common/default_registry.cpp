#include "harness/common/default_registry.hpp"

#include "algorithms/catalog.hpp"
#include "algorithms/parameter_server/protocol.hpp"
#include "collectives/mpi/baselines.hpp"

namespace collbench {

const Registry& default_registry() {
  static const Registry registry = [] {
    Registry r;
    register_mpi_baselines(r);
    register_reference_algorithms(r);
    register_parameter_server(r);
    return r;
  }();
  return registry;
}

}  // namespace collbench
