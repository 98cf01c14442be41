#pragma once
// The MPI library's own collectives as the `mpi` algorithm of each collective.
#include "collectives/schedule/registry.hpp"

namespace collbench {

// Registers the MPI library's own collectives as algorithm "mpi" of each collective.
// They need an MpiTransport (its communicator) to run.
void register_mpi_baselines(Registry& registry);

}  // namespace collbench
