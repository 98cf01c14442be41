#pragma once
// Who started the ranks, read from what each launcher puts in the environment: Slurm's
// srun (direct launch), MPICH's Hydra (mpiexec), Open MPI's mpirun, or nothing (a
// singleton). A Slurm job's facts are kept whichever launcher ran inside it.
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace collbench {

using EnvLookup = std::function<const char*(const char*)>;

struct Launcher {
  std::string kind;                          // "srun", "hydra", "mpirun", "none"
  std::map<std::string, std::string> slurm;  // job_id, step_id, nodes, ..., as set; empty outside a job
};

Launcher detect_launcher(const EnvLookup& env);
Launcher detect_launcher();  // this process's environment
nlohmann::json to_json(const Launcher& l);

// Why the run must not go on, or nothing: srun started more (or fewer) tasks than MPI
// sees ranks, as when the library does not speak srun's --mpi plugin and every task
// becomes a one-rank job of its own that would measure and write results alone.
std::optional<std::string> launch_mismatch(const Launcher& l, int mpi_ranks);

}  // namespace collbench
