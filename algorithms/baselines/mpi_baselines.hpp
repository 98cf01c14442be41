#pragma once
// The MPI library's own collectives as the `mpi` algorithm of each collective, and
// MPICH's and Open MPI's own algorithms as `mpi[NAME]`, switched inside the run (Open
// MPI's that take a segment also as `mpi[NAME:seg=BYTES]`, with a segment of their own).
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
// The names mpi_switched_algorithm takes for `c` (empty when the library cannot switch),
// and those of them that take a segment (Open MPI's: NAME:seg=BYTES too).
std::vector<std::string> mpi_switchable_algorithms(Collective c);
std::vector<std::string> mpi_segmented_algorithms(Collective c);
// Why the library's algorithms of `c` cannot be switched in this run ("" when they can).
std::string mpi_switch_unavailable(Collective c);
// Why the library cannot run its `algorithm` of `c` for any call of a run on `ranks`
// ranks over `nodes` nodes (at most `max_ranks_per_node` on one), in place or not, with
// elements of `dtype_bytes`; "" when it can.
std::string mpi_switch_refusal(Collective c, const std::string& algorithm, int ranks, int nodes, int max_ranks_per_node,
                               bool in_place, std::size_t dtype_bytes);
// The smallest count per call at which the library runs its `algorithm` of `c` on `ranks`
// ranks (1: every count), and what happens below it: MPICH's reduce_scatter_allgather
// cannot run (count >= pof2), Open MPI's ring runs recursive doubling by itself, and an
// Open MPI NAME:seg=BYTES of one segment is NAME unsegmented. A run has no rows of the
// algorithm at the sizes below.
struct SwitchCountLimit {
  std::size_t smallest = 1;
  std::string below;  // e.g. "Open MPI's allreduce ring runs recursive_doubling below 4 elements per call on 4 ranks"
};
SwitchCountLimit mpi_switch_count_limit(Collective c, const std::string& algorithm, int ranks, std::size_t dtype_bytes);

}  // namespace collbench
