#pragma once
// How MPI ends so that a finished run exits 0 (MPICH < 4.2 on UCX needs a quiet time first).
#include <string>

#include "collectives/transport/mpi/library.hpp"

namespace collbench {

// How collbench ends MPI so that a run which finished exits 0.
//
// MPICH before 4.2 on ch4:ucx closes every UCX endpoint in MPI_Finalize, waits for the
// closes, then blocks in a PMI barrier without progressing UCX. Some closes need the
// peer's progress: over UCX's TCP transport, an endpoint whose connection was made but
// whose wire-up never finished (a pair of ranks that never exchanged a message; seen with
// 8 emulated hosts, a reduce, and UCX's debug log) waits for the peer's answer, and a
// peer that has closed its own endpoints sits in the PMI barrier for ever
// (openucx/ucx#8738; MPICH 4.2 dropped that barrier, pmodels/mpich#6596). So, before
// MPI_Finalize: a message each way between every pair (every wire-up finished while all
// ranks progress), a barrier, then a quiet time with no MPI call on any rank.
struct FinalizePolicy {
  int quiet_ms = 0;            // after a barrier, this long without MPI calls
  bool connect_pairs = false;  // first a message each way between every pair (up to kMostRanksToConnect)
  std::string reason;          // why, for the metadata
  // A barrier comes first where either step is taken; neither: straight to MPI_Finalize.
};

inline constexpr const char* kFinalizeQuietVariable = "COLLBENCH_FINALIZE_QUIET_MS";
inline constexpr const char* kFinalizeConnectVariable = "COLLBENCH_FINALIZE_CONNECT";
inline constexpr int kMostFinalizeQuietMs = 10000;
// Pairs are connected only up to this many ranks: over UCX's TCP transport each pair
// costs a connection (file descriptors) that the run itself may never have opened.
inline constexpr int kMostRanksToConnect = 256;

// From the running library, or the variables' values where they are set (nullptr:
// unset; the quiet time alone also decides the pairs: on where it is above 0). Throws
// std::invalid_argument, with a message for the user, on a quiet time that is not a
// whole number of milliseconds from 0 to kMostFinalizeQuietMs, or a connect value
// other than 0 or 1.
FinalizePolicy finalize_policy(const MpiLibrary& library, const char* quiet_ms_variable,
                               const char* connect_variable = nullptr);

// Whether the pairs are connected on `ranks` ranks.
bool connects_pairs(const FinalizePolicy& policy, int ranks);

// The policy for this process (the running library and the environment).
FinalizePolicy finalize_policy_here();

// Ends MPI as the policy says. A safety net stays: if MPI_Finalize has not returned
// 20 s after the quiet time, the process exits with status rc, saying so; an error
// MPI_Finalize returns is reported and not fatal (the results are complete).
void finalize_mpi(const FinalizePolicy& policy, int rc);

}  // namespace collbench
