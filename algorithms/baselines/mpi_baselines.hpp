#pragma once
// The MPI library's own collectives as the `mpi` algorithm of each collective, and
// MPICH's own algorithms as `mpi[NAME]`, switched inside the run.
#include <string>
#include <vector>

#include "collectives/schedule/registry.hpp"

namespace collbench {

// Registers the MPI library's own collectives as algorithm "mpi" of each collective.
// They need an MpiTransport (its communicator) to run.
void register_mpi_baselines(Registry& registry);

// The library's own algorithm NAME of `c` as a run's algorithm "mpi[NAME]", which
// switches the library to it before its calls (MPICH, mpich_switch.hpp) and the plain
// "mpi" back to the library's choice; nullptr when this library cannot switch to NAME in
// a process. Not in the registry: a run names them (-a mpi[NAME], mpi[all]). After MPI_Init.
const AlgorithmEntry* mpi_switched_algorithm(Collective c, const std::string& name);
// The names mpi_switched_algorithm takes for `c` (empty when the library cannot switch).
std::vector<std::string> mpi_switchable_algorithms(Collective c);

}  // namespace collbench
