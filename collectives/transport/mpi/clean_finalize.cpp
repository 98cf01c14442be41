#include "collectives/transport/mpi/clean_finalize.hpp"

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace collbench {

FinalizePolicy finalize_policy(const MpiLibrary& library, const char* quiet_ms_variable) {
  if (quiet_ms_variable) {
    const std::string text = quiet_ms_variable;
    const bool digits = !text.empty() && text.size() <= 5 && text.find_first_not_of("0123456789") == std::string::npos;
    const long ms = digits ? std::stol(text) : -1;
    if (ms < 0 || ms > kMostFinalizeQuietMs)
      throw std::invalid_argument(std::string(kFinalizeQuietVariable) +
                                  " must be a whole number of milliseconds from 0 to " +
                                  std::to_string(kMostFinalizeQuietMs) + ", not '" + text + "'");
    return {static_cast<int>(ms), std::string("set by ") + kFinalizeQuietVariable};
  }
  if (library.family == MpiFamily::mpich && library.before(MpiFamily::mpich, 40200) &&
      library.device.rfind("ch4:ucx", 0) == 0)
    return {200,
            "MPICH before 4.2 on ch4:ucx: a barrier, then no MPI call on any rank for this long, so that no rank "
            "answers a peer's endpoint close from inside MPI and then waits for ever on its own "
            "(openucx/ucx#8738, pmodels/mpich#6623)"};
  return {0, "MPI_Finalize right away"};
}

FinalizePolicy finalize_policy_here() { return finalize_policy(mpi_library(), std::getenv(kFinalizeQuietVariable)); }

namespace {

// Exits the process with the run's status if MPI_Finalize does not return in time.
class FinalizeDeadline {
 public:
  FinalizeDeadline(std::chrono::milliseconds limit, int rc, int rank)
      : thread_([this, limit, rc, rank] {
          std::unique_lock lock(mutex_);
          if (done_.wait_for(lock, limit, [this] { return finished_; })) return;
          std::fprintf(stderr,
                       "collbench: rank %d: MPI_Finalize has not returned in %lld s; exiting with status %d, "
                       "results are complete\n",
                       rank, static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(limit).count()),
                       rc);
          std::fflush(nullptr);
          std::_Exit(rc);
        }) {}
  ~FinalizeDeadline() {
    {
      const std::lock_guard lock(mutex_);
      finished_ = true;
    }
    done_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  bool finished_ = false;
  std::thread thread_;  // last: starts once the rest exists
};

// Through rank 0 with point-to-point calls, as the harness's control traffic: a
// collective algorithm forced with fallback off cannot refuse it.
void barrier_by_messages(int rank, int size) {
  constexpr int kTag = 0x7f1a;
  char token = 0;
  if (rank == 0) {
    for (int r = 1; r < size; ++r) MPI_Recv(&token, 1, MPI_CHAR, r, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int r = 1; r < size; ++r) MPI_Send(&token, 1, MPI_CHAR, r, kTag, MPI_COMM_WORLD);
  } else {
    MPI_Send(&token, 1, MPI_CHAR, 0, kTag, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_CHAR, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

}  // namespace

void finalize_mpi(const FinalizePolicy& policy, int rc) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto quiet = std::chrono::milliseconds(size > 1 ? policy.quiet_ms : 0);
  const FinalizeDeadline deadline(quiet + std::chrono::seconds(20), rc, rank);
  if (quiet.count() > 0) {
    barrier_by_messages(rank, size);
    std::this_thread::sleep_for(quiet);
  }
  MPI_Finalize();
}

}  // namespace collbench
