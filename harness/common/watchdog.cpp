#include "harness/common/watchdog.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <pthread.h>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "collectives/process/progress.hpp"
#include "collectives/transport/shm_memory.hpp"
#include "harness/common/numeric_flags.hpp"
#include "harness/common/result_sink.hpp"

namespace collbench {

struct Watchdog::State {
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  std::thread thread;
};

namespace {

std::atomic<bool> g_ending{false};

[[noreturn]] void report_and_exit(double seconds, int rank, const std::vector<std::string>& hosts,
                                  const progress::Snapshot& where) {
  const char* flag = where.starting ? "--watchdog-startup" : "--watchdog";
  g_ending = true;
  const std::string who =
      "rank " + std::to_string(rank) +
      (static_cast<std::size_t>(rank) < hosts.size() ? " on " + hosts[static_cast<std::size_t>(rank)] : "");
  char seconds_text[32];
  std::snprintf(seconds_text, sizeof seconds_text, "%g", seconds);
  const std::string place = progress::describe(where, hosts);
  stop_results(who + " made no progress for " + seconds_text + " s (the watchdog, " + flag +
               "); it is in: " + place);  // also flushes the table
  std::fprintf(stderr,
               "collbench: watchdog: %s made no progress for %s s (%s); it is in: %s. Ending the run with exit "
               "status %d (rows finished so far are in the CSV and JSON, marked not completed; --watchdog 0 turns "
               "this off)\n",
               who.c_str(), seconds_text, flag, place.c_str(), kExitStalled);
  std::fflush(stderr);
  remove_shm_names();
  // The other ranks stalled at about the same moment: give their watchdogs time to say
  // where they are before the launcher ends them.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  end_job(kExitStalled, OtherRanks::end_too);
}

}  // namespace

bool watchdog_is_ending() { return g_ending; }

void add_watchdog_flags(CLI::App& app, WatchdogLimits& limits) {
  app.add_option("--watchdog", limits.stall_s,
                 "End the run (exit status " + std::to_string(kExitStalled) +
                     ") when a rank makes no progress for this many seconds, after "
                     "every rank says where it is; 0: off")
      ->check(number_in(0, 1e7))
      ->capture_default_str();
  app.add_option("--watchdog-startup", limits.startup_s,
                 "The same before the first measurement (session, metadata, outputs), where ranks wait on "
                 "each other; at least --watchdog")
      ->check(number_in(0, 1e7))
      ->capture_default_str();
}

Watchdog::Watchdog(WatchdogLimits limits, int rank, std::vector<std::string> host_of_rank) {
  if (!(limits.stall_s > 0)) return;
  state_ = std::make_unique<State>();
  State* st = state_.get();
  st->thread = std::thread([st, limits, rank, hosts = std::move(host_of_rank)] {
    using Clock = std::chrono::steady_clock;
    const auto poll = std::chrono::duration<double>(std::min(1.0, limits.stall_s / 4));
    std::uint64_t beats = progress::snapshot().beats;
    auto since = Clock::now();
    std::unique_lock lock(st->mutex);
    while (!st->wake.wait_for(lock, poll, [st] { return st->stop; })) {
      const progress::Snapshot now = progress::snapshot();
      if (now.beats != beats) {
        beats = now.beats;
        since = Clock::now();
      } else if (const double seconds = now.starting ? limits.startup_limit() : limits.stall_s;
                 Clock::now() - since >= std::chrono::duration<double>(seconds)) {
        report_and_exit(seconds, rank, hosts, now);
      }
    }
  });
  // Named (by this thread, before the run goes on), so that `top -H` and tests tell it
  // from the library's threads.
  pthread_setname_np(st->thread.native_handle(), "cb-watchdog");
}

Watchdog::~Watchdog() {
  if (!state_) return;
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
  }
  state_->wake.notify_all();
  state_->thread.join();
}

}  // namespace collbench
