/* A deliberately broken MPI library for tests, used with LD_PRELOAD: MPI_Allreduce
 * (and its large-count form) on MPI_FLOAT data returns one wrong element on rank
 * CORRUPT_RANK (default 0), on every CORRUPT_EVERY-th such call (default 1). The
 * harness's own messages are not floats, so only the measured calls are hit. */
#include <mpi.h>
#include <stdlib.h>

static long float_calls;

static void corrupt(void* recv, MPI_Count count, MPI_Datatype type, MPI_Comm comm) {
  const char* rank_env = getenv("CORRUPT_RANK");
  const char* every_env = getenv("CORRUPT_EVERY");
  const int target = rank_env ? atoi(rank_env) : 0;
  const long every = every_env ? atol(every_env) : 1;
  int rank = 0;
  if (type != MPI_FLOAT || count <= 0) return;
  PMPI_Comm_rank(comm, &rank);
  if (rank != target) return;
  if (++float_calls % (every > 0 ? every : 1) == 0) ((float*)recv)[count - 1] += 1.0f;
}

int MPI_Allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const int rc = PMPI_Allreduce(send, recv, count, type, op, comm);
  corrupt(recv, count, type, comm);
  return rc;
}

#if COLLBENCH_MPI_LARGE_COUNT
int MPI_Allreduce_c(const void* send, void* recv, MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const int rc = PMPI_Allreduce_c(send, recv, count, type, op, comm);
  corrupt(recv, count, type, comm);
  return rc;
}
#endif
