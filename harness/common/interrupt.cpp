#include "harness/common/interrupt.hpp"

#include <fcntl.h>
#include <time.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "collectives/transport/shm_memory.hpp"
#include "harness/common/exit_status.hpp"
#include "harness/common/launcher.hpp"
#include "harness/common/mpi_errors.hpp"
#include "harness/common/result_sink.hpp"
#include "harness/common/watchdog.hpp"

namespace collbench {
namespace {

int g_pipe[2] = {-1, -1};
std::thread g_thread;
volatile std::sig_atomic_t g_signalled = 0;

// Async-signal-safe: the work happens on the thread that reads the pipe.
void on_signal(int sig) {
  const int saved = errno;
  g_signalled = 1;
  const unsigned char b = static_cast<unsigned char>(sig);
  [[maybe_unused]] const ssize_t n = write(g_pipe[1], &b, 1);
  errno = saved;
}

// The MPI library aborting the process while a signal, the watchdog or an MPI error is
// ending the run: seen under Hydra when the proxy dies, as rank 0's SIGHUP came 0.6 ms
// before UCX, finding its peer gone, called abort() (2 runs in 30 of cli.launcher_gone
// ended so, the JSON unmarked). The abort is that ending's consequence: the aborting
// thread waits for the ending thread to mark the results and end the process, and dies
// by the abort only if that takes longer than one ending may wait. Async-signal-safe.
void on_abort(int) {
  if (g_signalled || watchdog_is_ending() || mpi_error_is_ending()) {
    timespec step{.tv_sec = 0, .tv_nsec = 100'000'000};
    for (int i = 0; i < kEndingWaitSeconds * 10; ++i) nanosleep(&step, nullptr);
  }
  // Returning lets abort() end the process by SIGABRT, with the default disposition.
}

[[noreturn]] void end_interrupted(int sig, int rank) {
  // The watchdog or an MPI error is already ending the run: it marks the JSON and ends
  // the job in a few seconds. Ending the process now could cut its marking short.
  if (watchdog_is_ending() || mpi_error_is_ending()) {
    std::this_thread::sleep_for(std::chrono::seconds(kEndingWaitSeconds));
    std::_Exit(watchdog_is_ending() ? kExitStalled : kExitInternal);
  }
  const int status = kExitInterruptedBase + sig;
  // First: a rank waiting below is usually ended by rank 0's abort while it waits.
  remove_shm_names();
  if (rank == 0) {
    const std::string name = sig == SIGINT    ? "SIGINT"
                             : sig == SIGTERM ? "SIGTERM"
                                              : "SIGHUP (its launcher ended, or a hangup)";
    const std::string where = stop_results("interrupted by " + name);  // flushes the table too
    std::fprintf(stderr, "collbench: interrupted by %s; exit status %d%s%s%s\n", name.c_str(), status,
                 where.empty() ? "" : ". The rows written so far are in ", where.c_str(),
                 where.empty() ? "" : " (the JSON says \"completed\": false)");
    std::fflush(stderr);
  } else if (job_ends_by_abort(OtherRanks::end_too)) {
    // Rank 0 marks the results and ends the job at once: a rank leaving first would have
    // the launcher kill rank 0 before it has. Only a rank the signal reached alone gets on.
    std::this_thread::sleep_for(std::chrono::seconds(3));
  }
  end_job(status, OtherRanks::end_too);
}

// Hydra's mpiexec, ending a job on MPI_Abort, kills only its proxies (every rank is a
// session of its own), so a rank not ending by itself runs on for nobody: after a watchdog
// for up to two polls and its grace, with --watchdog 0 or while making progress until
// its sweep ends. Under Hydra a rank therefore ends with its proxy: rank 0 as on SIGINT
// (marking the results), the others at once. The proxy is one thread, the thread
// PR_SET_PDEATHSIG follows (srun's slurmstepd has several, so not there).
void end_with_launcher(int rank) {
  if (detect_launcher().kind != "hydra") return;
  // A rank's stdout and stderr are pipes to its proxy: a write fails only once the proxy
  // is gone, and the SIGHUP below then ends the run. With SIGPIPE's default, the main
  // thread writing a row first would die before rank 0's results were marked (seen
  // under load, when the signal's thread ran late).
  std::signal(SIGPIPE, SIG_IGN);
  const int sig = rank == 0 ? SIGHUP : SIGKILL;
  if (prctl(PR_SET_PDEATHSIG, sig) == 0 && getppid() == 1) raise(sig);  // it ended already
}

}  // namespace

bool interrupt_is_ending() { return g_signalled != 0; }

InterruptHandler::InterruptHandler(int rank) {
  if (pipe2(g_pipe, O_CLOEXEC) != 0) return;
  g_thread = std::thread([rank] {
    unsigned char b = 0;
    while (read(g_pipe[0], &b, 1) < 0 && errno == EINTR) {}
    if (b != 0) end_interrupted(b, rank);  // 0: the handler is being removed
  });
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  struct sigaction abort_action {};
  abort_action.sa_handler = on_abort;
  sigemptyset(&abort_action.sa_mask);
  abort_action.sa_flags = SA_RESETHAND;  // a second abort, or abort()'s own re-raise, ends the process
  sigaction(SIGABRT, &abort_action, nullptr);
  end_with_launcher(rank);
  // A file-size limit (ulimit -f) then fails the write with EFBIG, which the writers
  // report, instead of killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
}

InterruptHandler::~InterruptHandler() {
  if (!g_thread.joinable()) return;
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
  std::signal(SIGABRT, SIG_DFL);
  const unsigned char stop = 0;
  [[maybe_unused]] const ssize_t n = write(g_pipe[1], &stop, 1);
  g_thread.join();
  close(g_pipe[0]);
  close(g_pipe[1]);
}

}  // namespace collbench
