#include "harness/common/metadata.hpp"

#include <algorithm>
#include <ctime>
#include <functional>
#include <iterator>
#include <map>

#include "collectives/kernels/cpu_facts.hpp"
#include "collectives/kernels/reduce_kernels.hpp"
#include "collectives/process/progress.hpp"
#include "collectives/transport/gpu/gpu.hpp"
#include "collectives/transport/mpi/clean_finalize.hpp"
#include "collectives/transport/mpi/forced_algorithm.hpp"
#include "collectives/transport/mpi/library.hpp"
#include "collectives/transport/mpi/library_call.hpp"
#include "generated/build_info.hpp"
#include "harness/common/clocks.hpp"
#include "harness/common/control.hpp"
#include "harness/common/launcher.hpp"
#include "harness/common/machine_facts.hpp"

extern char** environ;

namespace collbench {
namespace {

nlohmann::json relevant_environment() {
  // Each library's own knobs: MPICH's CVARs, Open MPI's MCA parameters (mpirun --mca
  // passes them the same way), Intel MPI's and MVAPICH's, and the transports under them.
  static const char* prefixes[] = {"MPIR_CVAR_",
                                   "MPICH_",
                                   "OMPI_MCA_",
                                   "PMIX_MCA_",
                                   "OMPI_ALLOW_RUN_AS_ROOT",
                                   "I_MPI_",
                                   "MV2_",
                                   "UCX_",
                                   "UCC_",
                                   "HCOLL_",
                                   "FI_",
                                   "HYDRA_",
                                   "MALLOC_",
                                   "GLIBC_TUNABLES",
                                   "COLLBENCH_",
                                   "NCCL_",
                                   "CUDA_VISIBLE_DEVICES",
                                   "OMP_",
                                   "SLURM_JOB_ID",
                                   "SLURM_NNODES"};
  // What Open MPI's launcher sets for its own runtime (addresses, job ids, paths): not knobs.
  static const char* launcher_internals[] = {"OMPI_MCA_orte_",
                                             "OMPI_MCA_ess",
                                             "OMPI_MCA_pmix",
                                             "OMPI_MCA_initial_wdir",
                                             "OMPI_MCA_shmem_RUNTIME_QUERY_hint",
                                             "PMIX_MCA_psec",
                                             "PMIX_MCA_mca_base_component_show_load_errors"};
  nlohmann::json env = nlohmann::json::object();
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (std::any_of(std::begin(launcher_internals), std::end(launcher_internals),
                    [&](const char* p) { return kv.rfind(p, 0) == 0; }))
      continue;
    for (const char* p : prefixes)
      if (kv.rfind(p, 0) == 0) {
        const auto eq = kv.find('=');
        env[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
      }
  }
  return env;
}

}  // namespace

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

nlohmann::json gpu_json(const GpuInventory& g) {
  nlohmann::json devices = nlohmann::json::array();
  for (const GpuDevice& d : g.devices)
    devices.push_back(
        {{"index", d.index},
         {"name", d.name},
         {"pci_bus_id", d.pci_bus_id},
         {"memory_bytes", d.memory_bytes},
         {"compute_capability", std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)}});
  nlohmann::json j = {{"built_with_cuda", g.built_with_cuda},
                      {"built_with_nccl", g.built_with_nccl},
                      {"cuda_driver", cuda_version_text(g.driver_version)},
                      {"cuda_runtime", cuda_version_text(g.runtime_version)},
                      {"nccl", g.nccl_version.empty() ? "none" : g.nccl_version},
                      {"devices", devices},
                      {"peer_access", g.peer_access}};  // [a][b]: GPU a reads GPU b's memory directly
  if (g.devices.empty()) j["why_none"] = g.why_none;
  return j;
}

