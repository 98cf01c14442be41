#pragma once
#include <string>

namespace collbench {

// The full MPI_Get_library_version text.
std::string mpi_library_version();
// "MPICH 4.0.2 (ch4:ucx)", or the first line of the version text for other libraries.
std::string mpi_library_summary();
// MPICH's version as major*10000 + minor*100 + patch; 0 for another library.
int mpich_version_number();

}  // namespace collbench
