/* A deliberately broken MPI library for tests, used with LD_PRELOAD: every
 * CORRUPT_EVERY-th (default 1) nonblocking receive of MPI_BYTE data on rank
 * CORRUPT_RANK (default 0) delivers its last byte flipped. The reference algorithms
 * move their data this way; MPI's own collectives use the library's internal
 * point-to-point, which this does not touch, and the harness's control messages are
 * typed (doubles, integers, chars). */
#include <mpi.h>
#include <stdlib.h>

#define SLOTS 4096
static struct {
  MPI_Request request;
  unsigned char* buf;
  int count;
} pending[SLOTS];
static long received;

static int is_target(MPI_Comm comm) {
  const char* rank_env = getenv("CORRUPT_RANK");
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return rank == (rank_env ? atoi(rank_env) : 0);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
  if (type != MPI_BYTE || count <= 0 || !is_target(comm)) return rc;
  for (int i = 0; i < SLOTS; ++i)
    if (!pending[i].buf) {
      pending[i].request = *request;
      pending[i].buf = buf;
      pending[i].count = count;
      break;
    }
  return rc;
}

/* Called with the request handles as they were before completion. */
static void completed(MPI_Request request, const MPI_Status* status) {
  const char* every_env = getenv("CORRUPT_EVERY");
  const long every = every_env ? atol(every_env) : 1;
  for (int i = 0; i < SLOTS; ++i)
    if (pending[i].buf && pending[i].request == request) {
      int got = pending[i].count;
      if (status != MPI_STATUS_IGNORE) PMPI_Get_count(status, MPI_BYTE, &got);
      if (got > 0 && ++received % (every > 0 ? every : 1) == 0) pending[i].buf[got - 1] ^= 0x40;
      pending[i].buf = NULL;
      return;
    }
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  const MPI_Request before = *request;
  MPI_Status own;
  const int rc = PMPI_Wait(request, status == MPI_STATUS_IGNORE ? &own : status);
  completed(before, status == MPI_STATUS_IGNORE ? &own : status);
  return rc;
}

int MPI_Waitall(int n, MPI_Request requests[], MPI_Status statuses[]) {
  MPI_Request before[SLOTS];
  MPI_Status own[SLOTS];
  if (n > SLOTS) return PMPI_Waitall(n, requests, statuses);
  for (int i = 0; i < n; ++i) before[i] = requests[i];
  MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? own : statuses;
  const int rc = PMPI_Waitall(n, requests, st);
  for (int i = 0; i < n; ++i) completed(before[i], &st[i]);
  return rc;
}

int MPI_Testall(int n, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  MPI_Request before[SLOTS];
  MPI_Status own[SLOTS];
  if (n > SLOTS) return PMPI_Testall(n, requests, flag, statuses);
  for (int i = 0; i < n; ++i) before[i] = requests[i];
  MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? own : statuses;
  const int rc = PMPI_Testall(n, requests, flag, st);
  if (*flag)
    for (int i = 0; i < n; ++i) completed(before[i], &st[i]);
  return rc;
}

int MPI_Waitany(int n, MPI_Request requests[], int* index, MPI_Status* status) {
  MPI_Request before[SLOTS];
  MPI_Status own;
  if (n > SLOTS) return PMPI_Waitany(n, requests, index, status);
  for (int i = 0; i < n; ++i) before[i] = requests[i];
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Waitany(n, requests, index, st);
  if (*index != MPI_UNDEFINED) completed(before[*index], st);
  return rc;
}

int MPI_Testany(int n, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  MPI_Request before[SLOTS];
  MPI_Status own;
  if (n > SLOTS) return PMPI_Testany(n, requests, index, flag, status);
  for (int i = 0; i < n; ++i) before[i] = requests[i];
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Testany(n, requests, index, flag, st);
  if (*flag && *index != MPI_UNDEFINED) completed(before[*index], st);
  return rc;
}
