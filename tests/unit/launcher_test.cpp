#include <gtest/gtest.h>

#include <map>
#include <string>

#include "harness/common/launcher.hpp"

using namespace collbench;

namespace {

EnvLookup env_of(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

// What srun puts in a task's environment (Slurm 22.05, seen on the emulated hosts).
const std::map<std::string, std::string> kSrunTask = {
    {"SLURM_JOB_ID", "12"},        {"SLURM_STEP_ID", "0"},
    {"SLURM_CLUSTER_NAME", "cb"},  {"SLURM_JOB_PARTITION", "emulated"},
    {"SLURM_JOB_NUM_NODES", "3"},  {"SLURM_JOB_NODELIST", "cb-h[1-3]"},
    {"SLURM_STEP_NUM_TASKS", "3"}, {"SLURM_STEP_TASKS_PER_NODE", "1(x3)"},
    {"SLURM_STEP_NUM_NODES", "3"}, {"SLURM_MPI_TYPE", "pmi2"}};

}  // namespace

TEST(Launcher, SrunRecordsTheJob) {
  const Launcher l = detect_launcher(env_of(kSrunTask));
  EXPECT_EQ(l.kind, "srun");
  EXPECT_EQ(l.slurm.at("job_id"), "12");
  EXPECT_EQ(l.slurm.at("nodes"), "3");
  EXPECT_EQ(l.slurm.at("tasks_per_node"), "1(x3)");
  EXPECT_EQ(l.slurm.at("mpi_plugin"), "pmi2");
  EXPECT_EQ(to_json(l)["slurm"]["nodelist"], "cb-h[1-3]");
  EXPECT_FALSE(launch_mismatch(l, 3));
}

TEST(Launcher, SrunWithoutAPluginTheLibrarySpeaksIsRefused) {
  auto vars = kSrunTask;
  vars["SLURM_MPI_TYPE"] = "none";
  const auto why = launch_mismatch(detect_launcher(env_of(vars)), 1);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why,
            "srun started 3 tasks, but MPI sees 1 rank(s): the MPI library did not join srun's process "
            "management (--mpi=none), so each task would run alone. Launch MPICH with srun --mpi=pmi2 and "
            "Open MPI with srun --mpi=pmix ('srun --mpi=list' names what this Slurm offers)");
}

TEST(Launcher, HydraAndMpirunInsideAJobAreNotSrun) {
  // Hydra inside an allocation starts its proxies with srun: the ranks carry the proxies'
  // step (one task per node), which says nothing about the MPI job's size.
  auto hydra = kSrunTask;
  hydra["HYDI_CONTROL_FD"] = "7";
  hydra["PMI_SIZE"] = "8";
  const Launcher h = detect_launcher(env_of(hydra));
  EXPECT_EQ(h.kind, "hydra");
  EXPECT_EQ(h.slurm.at("job_id"), "12");
  EXPECT_FALSE(launch_mismatch(h, 8));
  auto ompi_srun = kSrunTask;  // Open MPI sets these under srun --mpi=pmix as well
  ompi_srun["OMPI_COMMAND"] = "collbench";
  ompi_srun["PMIX_NAMESPACE"] = "slurm.pmix.12.0";
  EXPECT_EQ(detect_launcher(env_of(ompi_srun)).kind, "srun");
  auto mpirun = kSrunTask;
  mpirun["OMPI_MCA_orte_hnp_uri"] = "1102905344.0;tcp://10.213.0.1:54239";
  EXPECT_EQ(detect_launcher(env_of(mpirun)).kind, "mpirun");
  EXPECT_FALSE(launch_mismatch(detect_launcher(env_of(mpirun)), 8));
}

TEST(Launcher, HydraOnAnotherHost) {
  // A rank whose proxy a launcher (ssh) started: what such a rank saw on an emulated host.
  const Launcher l = detect_launcher(
      env_of({{"PMI_FD", "11"}, {"PMI_RANK", "1"}, {"PMI_SIZE", "2"}, {"MPI_LOCALNRANKS", "1"}, {"MPI_LOCALRANKID", "0"}}));
  EXPECT_EQ(l.kind, "hydra");
}

TEST(Launcher, NoLauncherIsASingleton) {
  const Launcher l = detect_launcher(env_of({}));
  EXPECT_EQ(l.kind, "none");
  EXPECT_TRUE(l.slurm.empty());
  EXPECT_FALSE(to_json(l).contains("slurm"));
  EXPECT_FALSE(launch_mismatch(l, 1));
}
