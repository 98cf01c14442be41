#include "harness/ps/ps_options.hpp"

#include <CLI/CLI.hpp>
#include <climits>
#include <cmath>
#include <stdexcept>

#include "harness/common/lists.hpp"
#include "harness/common/numeric_flags.hpp"
#include "harness/common/sizes.hpp"

namespace collbench {
namespace {

std::vector<int> parse_rank_list(const std::string& text, const std::string& flag) {
  std::vector<int> out;
  for (const std::string& item : split_list(text)) {
    std::size_t used = 0;
    int r = -1;
    try {
      r = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size()) throw std::invalid_argument(flag + " expects comma-separated ranks, not '" + item + "'");
    out.push_back(r);
  }
  return out;
}

// Partitions per step at the largest size, the run's time and its memory.
void check_ps_request(const PsOptions& ps, const PsRoles& roles, const std::vector<std::size_t>& sizes,
                      const Machine& machine, bool force, const std::string& partition_text) {
  const std::size_t largest = sizes.empty() ? 0 : sizes.back();
  const std::size_t row = ps.sparse() ? ps.row_bytes : dtype_size(ps.dtype);
  const long double per = std::max<std::size_t>(1, ps.partition_bytes / row);
  const long double partitions = std::ceil(static_cast<long double>(largest / row) / per);
  check_count(partitions, kMaxMessagesPerStep,
              "--partition-size " + partition_text + " splits the " + format_bytes(largest) + " model into " +
                  std::to_string(static_cast<long long>(partitions)) + " partitions per step",
              "use a larger --partition-size", force);
  RequestEstimate e;
  const long double steps =
      (static_cast<long double>(ps.reps.warmup) + ps.reps.iters) * ps.reps.rounds * ps.modes.size() + 4;
  for (std::size_t bytes : sizes) {
    long double messages = std::ceil(static_cast<long double>(bytes / row) / per);
    if (ps.sparse()) messages = std::min<long double>(messages, ps.sparse_rows);
    e.seconds +=
        steps * (2 * messages * kCallFloorSeconds + 2.0L * bytes / kBytesPerSecondCeiling +
                 (ps.slow_ranks.empty() ? 0 : ps.slow_us * 1e-6L) + ps.compare.size() * call_floor_seconds(bytes));
  }
  e.work = std::to_string(sizes.size()) + " size(s) x " + std::to_string(static_cast<long long>(steps)) + " steps of " +
           std::to_string(roles.workers()) + " worker(s)" +
           (ps.slow_ranks.empty() ? "" : ", each step delayed --slow-us");
  e.bytes_per_rank = 2.0L * largest;  // parameters and gradients
  e.memory_flag = "-e " + format_bytes(ps.sizes.max_bytes);
  check_request(e, machine, force);
}

void add_ps_flags(CLI::App& run, PsFlags& f) {
  PsOptions& o = f.parsed;
  const std::string group = "Parameter server";
  run.add_option("--servers", o.servers, "Server ranks: the last S ranks serve, ranks 0..n-S-1 are workers")
      ->check(whole_in(0, INT_MAX))
      ->capture_default_str()
      ->group(group);
  run.add_option("--ps-mode", f.modes, kPsModeNames.valid() + ", or a comma-separated list")
      ->capture_default_str()
      ->group(group);
  run.add_option("--staleness", o.staleness, "bounded: steps a worker may run ahead of the slowest")
      ->check(whole_in(0, kMaxRepeats))
      ->capture_default_str()
      ->group(group);
  run.add_option("--lr", o.learning_rate,
                 "SGD learning rate the servers apply (up to 1000, so the checked "
                 "parameters stay finite)")
      ->check(number_in(0, 1000))
      ->capture_default_str()
      ->group(group);
  run.add_option("--partition-size", f.partition, "Largest partition of a tensor (K/M suffixes; BytePS's default)")
      ->capture_default_str()
      ->group(group);
  run.add_option("--assignment", f.assignment, "Partitions to servers: " + kPsAssignmentNames.valid())
      ->capture_default_str()
      ->group(group);
  run.add_option("--sparse-rows", o.sparse_rows,
                 "Sparse: rows each worker pushes and pulls per step, of a "
                 "table of (size / row bytes) rows")
      ->check(whole_in(1, 1e12))
      ->group(group);
  run.add_option("--row-bytes", f.row_bytes, "Sparse: bytes per table row")->group(group);
  run.add_option("--slow-ranks", f.slow_ranks, "Comma-separated workers that sleep --slow-us before every step")
      ->group(group);
  run.add_option("--slow-us", o.slow_us, "Delay of --slow-ranks per step, microseconds")
      ->check(number_in(0, 1e9))
      ->capture_default_str()
      ->group(group);
  run.add_option("--compare", f.compare, "Allreduce algorithms run among the workers on the same sizes, or none")
      ->capture_default_str()
      ->group(group);
}

// `common` is the sweep flags resolved as run resolves them (sizes, repetitions, dtype, outputs, ...).
PsOptions resolve_ps(const RunOptions& common, const PsFlags& f, const Registry& registry, int nranks,
                     const Machine& machine) {
  PsOptions ps = f.parsed;
  const SweepSpec& s = common.sweep;
  ps.sizes = s.sizes;
  ps.reps = s.reps;
  // Steps, not calls: a step is a whole push and pull, so the calls' auto counts do not apply.
  if (ps.reps.warmup == Repetitions::kAuto) ps.reps.warmup = kPsDefaultWarmupSteps;
  if (ps.reps.iters == Repetitions::kAuto) ps.reps.iters = kPsDefaultSteps;
  ps.dtype = s.dtype;
  ps.check = s.check;
  ps.ranks_per_node = common.ranks_per_node;
  ps.segment_bytes = s.segment_bytes;
  ps.out = common.out;
  ps.watchdog = common.watchdog;

  const PsRoles roles = ps_roles(nranks, ps.servers);
  require_ps_dtype(ps.dtype);
  ps.modes = resolve_list<const ProtocolEntry*>(
      f.modes,
      [&](const std::string& m) {
        const ProtocolEntry* e = registry.find_protocol("ps", m);
        return e ? std::optional{e} : std::nullopt;
      },
      [&](const std::string& m) { return "unknown --ps-mode '" + m + "'; valid: " + registry.variant_names("ps"); },
      "--ps-mode names no mode");
  const std::size_t elem = dtype_size(ps.dtype);
  ps.partition_bytes = parse_size(f.partition);
  if (ps.partition_bytes < elem || ps.partition_bytes % elem)
    throw std::invalid_argument("--partition-size " + f.partition + " is not a positive multiple of the " +
                                std::string(dtype_name(ps.dtype)) + " element size");
  ps.assignment = kPsAssignmentNames.parse_or_throw(f.assignment, "--assignment");
  if ((ps.sparse_rows > 0) != !f.row_bytes.empty())
    throw std::invalid_argument("--sparse-rows and --row-bytes go together (a sparse table needs both)");
  if (ps.sparse()) {
    ps.row_bytes = parse_size(f.row_bytes);
    if (ps.row_bytes == 0 || ps.row_bytes % elem)
      throw std::invalid_argument("--row-bytes " + f.row_bytes + " is not a positive multiple of the " +
                                  std::string(dtype_name(ps.dtype)) + " element size");
    if (ps.sizes.min_bytes < ps.row_bytes)
      throw std::invalid_argument("--minbytes " + std::to_string(ps.sizes.min_bytes) + " is smaller than one " +
                                  std::to_string(ps.row_bytes) + "-byte row of the sparse table");
    if (ps.sparse_rows > ps.sizes.min_bytes / ps.row_bytes)
      throw std::invalid_argument("--sparse-rows " + std::to_string(ps.sparse_rows) + " is more than the " +
                                  std::to_string(ps.sizes.min_bytes / ps.row_bytes) + " rows of the smallest table (" +
                                  std::to_string(ps.sizes.min_bytes) + " bytes / --row-bytes " + f.row_bytes +
                                  "): raise --minbytes, or touch fewer rows");
  } else if (ps.sizes.min_bytes == 0) {
    throw std::invalid_argument("--minbytes must be at least one element for the parameter server");
  }
  ps.slow_ranks = parse_rank_list(f.slow_ranks, "--slow-ranks");
  for (int r : ps.slow_ranks)
    if (r < 0 || r >= roles.workers())
      throw std::invalid_argument("--slow-ranks " + std::to_string(r) + " is not a worker (workers are ranks 0.." +
                                  std::to_string(roles.workers() - 1) + ")");
  if (f.compare.empty()) throw std::invalid_argument("--compare names nothing; give none for no comparison");
  if (f.compare != "none")
    for (const std::string& name : split_list(f.compare)) {
      const AlgorithmEntry* e = registry.find_on_host(Collective::allreduce, name);
      if (!e)
        throw std::invalid_argument("unknown --compare allreduce algorithm '" + name +
                                    "'; valid: " + registry.host_names(Collective::allreduce) + ", or none");
      ps.compare.push_back(e);
    }
  check_ps_request(ps, roles, checked_sweep_sizes(ps.sizes, ps.sparse() ? ps.row_bytes : elem, common.force), machine,
                   common.force, f.partition);
  return ps;
}

}  // namespace

CLI::App* add_command(CLI::App& app, PsCommandFlags& f) {
  CLI::App* ps = app.add_subcommand("ps",
                                    "Run a validated size sweep of the parameter server (push/pull: sync, "
                                    "async, bounded staleness), beside allreduce among its workers");
  add_run_flags(*ps, f.sweep);
  f.sweep.collective = "ps";
  // Hidden, not absent: given, they are refused with the reason (as under run -c ps).
  for (const char* run_only : {"--collective", "--algorithms", "--op", "--root", "--in-place", "--order", "--transport",
                               "--memory", "--bound", "--timing", "--aggregate"})
    ps->get_option(run_only)->group("");
  add_ps_flags(*ps, f.ps);
  return ps;
}

PsOptions resolve_command(const PsCommandFlags& f, const CommandContext& c) {
  if (f.sweep.collective != "ps")
    throw std::invalid_argument(
        "collbench ps takes no --collective (it sweeps the parameter server, and allreduce "
        "among its workers with --compare)");
  return resolve_ps(resolve_command(f.sweep, c), f.ps, c.registry, c.nranks, c.machine);
}

}  // namespace collbench
