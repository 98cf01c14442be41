#include "collectives/transport/mpi/known_defects.hpp"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "collectives/transport/mpi/library.hpp"

namespace collbench {
namespace {

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

// One known defect: which library and versions [from, before) it hits, which calls,
// and what to tell the user.
struct KnownDefect {
  MpiFamily family;
  int from, before;  // major*10000 + minor*100 + patch
  bool (*hits)(Collective c, bool in_place, int root);
  const char* message;
};

const std::vector<KnownDefect> kKnownDefects = {
    // pmodels/mpich#6540: ch4's reduce composition reads a bad address when a non-zero
    // root passes MPI_IN_PLACE (seen here with 4.0.2 from 2 KiB up; reported for 4.1.1).
    {MpiFamily::mpich, 40000, 40102,
     [](Collective c, bool in_place, int root) {
       return c == Collective::reduce && in_place && root != 0 && !env_is("MPIR_CVAR_DEVICE_COLLECTIVES", "none");
     },
     "this MPICH crashes in MPI_Reduce with MPI_IN_PLACE at a non-zero root (pmodels/mpich#6540, "
     "fixed by pmodels/mpich#6543); run with MPIR_CVAR_DEVICE_COLLECTIVES=none, or use --root 0, "
     "or drop --in-place"},
};

}  // namespace

std::optional<std::string> known_mpi_defect(Collective c, bool in_place, int root) {
  const MpiLibrary& lib = mpi_library();
  for (const KnownDefect& d : kKnownDefects)
    if (lib.at_least(d.family, d.from) && lib.before(d.family, d.before) && d.hits(c, in_place, root))
      return std::string(d.message);
  return std::nullopt;
}

}  // namespace collbench
