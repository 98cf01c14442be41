#include "harness/common/interrupt.hpp"

#include <fcntl.h>
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
#include "harness/common/result_sink.hpp"
#include "harness/common/watchdog.hpp"

namespace collbench {
namespace {

int g_pipe[2] = {-1, -1};
std::thread g_thread;

// Async-signal-safe: the work happens on the thread that reads the pipe.
void on_signal(int sig) {
  const int saved = errno;
  const unsigned char b = static_cast<unsigned char>(sig);
  [[maybe_unused]] const ssize_t n = write(g_pipe[1], &b, 1);
  errno = saved;
}

[[noreturn]] void end_interrupted(int sig, int rank) {
  if (watchdog_is_ending()) std::_Exit(kExitStalled);  // its message and the JSON already say why
  const int status = kExitInterruptedBase + sig;
  // First: a rank waiting below is usually ended by rank 0's abort while it waits.
  remove_shm_names();
  if (rank == 0) {
    const std::string name = sig == SIGINT ? "SIGINT" : "SIGTERM";
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

}  // namespace

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
  // A file-size limit (ulimit -f) then fails the write with EFBIG, which the writers
  // report, instead of killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
}

InterruptHandler::~InterruptHandler() {
  if (!g_thread.joinable()) return;
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  const unsigned char stop = 0;
  [[maybe_unused]] const ssize_t n = write(g_pipe[1], &stop, 1);
  g_thread.join();
  close(g_pipe[0]);
  close(g_pipe[1]);
}

}  // namespace collbench
