#include "harness/common/exit_status.hpp"

#include <mpi.h>

#include <atomic>
#include <cstdlib>

#include "harness/common/launcher.hpp"

namespace collbench {
namespace {

std::atomic<int> g_status{0};
void leave_now() { std::_Exit(g_status); }

}  // namespace

bool job_ends_by_abort(OtherRanks others) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return false;
  return others == OtherRanks::must_be_ended || detect_launcher().kind != "srun";
}

void end_job(int status, OtherRanks others) {
  // MPICH's abort without a launcher (a singleton) calls exit(), whose static destructors
  // would run under threads still working (a joinable std::thread ends in terminate()):
  // the first handler exit() runs is this one, registered last.
  g_status = status;
  std::atexit(leave_now);
  // MPICH's and Open MPI's abort message the launcher and wait to be ended, which is why
  // a thread other than the one inside MPI may call it.
  if (job_ends_by_abort(others)) MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);
}

}  // namespace collbench
