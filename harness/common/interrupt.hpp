#pragma once
// SIGINT (Ctrl-C, which mpiexec forwards to every rank) and SIGTERM (a batch system's
// time limit) end the run with 128 + the signal: rank 0 first marks the JSON stopped,
// so a cut-short document never looks finished, and says where the rows so far are.
// SIGHUP does the same; under Hydra a rank also ends when its proxy does (rank 0 by
// SIGHUP, the others by SIGKILL), as Hydra's abort kills the proxies and not the ranks.
namespace collbench {

// True once a signal above reached this process: its thread is ending the run, and an
// MPI error that follows (a peer its launcher took with it) is that ending's consequence.
bool interrupt_is_ending();
// How long one ending (a signal's, the watchdog's, an MPI error's) waits for another that
// began first to mark the results and end the job, before it ends the process itself.
inline constexpr int kEndingWaitSeconds = 15;

class InterruptHandler {
 public:
  explicit InterruptHandler(int rank);
  ~InterruptHandler();
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;
};

}  // namespace collbench
