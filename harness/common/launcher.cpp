#include "harness/common/launcher.hpp"

#include <cstdlib>

namespace collbench {

Launcher detect_launcher(const EnvLookup& env) {
  Launcher l;
  const auto set = [&](const char* name) { return env(name) != nullptr; };
  const char* pmix_namespace = env("PMIX_NAMESPACE");  // "prterun-..." under Open MPI 5's mpirun
  // Hydra's proxy sets MPI_LOCALNRANKS on every host; HYDI_CONTROL_FD only where
  // mpiexec forked the proxy itself (one host), not where a launcher (ssh) started it.
  if (set("HYDI_CONTROL_FD") || set("MPI_LOCALNRANKS")) l.kind = "hydra";
  // Open MPI 4's mpirun (orted) or 5's (prte); OMPI_COMMAND is set under srun too.
  else if (set("OMPI_MCA_orte_hnp_uri") || set("PRTE_LAUNCHED") ||
           (pmix_namespace && std::string(pmix_namespace).rfind("prterun", 0) == 0))
    l.kind = "mpirun";
  else if (set("SLURM_STEP_ID") && set("SLURM_STEP_NUM_TASKS"))
    l.kind = "srun";
  else
    l.kind = "none";
  static const std::pair<const char*, const char*> fields[] = {{"job_id", "SLURM_JOB_ID"},
                                                               {"step_id", "SLURM_STEP_ID"},
                                                               {"cluster", "SLURM_CLUSTER_NAME"},
                                                               {"partition", "SLURM_JOB_PARTITION"},
                                                               {"nodes", "SLURM_JOB_NUM_NODES"},
                                                               {"nodelist", "SLURM_JOB_NODELIST"},
                                                               {"tasks", "SLURM_STEP_NUM_TASKS"},
                                                               {"tasks_per_node", "SLURM_STEP_TASKS_PER_NODE"},
                                                               {"step_nodes", "SLURM_STEP_NUM_NODES"},
                                                               {"mpi_plugin", "SLURM_MPI_TYPE"}};
  if (set("SLURM_JOB_ID"))
    for (const auto& [key, name] : fields)
      if (const char* v = env(name)) l.slurm[key] = v;
  return l;
}

Launcher detect_launcher() {
  return detect_launcher([](const char* name) { return std::getenv(name); });
}

nlohmann::json to_json(const Launcher& l) {
  nlohmann::json j = {{"kind", l.kind}};
  if (!l.slurm.empty()) j["slurm"] = l.slurm;
  return j;
}

std::optional<std::string> launch_mismatch(const Launcher& l, int mpi_ranks) {
  if (l.kind != "srun") return std::nullopt;
  const auto tasks = l.slurm.find("tasks");
  if (tasks == l.slurm.end() || tasks->second == std::to_string(mpi_ranks)) return std::nullopt;
  const auto plugin = l.slurm.find("mpi_plugin");
  return "srun started " + tasks->second + " tasks, but MPI sees " + std::to_string(mpi_ranks) +
         " rank(s): the MPI library did not join srun's process management (--mpi=" +
         (plugin == l.slurm.end() ? std::string("none") : plugin->second) +
         "), so each task would run alone. Launch MPICH with srun --mpi=pmi2 and Open MPI with srun --mpi=pmix "
         "('srun --mpi=list' names what this Slurm offers)";
}

}  // namespace collbench
