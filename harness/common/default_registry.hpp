#pragma once
// The registry every command uses: the catalog, the baselines, the parameter server's protocols.
#include "collectives/schedule/registry.hpp"

namespace collbench {

// Every algorithm collbench runs: the MPI library's baselines first, then the
// reference algorithms (algorithms/catalog.hpp), then the parameter server's modes.
// Built once; `main` and the tests share it.
const Registry& default_registry();

}  // namespace collbench
