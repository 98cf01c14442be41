// collbench-plain-loop: the smallest honest MPI_Wtime measurement of MPI_Allreduce,
// written without any collbench code, to check that the harness adds no overhead.
// Usage: mpiexec -n 2 collbench-plain-loop BYTES ITERS WARMUP
// Prints, for f32 sum: the mean time per call of a back-to-back loop (slowest rank's
// mean) and of calls separated by barriers (each call timed alone, slowest rank per call).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 4) {
    if (rank == 0) std::fprintf(stderr, "usage: collbench-plain-loop BYTES ITERS WARMUP\n");
    MPI_Finalize();
    return 2;
  }
  const int count = std::atoi(argv[1]) / 4, iters = std::atoi(argv[2]), warmup = std::atoi(argv[3]);
  std::vector<float> in(static_cast<std::size_t>(count), 1.0f), out(static_cast<std::size_t>(count));

  for (int i = 0; i < warmup; ++i) MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double loop = (MPI_Wtime() - t0) / iters;
  MPI_Allreduce(MPI_IN_PLACE, &loop, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

  for (int i = 0; i < warmup; ++i) MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  std::vector<double> each(static_cast<std::size_t>(iters));
  for (double& t : each) {
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    t = MPI_Wtime() - t0;
  }
  MPI_Allreduce(MPI_IN_PLACE, each.data(), iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double per_call = 0;
  for (double t : each) per_call += t / iters;

  if (rank == 0) std::printf("bytes=%d loop_us=%.3f per_call_us=%.3f\n", count * 4, loop * 1e6, per_call * 1e6);
  MPI_Finalize();
  return 0;
}
