#include "collectives/mpi/known_defects.hpp"

#include <cstdlib>
#include <cstring>

#include "collectives/mpi/library.hpp"

namespace collbench {
namespace {

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

}  // namespace

std::optional<std::string> known_mpi_defect(Collective c, bool in_place, int root) {
  const int v = mpich_version_number();
  // pmodels/mpich#6540: ch4's reduce composition reads a bad address when a non-zero
  // root passes MPI_IN_PLACE (seen here with 4.0.2 from 2 KiB up; reported for 4.1.1).
  if (c == Collective::reduce && in_place && root != 0 && v >= 40000 && v < 40102 &&
      !env_is("MPIR_CVAR_DEVICE_COLLECTIVES", "none"))
    return "this MPICH crashes in MPI_Reduce with MPI_IN_PLACE at a non-zero root (pmodels/mpich#6540, "
           "fixed by pmodels/mpich#6543); run with MPIR_CVAR_DEVICE_COLLECTIVES=none, or use --root 0, "
           "or drop --in-place";
  return std::nullopt;
}

}  // namespace collbench
