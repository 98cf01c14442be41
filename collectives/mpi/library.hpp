#pragma once
#include <string>

#include "collectives/collective.hpp"

namespace collbench {

// The full MPI_Get_library_version text.
std::string mpi_library_version();
// "MPICH 4.0.2 (ch4:ucx)", or the first line of the version text for other libraries.
std::string mpi_library_summary();
// MPICH's version as major*10000 + minor*100 + patch; 0 for another library.
int mpich_version_number();

// The MPICH control variable that forces the library's algorithm for a collective
// (e.g. MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM), and the algorithm it forces now: its
// value, or "" when unset or "auto".
std::string mpich_algorithm_variable(Collective c);
std::string mpich_forced_algorithm(Collective c);
// The name the MPI baseline's rows carry: "mpi", or "mpi[<algorithm>]" when MPICH is
// forced to one algorithm for this collective, so runs with different forced
// algorithms can be merged into one table.
std::string mpi_baseline_row_name(Collective c);

}  // namespace collbench
