#pragma once
// How MPI ends so that a finished run exits 0 (MPICH < 4.2 on UCX needs a quiet time first).
#include <string>

#include "collectives/transport/mpi/library.hpp"

namespace collbench {

// How collbench ends MPI so that a run which finished exits 0.
//
// MPICH before 4.2 on ch4:ucx closes every UCX endpoint in MPI_Finalize, waits for the
// closes, then blocks in a PMI barrier without progressing UCX. Over UCX's TCP
// transport closing an endpoint needs an acknowledgement from the peer's progress: a
// rank still inside its last MPI call answers a peer's close early, that peer finishes
// and blocks in the PMI barrier, and the rank's own close then waits for ever
// (openucx/ucx#8738; MPICH 4.2 moved the PMI barrier before the closes,
// pmodels/mpich#6623). A barrier, then a quiet time with no MPI call on any rank,
// puts every rank outside MPI before any rank starts closing: the order MPICH 4.2 keeps.
struct FinalizePolicy {
  int quiet_ms = 0;    // after a barrier, this long without MPI calls; 0: straight to MPI_Finalize
  std::string reason;  // why, for the metadata
};

inline constexpr const char* kFinalizeQuietVariable = "COLLBENCH_FINALIZE_QUIET_MS";
inline constexpr int kMostFinalizeQuietMs = 10000;

// From the running library, or the variable's value where it is set (nullptr: unset).
// Throws std::invalid_argument, with a message for the user, on a value that is not a
// whole number of milliseconds from 0 to kMostFinalizeQuietMs.
FinalizePolicy finalize_policy(const MpiLibrary& library, const char* quiet_ms_variable);

// The policy for this process (the running library and the environment).
FinalizePolicy finalize_policy_here();

// Ends MPI as the policy says. A safety net stays: if MPI_Finalize has not returned
// 20 s after the quiet time, the process exits with status rc, saying so.
void finalize_mpi(const FinalizePolicy& policy, int rc);

}  // namespace collbench