std::string oversubscription_warning(const nlohmann::json& metadata) {
  std::string out;
  for (const auto& [host, h] : metadata["oversubscription"]["hosts"].items()) {
    const long ranks = h["ranks"].get<long>(), cores = h["cores"].get<long>();
    if (!exceeds_cores(ranks, cores)) continue;
    if (!out.empty()) out += "; ";
    out += "host " + host + " runs " + std::to_string(ranks) + " ranks on " + std::to_string(cores) + " cores";
  }
  // Emulated hosts (network namespaces) share one kernel, and so its cores.
  for (const auto& [boot, h] : metadata["oversubscription"]["machines"].items()) {
    const long ranks = h["ranks"].get<long>(), cores = h["cores"].get<long>();
    if (h["hosts"].size() < 2 || !exceeds_cores(ranks, cores)) continue;
    if (!out.empty()) out += "; ";
    out += "hosts " + join(h["hosts"].get<std::vector<std::string>>(), std::identity{}, ",") +
           " share one machine (one kernel boot id) and run " + std::to_string(ranks) + " ranks on its " +
           std::to_string(cores) + " cores";
  }
  if (!out.empty())
    out += " (oversubscribed: ranks that busy-poll take turns on the cores, so times include waiting for one)";
  return out;
}

std::vector<std::string> metadata_warnings(const nlohmann::json& metadata) {
  std::vector<std::string> out;
  if (std::string w = oversubscription_warning(metadata); !w.empty()) out.push_back(std::move(w));
  if (metadata.contains("clocks"))
    if (std::string w = clock_warning(metadata["clocks"]); !w.empty()) out.push_back(std::move(w));
  return out;
}

nlohmann::json cpu_json(bool measure_bandwidth) {
  const CpuFacts& f = cpu_facts();
  nlohmann::json caches = nlohmann::json::object();
  for (const auto& [name, bytes] : f.caches) caches[name] = bytes;
  nlohmann::json paths = nlohmann::json::array();
  for (KernelIsa isa : kernel_isas_available()) paths.push_back(kernel_isa_name(isa));
  nlohmann::json j = {{"model", f.model},
                      {"features", f.features},
                      {"caches_bytes", caches},
                      // Some virtual machines show no caches in sysfs (their CPUID's are made up):
                      // the kernels then assume a 32 MiB last-level cache.
                      {"caches_source", f.caches.empty() ? "none" : "sysfs"},
                      {"kernel_path", reduce_kernel_isa()},
                      {"kernel_paths_available", paths},
                      {"streaming_stores_from_bytes", reduce_streaming_min_bytes()}};
  // Measured once per machine and boot, then read back (machine_facts.hpp).
  if (measure_bandwidth) j["triad"] = triad_json_cached();
  return j;
}

std::string join_ranks(const std::vector<int>& ranks) {
  return join(
      ranks, [](int r) { return std::to_string(r); }, ",");
}

