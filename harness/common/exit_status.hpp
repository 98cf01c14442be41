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

inline std::string exit_status_text() {
  return "Exit status:\n"
         "  0    success: every checked result was right\n"
         "  1    wrong results (see the errors column)\n"
         "  2    refused before measuring: bad command line, input file or output path; or an error every rank "
         "found (a parameter-server protocol error)\n"
         "  3    internal error (a bug, or the MPI library failed)\n"
         "  4    a rank made no progress for --watchdog seconds\n"
         "  5    a result could not be written (disk full, I/O error); the rows before it are kept\n"
         "  130  interrupted by SIGINT (Ctrl-C); 143 by SIGTERM; the rows before it are kept\n"
         "A run that did not complete leaves \"completed\": false in its JSON, with \"stopped\" saying why.\n";
}

}  // namespace collbench
