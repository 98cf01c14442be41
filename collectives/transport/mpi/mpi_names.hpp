#pragma once
// What MPI and its libraries call each collective: the MPI function that is the `mpi`
// baseline, and the settings that force MPICH's and Open MPI's own algorithms for it.
#include <array>
#include <string_view>

#include "collectives/collective.hpp"

namespace collbench {

struct MpiCollectiveNames {
  Collective id;
  std::string_view function;              // the MPI library's own collective
  std::string_view mpich_algorithm_cvar;  // forces MPICH's algorithm for it
  std::string_view mpich_algorithms;      // MPICH 4.0's names for that variable, space-separated
  std::string_view open_mpi_name;         // its name in Open MPI's coll_tuned_<name>_algorithm
};

const MpiCollectiveNames& mpi_names(Collective c);

}  // namespace collbench
