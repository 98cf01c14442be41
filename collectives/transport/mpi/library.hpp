#pragma once
// Which MPI library runs, parsed from its version text.
#include <string>

namespace collbench {

// Which MPI library is running, from MPI_Get_library_version (not from how collbench
// was built: a binary can run against another build of the same ABI).
enum class MpiFamily { mpich, open_mpi, other };
struct MpiLibrary {
  MpiFamily family = MpiFamily::other;
  std::string name;        // "MPICH", "Open MPI", "Intel(R) MPI Library", ...
  std::string version;     // "4.0.2", "4.1.4"; "" when not found
  std::string device;      // MPICH's device and netmod ("ch4:ucx"); "" for other libraries
  int version_number = 0;  // major*10000 + minor*100 + patch; 0 when unknown
  std::string summary;     // "MPICH 4.0.2 (ch4:ucx)", "Open MPI 4.1.4"
  bool at_least(MpiFamily f, int v) const { return family == f && version_number >= v; }
  bool before(MpiFamily f, int v) const { return family == f && version_number < v; }
};
// Parsed from a version text; pure, for tests.
MpiLibrary parse_mpi_library(const std::string& version_text);
// The running library (after MPI_Init).
const MpiLibrary& mpi_library();
// The full MPI_Get_library_version text, without trailing NULs or blank lines.
std::string mpi_library_version();

}  // namespace collbench
