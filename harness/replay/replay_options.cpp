#include "harness/replay/replay_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "algorithms/parameter_server/plan.hpp"
#include "harness/common/lists.hpp"
#include "harness/common/numeric_flags.hpp"

namespace collbench {
namespace {

// Every configuration's steps: the emulated compute, and at least one exchange of the
// workload's bytes; memory for the gradients, their buckets and the checked copies.
void check_replay_request(const ReplayOptions& r, const Workload& w, const Machine& machine) {
  const std::optional<ComputeModel> c = workload_compute(r, w);
  const long double steps = static_cast<long double>(r.steps + r.warmup) * r.rounds * r.algorithms.size();
  RequestEstimate e;
  for (BucketingPolicy b : r.bucketings) {
    const long double exchanges = b == BucketingPolicy::none ? w.tensors.size() : 1;  // at least
    e.seconds +=
        steps * ((c ? c->total_ms() : 0) * 1e-3L + exchanges * kCallFloorSeconds + w.bytes() / kBytesPerSecondCeiling);
  }
  const long double total_steps = steps * r.bucketings.size();
  char work[96];
  std::snprintf(work, sizeof work, "%lld steps of %g ms of compute", static_cast<long long>(total_steps),
                c ? c->total_ms() : 0.0);
  e.work = work;
  // The dense buckets' arena; sparse tables too when one strategy allreduces them whole.
  const bool dense_tables = std::find(r.sparse_strategies.begin(), r.sparse_strategies.end(), SparseStrategy::dense) !=
                            r.sparse_strategies.end();
  for (const GradientTensor& t : w.tensors)
    if (!t.sparse || dense_tables) e.bytes_per_rank += t.bytes();
  e.memory_flag = "workload " + w.name + " (" + human_bytes(w.bytes()) + " of gradients)";
  check_request(e, machine, r.force);
}

}  // namespace

CLI::App* add_command(CLI::App& parent, ReplayFlags& f) {
  CLI::App& app = *parent.add_subcommand("replay",
                                         "Replay a model's gradient exchange per training step: "
                                         "bucketing, overlap with backward, exposed communication");
  ReplayOptions& r = f.parsed;
  add_workload_flags(app, r, f.choice);
  app.add_option("--workload", r.workload, "a built-in workload (collbench workloads list) or a workload FILE.csv")
      ->capture_default_str();
  app.add_option("--algorithms,-a", f.algorithms,
                 "Allreduce algorithms for the dense buckets (see 'collbench list'; "
                 "with --memory device the reference ones, and nccl over --transport "
                 "nccl)")
      ->capture_default_str()
      ->each([&f](const std::string&) { f.algorithms_given = true; });
  app.add_option("--sparse-strategy", f.sparse,
                 "Sparse tables: dense (allreduce the table), allgather (the touched "
                 "rows), ps (push/pull rows to servers), or a list")
      ->capture_default_str();
  app.add_option("--alltoall-algorithm", f.all_to_all,
                 "alltoallv algorithm of the workload's all-to-alls (MoE, DLRM; default mpi, on device memory "
                 "pairwise)");
  app.add_option("--servers", r.servers, "ps: server ranks (the last S); the others are workers")
      ->check(whole_in(0, INT_MAX))
      ->capture_default_str();
  app.add_option("--ps-mode", f.ps_mode, "ps: sync, async or bounded")->capture_default_str();
  app.add_option("--steps", r.steps, "Timed steps per configuration")
      ->check(whole_in(1, kMaxRepeats))
      ->capture_default_str();
  app.add_option("--warmup", r.warmup,
                 "Untimed steps before each configuration's timed ones (the very first is checked)")
      ->check(whole_in(0, kMaxRepeats))
      ->capture_default_str();
  app.add_option("--rounds", r.rounds,
                 "Rounds; each runs every configuration's warm-up and timed steps in turn, so "
                 "configurations are measured interleaved")
      ->check(whole_in(1, kMaxRepeats))
      ->capture_default_str();
  app.add_flag("--check,!--no-check", r.check, "Check the first warm-up step's results (default on)");
  app.add_option("--ranks-per-node", r.ranks_per_node, "Emulate nodes of this many ranks for hierarchical algorithms")
      ->check(whole_in(1, INT_MAX));
  app.add_option("--memory", f.memory,
                 "Where the gradient buckets and gathered rows live: host, or device (the GPU "
                 "local_rank % GPUs; inputs copied in, results copied back and checked)")
      ->capture_default_str();
  add_transport_flag(app, f.transport, TransportUser::replay);
  app.add_option("--timeline", r.timeline_path, "Chrome-trace JSON of compute and communication per rank (Perfetto)");
  add_output_flags(app, r.out, "replay");
  add_watchdog_flags(app, r.watchdog);
  add_force_flag(app, r.force);
  return &app;
}

ReplayOptions resolve_command(const ReplayFlags& f, const CommandContext& c) {
  const Registry& registry = c.registry;
  const int nranks = c.nranks;
  const Machine& machine = c.machine;
  const auto& probe = c.probe;
  ReplayOptions r = f.parsed;
  r.memory = kMemoryKindNames.parse_or_throw(f.memory, "--memory");
  const bool device = r.memory == MemoryKind::device;
  r.transport = resolve_transport(f.transport, r.memory, TransportUser::replay, probe);
  resolve_workload(r, f.choice, true);
  const Workload& w = r.loaded;
  if (r.check && r.warmup < 1)
    throw std::invalid_argument("--check checks the first warm-up step: give --warmup 1 or more, or --no-check");
  // Device memory has no MPI baseline; NCCL's runs over the nccl transport.
  const std::string named = f.algorithms_given || !device        ? f.algorithms
                            : r.transport == TransportKind::nccl ? "nccl,ring"
                                                                 : "ring";
  r.algorithms = resolve_list<const AlgorithmEntry*>(
      named,
      [&](const std::string& s) {
        const AlgorithmEntry* e = registry.find(Collective::allreduce, s);
        return e ? std::optional{e} : std::nullopt;
      },
      [&](const std::string& s) {
        return "unknown allreduce algorithm '" + s + "'; valid: " +
               (device ? registry.names(Collective::allreduce) : registry.host_names(Collective::allreduce));
      },
      "allreduce algorithm names nothing");
  keep_runnable(r.algorithms, r.memory, r.transport, true);
  if (!w.all_to_alls.empty()) {
    const std::string name = !f.all_to_all.empty() ? f.all_to_all : device ? "pairwise" : "mpi";
    r.all_to_all =
        device ? registry.find(Collective::alltoallv, name) : registry.find_on_host(Collective::alltoallv, name);
    if (!r.all_to_all)
      throw std::invalid_argument(
          "unknown --alltoall-algorithm '" + name +
          "'; valid: " + (device ? registry.names(Collective::alltoallv) : registry.host_names(Collective::alltoallv)));
    for (const AllToAllCall& a : w.all_to_alls) all_to_all_counts(a, nranks);  // refuses experts the ranks cannot hold
  } else if (!f.all_to_all.empty()) {
    throw std::invalid_argument("--alltoall-algorithm: workload " + w.name + " has no all-to-alls");
  }
  r.sparse_strategies = {SparseStrategy::none};
  if (w.sparse_tensors() > 0)
    r.sparse_strategies = resolve_list<SparseStrategy>(
        f.sparse,
        [](const std::string& s) {
          const auto v = kSparseStrategyNames.parse(s);
          return v == SparseStrategy::none ? std::nullopt : v;
        },
        [](const std::string& s) { return "unknown --sparse-strategy '" + s + "'; valid: dense, allgather, ps"; },
        "--sparse-strategy names nothing");
  if (device && std::find(r.sparse_strategies.begin(), r.sparse_strategies.end(), SparseStrategy::ps) !=
                    r.sparse_strategies.end())
    throw std::invalid_argument("--sparse-strategy ps runs on host memory only, not --memory device");
  check_replay_request(r, w, machine);
  if (std::find(r.sparse_strategies.begin(), r.sparse_strategies.end(), SparseStrategy::ps) ==
      r.sparse_strategies.end())
    return r;
  // The parameter server answers whatever arrives: tagged messages, which only MPI carries.
  if (r.transport != TransportKind::mpi)
    throw std::invalid_argument("--sparse-strategy ps needs --transport mpi (its servers answer tagged messages)");
  ps_roles(nranks, r.servers);  // throws for a server count the ranks cannot hold
  r.ps_mode = registry.find_protocol("ps", f.ps_mode);
  if (!r.ps_mode)
    throw std::invalid_argument("unknown --ps-mode '" + f.ps_mode + "'; valid: " + registry.variant_names("ps"));
  std::optional<DType> dtype;
  for (const GradientTensor& t : w.tensors) {
    if (!t.sparse) continue;
    require_ps_dtype(t.dtype);
    if (dtype && *dtype != t.dtype)
      throw std::invalid_argument("--sparse-strategy ps needs every sparse tensor in one dtype");
    dtype = t.dtype;
  }
  return r;
}

}  // namespace collbench
