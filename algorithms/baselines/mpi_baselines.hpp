#pragma once
// The MPI library's own collectives as the `mpi` algorithm of each collective, and
// MPICH's own algorithms as `mpi[NAME]`, switched inside the run.
#include <cstddef>
#include <string>
#include <vector>

#include "collectives/schedule/registry.hpp"

namespace collbench {

// Registers the MPI library's own collectives as algorithm "mpi" of each collective.
// They need an MpiTransport (its communicator) to run.
void register_mpi_baselines(Registry& registry);

// The library's own algorithm NAME of `c` as a run's algorithm "mpi[NAME]": MPICH is
// switched to it before its calls and the plain "mpi" back to the library's choice
// (mpich_switch.hpp); Open MPI runs it on a duplicate communicator made to run it
// (open_mpi_switch.hpp). nullptr when this library cannot switch to NAME in a process.
// Not in the registry: a run names them (-a mpi[NAME], mpi[all]). After MPI_Init.
const AlgorithmEntry* mpi_switched_algorithm(Collective c, const std::string& name);
// The names mpi_switched_algorithm takes for `c` (empty when the library cannot switch).
std::vector<std::string> mpi_switchable_algorithms(Collective c);
// Why the library's algorithms of `c` cannot be switched in this run ("" when they can).
std::string mpi_switch_unavailable(Collective c);
// Why the library cannot run its `algorithm` of `c` for any call of a run on `ranks`
// ranks over `nodes` nodes (at most `max_ranks_per_node` on one), in place or not; ""
// when it can.
std::string mpi_switch_refusal(Collective c, const std::string& algorithm, int ranks, int nodes, int max_ranks_per_node,
                               bool in_place);
// The smallest count per call the library runs its `algorithm` of `c` with on `ranks`
// ranks: a run has no rows of it at the sizes below (MPICH's reduce_scatter_allgather
// needs count >= pof2; Open MPI's run another algorithm by themselves below such counts,
// e.g. rabenseifner a basic linear one, so 1).
std::size_t mpi_switch_smallest_count(Collective c, const std::string& algorithm, int ranks);

}  // namespace collbench
