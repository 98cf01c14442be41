#pragma once
// The MPI library's own algorithm when the user forced one (MPICH CVARs, Open MPI coll_tuned).
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/schedule/registry.hpp"

namespace collbench {

// The MPI library's own algorithm for a collective, when the user forced one through
// the library's knobs: MPICH's MPIR_CVAR_<COLL>_INTRA_ALGORITHM, or Open MPI's
// coll_tuned_<coll>_algorithm (with coll_tuned_use_dynamic_rules). Read after MPI_Init.
struct ForcedAlgorithm {
  std::string algorithm;  // the library's own name for it; "" when the library chooses
  std::string setting;    // how it was forced, e.g. "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring"
  // Why the library will not run it as asked ("" when it will): an unknown value, a
  // setting the library ignores, or another component that takes the call first.
  std::string refused;
  // Where the library may still run something else for some calls.
  std::vector<std::string> cautions;
};
const ForcedAlgorithm& forced_mpi_algorithm(Collective c);

// "mpi", "mpi[<algorithm>]" when the library is forced to one algorithm, or "mpi[tuned]"
// when it reads a tuning file, so that such runs merge into one table with the default.
std::string mpi_baseline_row_name(Collective c);
// The name every command's rows give an algorithm: MPI's baseline as above (so that run,
// ps and replay all say mpi[NAME] or mpi[tuned]), any other (a switched mpi[NAME] too) its own.
std::string result_row_name(const AlgorithmEntry& a);

// Open MPI's variable that forces `c`'s algorithm: coll_tuned_<coll>_algorithm.
std::string open_mpi_algorithm_variable(Collective c);

// Why Open MPI's coll/tuned does not get `c` here (it is excluded, or a component of
// higher priority takes the call first), so that `what` has no effect; "" when it does.
std::string open_mpi_tuned_unavailable(Collective c, const std::string& what);

// How the running library is told to use one algorithm, and the names it accepts
// (empty when collbench does not know how to force this library).
struct AlgorithmChoices {
  std::vector<std::string> settings;  // NAME=VALUE, with {} where the algorithm goes
  std::vector<std::string> algorithms;
};
AlgorithmChoices mpi_algorithm_choices(Collective c);

// How the running library is told to read a tuning file (`collbench tune`), NAME=VALUE
// with {} where the file's path goes; empty for a library collbench cannot tune.
std::vector<std::string> mpi_tuning_file_settings();

// The tuning file the running library was asked to read, as it resolved its settings
// (MPI_T: environment, parameter files and launcher flags alike). Read after MPI_Init.
struct TuningFileRequest {
  std::string path;     // "" when none
  std::string setting;  // NAME=VALUE as the library holds it
  std::string ignored;  // why the library will not use it as asked ("" when it will)
  bool readable = false;
  std::string text;   // the file as this rank read it
  std::string fnv1a;  // its digest, 16 hex digits ("" when not readable)
};
const TuningFileRequest& mpi_tuning_file_request();

}  // namespace collbench
