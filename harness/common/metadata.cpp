#include "harness/common/metadata.hpp"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <map>

#include "build_info.hpp"
#include "harness/common/control.hpp"
#include "collectives/mpi/library.hpp"
#include "harness/ps/ps_sweep.hpp"
#include "collectives/reduce_kernels.hpp"

extern char** environ;

namespace collbench {
namespace {

std::string join_ranks(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ",") + std::to_string(r);
  return out;
}

nlohmann::json ps_metadata(const RunOptions& o, int nranks, const Topology& topology) {
  const PsRoles roles = ps_roles(nranks, o.ps.servers);
  std::vector<int> servers, workers;
  for (int r = 0; r < nranks; ++r) (roles.is_server(r) ? servers : workers).push_back(r);
  std::vector<std::string> modes, compare;
  for (const auto* m : o.ps.modes) modes.push_back(m->name);
  for (const auto* a : o.ps.compare) compare.push_back(a->name);
  return {{"servers", roles.servers},
          {"workers", roles.workers()},
          {"server_ranks", servers},
          {"server_ranks_text", join_ranks(servers)},
          {"worker_ranks", workers},
          {"modes", modes},
          {"staleness_bound", o.ps.staleness},
          {"learning_rate", o.ps.learning_rate},
          {"partition_bytes", o.ps.partition_bytes},
          {"assignment", ps_assignment_name(o.ps.assignment)},
          {"sparse_rows", o.ps.sparse_rows},
          {"row_bytes", o.ps.row_bytes},
          {"slow_ranks", o.ps.slow_ranks},
          {"slow_ranks_text", join_ranks(o.ps.slow_ranks)},
          {"slow_us", o.ps.slow_us},
          {"compare_allreduce_among_workers", compare},
          {"waits_yield", node_is_oversubscribed(topology)},
          {"check_steps", 3},
          {"definitions",
           {{"bytes", "dense: the model (one tensor); sparse: the whole table"},
            {"time", "a worker's step: push until every server acknowledged, plus pull until every value arrived"},
            {"algbw_gbps", "bytes / mean step time"},
            {"busbw_gbps", "bytes a worker sent per step / mean step time"},
            {"goodput_worker_gbps", "gradient bytes a worker pushed per step / mean step time"},
            {"goodput_server_gbps", "bytes a server received / its session time, mean over servers"},
            {"wait_mean_us", "how long a server held pulls back for consistency (sync, bounded)"},
            {"staleness", "per pull: steps the worker is ahead of the slowest worker whose pushes the server has"},
            {"ring_allreduce_bytes_per_step", "2(W-1)/W x bytes: what ring allreduce sends (and receives) per worker"}}}};
}

}  // namespace
namespace {

nlohmann::json relevant_environment() {
  static const char* prefixes[] = {"MPIR_CVAR_", "MPICH_", "UCX_", "FI_", "HYDRA_", "MALLOC_", "GLIBC_TUNABLES",
                                   "NCCL_", "CUDA_VISIBLE_DEVICES", "OMP_", "SLURM_JOB_ID", "SLURM_NNODES"};
  nlohmann::json env = nlohmann::json::object();
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    for (const char* p : prefixes)
      if (kv.rfind(p, 0) == 0) {
        const auto eq = kv.find('=');
        env[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
      }
  }
  return env;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

std::string mpi_baseline_row_name(Collective c) {
  const std::string forced = mpich_forced_algorithm(c);
  return forced.empty() ? "mpi" : "mpi[" + forced + "]";
}

std::vector<std::string> rank_hosts(MPI_Comm comm) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return control_allgather(std::string(name, static_cast<std::size_t>(len)), comm);
}

nlohmann::json collect_metadata(int argc, const char* const* argv, MPI_Comm comm, const RunOptions& o,
                                const std::string& transport, const Topology& topology) {
  int size = 1, major = 0, minor = 0;
  MPI_Comm_size(comm, &size);
  MPI_Get_version(&major, &minor);
  const auto hosts = rank_hosts(comm);
  std::map<std::string, std::vector<int>> ranks_by_host;
  for (int r = 0; r < size; ++r) ranks_by_host[hosts[static_cast<std::size_t>(r)]].push_back(r);

  nlohmann::json m;
  m["tool"] = "collbench";
  m["git_revision"] = build_info::git_revision;
  m["build_type"] = build_info::build_type;
  m["compiler"] = build_info::compiler;
  m["cuda_detected"] = build_info::have_cuda;
  m["nccl_detected"] = build_info::have_nccl;
  m["reduce_kernel_isa"] = reduce_kernel_isa();
  m["started_utc"] = utc_now();
  m["command_line"] = std::vector<std::string>(argv, argv + argc);
  m["mpi"] = {{"library", mpi_library_summary()},
              {"standard", std::to_string(major) + "." + std::to_string(minor)},
              {"library_version", mpi_library_version()}};
  m["ranks"] = size;
  m["hosts"] = ranks_by_host;
  m["transport"] = transport;
  m["environment"] = relevant_environment();
  const std::string forced = mpich_forced_algorithm(o.collective);
  m["mpi_baseline"] = {{"algorithm_variable", mpich_algorithm_variable(o.collective)},
                       {"forced_algorithm", forced.empty() ? "auto" : forced},
                       {"row_name", mpi_baseline_row_name(o.collective)}};
  m["topology"] = {{"nodes", topology.nodes},
                   {"max_ranks_per_node", topology.max_ranks_per_node},
                   {"node_of_rank", topology.node_of_rank},
                   {"source", topology.source}};
  m["timing_policy"] = {{"name", timing_policy_name(o.timing)}, {"text", timing_policy_text(o.timing)}};
  std::vector<std::string> algs;
  for (const auto* a : o.algorithms) algs.push_back(a->name);
  m["options"] = {{"collective", o.parameter_server ? std::string("ps") : std::string(collective_name(o.collective))},
                  {"algorithms", algs},
                  {"min_bytes", o.min_bytes},
                  {"max_bytes", o.max_bytes},
                  {"step_factor", o.step_factor},
                  {"warmup", o.warmup},
                  {"iters", o.iters},
                  {"rounds", o.rounds},
                  {"dtype", dtype_name(o.dtype)},
                  {"op", reduce_op_name(o.op)},
                  {"root", o.root},
                  {"check", o.check},
                  {"in_place", o.in_place},
                  {"segment_bytes", o.segment_bytes},
                  {"ranks_per_node", o.ranks_per_node}};
  if (o.parameter_server) m["parameter_server"] = ps_metadata(o, size, topology);
  m["definitions"] = {
      {"bytes", "per-rank buffer for allreduce, broadcast and reduce; all n blocks for gather, allgather "
                "and reduce_scatter"},
      {"algbw_gbps", "bytes / time, 1e9 bytes per second"},
      {"busbw_gbps", "algbw x 2(n-1)/n for allreduce, (n-1)/n for gather, allgather and reduce_scatter, 1 for "
                     "broadcast and reduce"},
      {"segment_bytes", "pipeline segment of pipelined algorithms, 0 for the others"},
      {"errors", "wrong elements summed over ranks; -1 when not checked"}};
  return m;
}

}  // namespace collbench