nlohmann::json collect_metadata(const Invocation& inv, const Session& session) {
  const int size = inv.size;
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  const auto hosts = rank_hosts(inv.comm);
  std::map<std::string, std::vector<int>> ranks_by_host;
  for (int r = 0; r < size; ++r) ranks_by_host[hosts[static_cast<std::size_t>(r)]].push_back(r);

  progress::set_startup("collecting metadata");
  nlohmann::json m;
  m["tool"] = "collbench";
  m["git_revision"] = build_info::git_revision;
  m["build_type"] = build_info::build_type;
  m["compiler"] = build_info::compiler;
  m["cuda_detected"] = build_info::have_cuda;
  m["nccl_detected"] = build_info::have_nccl;
  m["reduce_kernel_isa"] = reduce_kernel_isa();
  m["started_utc"] = utc_now();
  m["command_line"] = std::vector<std::string>(inv.argv, inv.argv + inv.argc);
  const MpiLibrary& lib = mpi_library();
  m["mpi"] = {{"library", lib.summary},
              {"name", lib.name},
              {"version", lib.version},
              {"standard", std::to_string(major) + "." + std::to_string(minor)},
              {"library_version", mpi_library_version()},
              {"built_with", build_info::mpi_build},
              {"large_counts", large_counts_description()}};
  // The tuning file the library read (a run whose file it would not read is refused).
  if (const TuningFileRequest& t = mpi_tuning_file_request(); !t.path.empty())
    m["mpi"]["tuning_file"] = {{"path", t.path}, {"setting", t.setting}, {"bytes", t.text.size()}, {"fnv1a", t.fnv1a}};
  // How the run ends MPI (a bad variable was refused before the run started).
  const FinalizePolicy finalize = finalize_policy_here();
  m["mpi"]["finalize"] = {
      {"quiet_ms", finalize.quiet_ms}, {"connect_pairs", connects_pairs(finalize, size)}, {"reason", finalize.reason}};
  m["ranks"] = size;
  m["hosts"] = ranks_by_host;
  // Busy-polling ranks beyond a host's cores take turns on them, and every wait then
  // includes waiting for a core.
  const auto cores = control_allgather(std::to_string(cores_here()), inv.comm);
  nlohmann::json per_host = nlohmann::json::object();
  bool oversubscribed = false;
  for (const auto& [host, ranks] : ranks_by_host) {
    const long host_cores = std::stol(cores[static_cast<std::size_t>(ranks.front())]);
    per_host[host] = {{"ranks", ranks.size()}, {"cores", host_cores}};
    oversubscribed |= exceeds_cores(static_cast<long>(ranks.size()), host_cores);
  }
  // Hosts with one kernel boot id are one machine (emulated hosts are namespaces of it).
  const auto boots = control_allgather(kernel_boot_id(), inv.comm);
  std::map<std::string, std::pair<std::vector<std::string>, long>> machines;  // boot id -> hosts, ranks
  for (const auto& [host, ranks] : ranks_by_host) {
    const std::string& boot = boots[static_cast<std::size_t>(ranks.front())];
    auto& mc = machines[boot.empty() ? "unknown boot id, host " + host : boot];
    mc.first.push_back(host);
    mc.second += static_cast<long>(ranks.size());
  }
  nlohmann::json per_machine = nlohmann::json::object();
  for (const auto& [boot, mc] : machines) {
    const long machine_cores = per_host[mc.first.front()]["cores"].get<long>();
    per_machine[boot] = {{"hosts", mc.first}, {"ranks", mc.second}, {"cores", machine_cores}};
    oversubscribed |= exceeds_cores(mc.second, machine_cores);
  }
  m["oversubscription"] = {{"oversubscribed", oversubscribed}, {"hosts", per_host}, {"machines", per_machine}};
  progress::set_startup("measuring clock offsets");
  m["clocks"] = measure_clock_offsets(inv.comm, ranks_by_host, boots);
  // The GPUs each host's first rank sees (the others do not start CUDA for this).
  const bool leader = ranks_by_host[hosts[static_cast<std::size_t>(inv.rank)]].front() == inv.rank;
  progress::set_startup("probing GPUs");
  const auto gpus = control_allgather(leader ? gpu_json(probe_gpus()).dump() : std::string(), inv.comm);
  nlohmann::json gpus_by_host = nlohmann::json::object();
  for (const auto& [host, ranks] : ranks_by_host)
    gpus_by_host[host] = nlohmann::json::parse(gpus[static_cast<std::size_t>(ranks.front())]);
  m["gpus"] = gpus_by_host;
  // Each host's CPU, its first rank measuring memory bandwidth while the others wait.
  progress::set_startup(leader ? "memory bandwidth (triad), cached or measured" : "collecting CPU facts");
  const auto cpus = control_allgather(cpu_json(leader).dump(), inv.comm);
  nlohmann::json cpus_by_host = nlohmann::json::object();
  for (const auto& [host, ranks] : ranks_by_host)
    cpus_by_host[host] = nlohmann::json::parse(cpus[static_cast<std::size_t>(ranks.front())]);
  m["cpu"] = cpus_by_host;
  m["transport"] = session.transport.name();
  m["interconnect"] = to_json(session.interconnect);
  m["launcher"] = to_json(detect_launcher());  // rank 0's view: srun, hydra or mpirun, and the Slurm job
  m["environment"] = relevant_environment();
  const Topology& t = session.topology;
  m["topology"] = {{"nodes", t.nodes},
                   {"max_ranks_per_node", t.max_ranks_per_node},
                   {"node_of_rank", t.node_of_rank},
                   {"source", t.source}};
  return m;
}

}  // namespace collbench
