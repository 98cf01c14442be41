#pragma once
// MPI library defects that would make a run wrong or hang, by library and version, refused up front.
#include <optional>
#include <string>

#include "collectives/collective.hpp"

namespace collbench {

// A crash inside the MPI library cannot be caught, so calls known to crash the
// running library are refused up front with the reason and a workaround.
// Returns that message, or nothing when the call is safe. Call after MPI_Init.
std::optional<std::string> known_mpi_defect(Collective c, bool in_place, int root);

}  // namespace collbench
