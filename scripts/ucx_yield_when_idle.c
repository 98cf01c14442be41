/* Preloaded into MPICH's ranks by emulate_cluster.sh where the emulated hosts together
 * run more ranks than the machine has cores. MPICH's ch4 polls UCX without ever giving
 * up the core, so a rank waiting for one that is not running spins until the
 * scheduler's 4 ms tick (4 x 1 on 2 cores: an 8-byte allreduce 4.6-6.9 ms). Open MPI
 * yields when idle on a node it knows is oversubscribed; this does the same for MPICH:
 * after a run of polls that found nothing, sched_yield. Build:
 *   gcc -O2 -shared -fPIC -o ucx_yield_when_idle.so ucx_yield_when_idle.c -ldl
 * Under srun the script cannot see how many tasks a step starts, so it preloads this
 * into every step and the rank decides here: it yields only where the step's tasks
 * (SLURM_STEP_NUM_TASKS, or the PMI's size) outnumber the cores this process may use;
 * with no task count (mpiexec, which preloads it only where they do) it always yields.
 * Open MPI's ranks under srun get OMPI_MCA_mpi_yield_when_idle=1 from here in the same
 * case (unless it is set): Slurm's nodes here offer 8 CPUs each, so Open MPI never finds
 * itself oversubscribed and would poll as MPICH does. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>

typedef struct ucp_worker *ucp_worker_h; /* opaque: no UCX headers needed */

/* Polls that found nothing before yielding: a few, so a message that is on its way is
 * still picked up without a trip through the scheduler. */
enum { IDLE_POLLS_BEFORE_YIELD = 16 };

static int yields = 1;

__attribute__((constructor)) static void decide(void) {
  const char *names[] = {"SLURM_STEP_NUM_TASKS", "PMI_SIZE"};
  for (unsigned i = 0; i < sizeof names / sizeof *names; ++i) {
    const char *v = getenv(names[i]);
    if (!v || !*v) continue;
    cpu_set_t cores;
    if (sched_getaffinity(0, sizeof cores, &cores) == 0) yields = atoi(v) > CPU_COUNT(&cores);
    /* Open MPI's processes only: an MPICH rank's recorded environment stays its own. The
     * program's libraries are loaded before any constructor runs. */
    if (yields && dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world"))
      setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
    return;
  }
}

unsigned ucp_worker_progress(ucp_worker_h worker) {
  static unsigned (*next)(ucp_worker_h);
  static __thread unsigned idle;
  if (!next) next = (unsigned (*)(ucp_worker_h))dlsym(RTLD_NEXT, "ucp_worker_progress");
  unsigned events = next(worker);
  if (yields && events == 0 && ++idle >= IDLE_POLLS_BEFORE_YIELD) {
    idle = 0;
    sched_yield();
  }
  return events;
}
