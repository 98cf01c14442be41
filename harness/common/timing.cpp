#include "harness/common/timing.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "harness/common/control.hpp"

namespace collbench {

std::string timing_policy_text(TimingPolicy t) {
  if (t == TimingPolicy::loop)
    return "one barrier, then the timed calls back to back (as nccl-tests and a plain MPI_Wtime loop); "
           "each call's time is the gap between consecutive completions on a rank; the slowest rank "
           "(largest total) is reported";
  return "a barrier (not timed) before every call; each call timed alone on every rank (as the OSU "
         "benchmarks); an iteration's time is the slowest rank's";
}

std::vector<double> time_calls(PreparedCollective& call, int warmup, int iters, TimingPolicy policy, MPI_Comm comm) {
  std::vector<double> t(static_cast<std::size_t>(iters));
  for (int i = 0; i < warmup; ++i) call.run();
  MPI_Barrier(comm);
  if (policy == TimingPolicy::per_call) {
    for (double& x : t) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      call.run();
      x = MPI_Wtime() - t0;
    }
    control_allreduce(t, [](double a, double b) { return std::max(a, b); }, comm);
    return t;
  }
  double prev = MPI_Wtime();
  for (double& x : t) {
    call.run();
    const double now = MPI_Wtime();
    x = now - prev;
    prev = now;
  }
  // Report the slowest rank's own series, so its mean is exactly what a plain loop
  // timed on that rank gives.
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<double> totals(static_cast<std::size_t>(size), 0.0);
  totals[static_cast<std::size_t>(rank)] = std::accumulate(t.begin(), t.end(), 0.0);
  control_allreduce(totals, [](double a, double b) { return a + b; }, comm);
  const int slowest = static_cast<int>(std::max_element(totals.begin(), totals.end()) - totals.begin());
  std::string bytes = doubles_to_bytes(t);
  control_broadcast(bytes, slowest, comm);
  return bytes_to_doubles(bytes);
}

}  // namespace collbench
