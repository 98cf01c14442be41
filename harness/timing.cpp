#include "timing.hpp"

#include <numeric>

namespace collbench {

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
    MPI_Allreduce(MPI_IN_PLACE, t.data(), iters, MPI_DOUBLE, MPI_MAX, comm);
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
  struct {
    double total;
    int rank;
  } mine{std::accumulate(t.begin(), t.end(), 0.0), 0}, slowest{};
  MPI_Comm_rank(comm, &mine.rank);
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  MPI_Bcast(t.data(), iters, MPI_DOUBLE, slowest.rank, comm);
  return t;
}

}  // namespace collbench
