/* A rank that stops before its first collective, used with LD_PRELOAD: the process
 * whose rank (PMI_RANK under Hydra, OMPI_COMM_WORLD_RANK under Open MPI) is STOP_RANK
 * stops itself with SIGSTOP when collbench names its watchdog thread, which it does
 * right after starting it and before any rank exchanges anything. Its watchdog stops
 * too; the ranks waiting on it must end the run and name it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static int is_target(void) {
  const char* want = getenv("STOP_RANK");
  const char* rank = getenv("PMI_RANK");
  if (!rank) rank = getenv("OMPI_COMM_WORLD_RANK");
  return want && rank && strcmp(want, rank) == 0;
}

int pthread_setname_np(pthread_t thread, const char* name) {
  int (*real)(pthread_t, const char*) = (int (*)(pthread_t, const char*))dlsym(RTLD_NEXT, "pthread_setname_np");
  const int rc = real ? real(thread, name) : 0;
  if (strcmp(name, "cb-watchdog") == 0 && is_target()) raise(SIGSTOP);
  return rc;
}
