#pragma once
// A rank that makes no progress for a while (a peer stopped, a network that dropped a
// message, a library deadlock) would otherwise leave every other rank spinning in MPI
// forever. The watchdog is a thread that watches collectives/process/progress.hpp's beats; when
// they stop for `seconds`, it prints where this rank is and ends the process with
// kExitStalled. MPI launchers then end the other ranks. Rows already written stay, and
// the JSON is marked stopped.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "harness/common/exit_status.hpp"

namespace CLI {
class App;
}

namespace collbench {

inline constexpr double kDefaultWatchdogSeconds = 180;
inline constexpr double kDefaultStartupWatchdogSeconds = 300;

// How long a rank may go without progress. Start-up (the session, metadata, outputs:
// everything before the first task) has a limit of its own: its work beats seldom, its
// ranks wait on each other, and on a busy node it may take far longer than any call.
struct WatchdogLimits {
  double stall_s = kDefaultWatchdogSeconds;           // --watchdog; 0: off, start-up too
  double startup_s = kDefaultStartupWatchdogSeconds;  // --watchdog-startup, at least stall_s
  double startup_limit() const { return stall_s > 0 ? std::max(stall_s, startup_s) : 0; }
};

// --watchdog and --watchdog-startup, for the commands that measure.
void add_watchdog_flags(CLI::App& app, WatchdogLimits& limits);

// True once this process's watchdog is ending the run: the launcher's SIGTERM that may
// follow its MPI_Abort (Open MPI's does) is part of that ending, not an interruption.
bool watchdog_is_ending();

class Watchdog {
 public:
  // stall_s <= 0: off. host_of_rank names this rank's host and its peers' in the report.
  Watchdog(WatchdogLimits limits, int rank, std::vector<std::string> host_of_rank = {});
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace collbench
