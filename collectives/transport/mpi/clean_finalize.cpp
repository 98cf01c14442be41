#include "collectives/transport/mpi/clean_finalize.hpp"

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace collbench {

FinalizePolicy finalize_policy(const MpiLibrary& library, const char* quiet_ms_variable, const char* connect_variable) {
  FinalizePolicy policy{0, false, "MPI_Finalize right away"};
  if (quiet_ms_variable) {
    const std::string text = quiet_ms_variable;
    const bool digits = !text.empty() && text.size() <= 5 && text.find_first_not_of("0123456789") == std::string::npos;
    const long ms = digits ? std::stol(text) : -1;
    if (ms < 0 || ms > kMostFinalizeQuietMs)
      throw std::invalid_argument(std::string(kFinalizeQuietVariable) +
                                  " must be a whole number of milliseconds from 0 to " +
                                  std::to_string(kMostFinalizeQuietMs) + ", not '" + text + "'");
    policy = {static_cast<int>(ms), ms > 0, std::string("set by ") + kFinalizeQuietVariable};
  } else if (library.family == MpiFamily::mpich && library.before(MpiFamily::mpich, 40200) &&
             library.device.rfind("ch4:ucx", 0) == 0) {
    policy = {200, true,
              "MPICH before 4.2 on ch4:ucx: a message each way between every pair of ranks (up to " +
                  std::to_string(kMostRanksToConnect) +
                  " ranks; finishes every endpoint's wire-up), a barrier, then no MPI call on any rank for this "
                  "long, so that no rank waits in its endpoint closes for a peer already blocked in the PMI "
                  "barrier (openucx/ucx#8738, pmodels/mpich#6596)"};
  }
  if (connect_variable) {
    const std::string text = connect_variable;
    if (text != "0" && text != "1")
      throw std::invalid_argument(std::string(kFinalizeConnectVariable) + " must be 0 or 1, not '" + text + "'");
    policy.connect_pairs = text == "1";
    policy.reason +=
        std::string("; pairs ") + (policy.connect_pairs ? "on" : "off") + " by " + kFinalizeConnectVariable;
  }
  return policy;
}

bool connects_pairs(const FinalizePolicy& policy, int ranks) {
  return policy.connect_pairs && ranks > 1 && ranks <= kMostRanksToConnect;
}

FinalizePolicy finalize_policy_here() {
  return finalize_policy(mpi_library(), std::getenv(kFinalizeQuietVariable), std::getenv(kFinalizeConnectVariable));
}

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

// Point-to-point calls, as the harness's control traffic: a collective algorithm forced
// with fallback off cannot refuse them.
//
// A message each way between every pair of ranks finishes UCX's wire-up of every
// endpoint while every rank still progresses: an endpoint whose TCP connection was made
// but whose wire-up never finished (two ranks that never exchanged a message) cannot be
// closed without the peer's answer, and MPI_Finalize would wait for it for ever once the
// peer had closed its own endpoints and blocked in the PMI barrier.
constexpr int kTag = 0x7f1a;

void connect_every_pair(int rank, int size) {
  char out = 0, in = 0;
  for (int step = 1; step < size; ++step)
    MPI_Sendrecv(&out, 1, MPI_CHAR, (rank + step) % size, kTag, &in, 1, MPI_CHAR, (rank - step + size) % size, kTag,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

void barrier_by_messages(int rank, int size) {
  char out = 0, in = 0;
  if (rank == 0) {
    for (int r = 1; r < size; ++r) MPI_Recv(&in, 1, MPI_CHAR, r, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int r = 1; r < size; ++r) MPI_Send(&out, 1, MPI_CHAR, r, kTag, MPI_COMM_WORLD);
  } else {
    MPI_Send(&out, 1, MPI_CHAR, 0, kTag, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_CHAR, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

}  // namespace

void finalize_mpi(const FinalizePolicy& policy, int rc) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto quiet = std::chrono::milliseconds(size > 1 ? policy.quiet_ms : 0);
  const FinalizeDeadline deadline(quiet + std::chrono::seconds(20), rc, rank);
  const bool connect = connects_pairs(policy, size);
  if (connect) connect_every_pair(rank, size);
  if (connect || quiet.count() > 0) barrier_by_messages(rank, size);  // both are off on one rank
  std::this_thread::sleep_for(quiet);
  // The results are complete and written: an error while tearing down (a peer gone
  // first) is reported, not made fatal, so that it cannot turn this rank's status to 1.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (const int err = MPI_Finalize(); err != MPI_SUCCESS)
    std::fprintf(stderr,
                 "collbench: rank %d: MPI_Finalize returned error %d after the results were complete; exiting "
                 "with status %d\n",
                 rank, err, rc);
}

}  // namespace collbench
