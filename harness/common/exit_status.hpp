#pragma once
// collbench's exit statuses: one list, printed by --help and kept in the README.
#include <string>

namespace collbench {

inline constexpr int kExitWrongResults = 1;  // a checked call returned wrong elements
inline constexpr int kExitRefused = 2;       // bad command line, input file or output path
inline constexpr int kExitInternal = 3;      // a bug or a library failure (MPI_Abort)
inline constexpr int kExitStalled = 4;       // the watchdog: a rank made no progress
inline constexpr int kExitOutputFailed = 5;  // a result could not be written (disk full, ...)
// Interrupted by SIGINT or SIGTERM: 128 + the signal, as shells report it.
inline constexpr int kExitInterruptedBase = 128;

// Whether the other ranks reach the same end by themselves (a signal every task got; the
// watchdog, which fires on every stalled rank) or only when this rank ends them.
enum class OtherRanks { end_too, must_be_ended };

// Whether end_job ends the job with MPI_Abort, so the launcher itself exits with the
// status. A rank that merely exits leaves Hydra's mpiexec to combine every rank's
// status, which its proxy gets wrong at times: it may count the SIGKILL it sends a stuck
// peer (9), its placeholder for a rank that left without MPI_Finalize (1), or, after
// forwarding a signal, every rank as 0. srun is the other way round: it reports the
// highest task status, 137 for any task Slurm killed, as it does all of them on an
// abort, so there ranks that end alike just exit.
bool job_ends_by_abort(OtherRanks others);

// Ends the job with `status`, from any thread (the main one may be inside MPI). Without
// MPI (not yet or no longer initialized) the process exits alone.
[[noreturn]] void end_job(int status, OtherRanks others);

inline std::string exit_status_text() {
  return "Exit status:\n"
         "  0    success: every checked result was right\n"
         "  1    wrong results (see the errors column)\n"
         "  2    refused before measuring: bad command line, input file or output path; or an error every rank "
         "found (a parameter-server protocol error)\n"
         "  3    internal error (a bug, or the MPI library failed)\n"
         "  4    a rank made no progress for --watchdog seconds\n"
         "  5    a result could not be written (disk full, I/O error); the rows before it are kept\n"
         "  129  SIGHUP: a hangup, or under Hydra its proxy ended; the rows before it are kept\n"
         "  130  interrupted by SIGINT (Ctrl-C); 143 by SIGTERM; the rows before it are kept\n"
         "A run that did not complete leaves \"completed\": false in its JSON, with \"stopped\" saying why.\n";
}

}  // namespace collbench
