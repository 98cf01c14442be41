#include "harness/ps/ps_options.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <stdexcept>

#include "harness/common/lists.hpp"
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

}  // namespace

void add_ps_flags(CLI::App& run, PsFlags& f) {
  PsOptions& o = f.parsed;
  const std::string group = "Parameter server (--collective ps)";
  run.add_option("--servers", o.servers, "Server ranks: the last S ranks serve, ranks 0..n-S-1 are workers")
      ->capture_default_str()->group(group);
  run.add_option("--ps-mode", f.modes, kPsModeNames.valid() + ", or a comma-separated list")->capture_default_str()->group(group);
  run.add_option("--staleness", o.staleness, "bounded: steps a worker may run ahead of the slowest")
      ->capture_default_str()->group(group);
  run.add_option("--lr", o.learning_rate, "SGD learning rate the servers apply")->capture_default_str()->group(group);
  run.add_option("--partition-size", f.partition, "Largest partition of a tensor (K/M suffixes; BytePS's default)")
      ->capture_default_str()->group(group);
  run.add_option("--assignment", f.assignment, "Partitions to servers: " + kPsAssignmentNames.valid())
      ->capture_default_str()->group(group);
  run.add_option("--sparse-rows", o.sparse_rows, "Sparse: rows each worker pushes and pulls per step, of a "
                                                 "table of (size / row bytes) rows")->group(group);
  run.add_option("--row-bytes", f.row_bytes, "Sparse: bytes per table row")->group(group);
  run.add_option("--slow-ranks", f.slow_ranks, "Comma-separated workers that sleep --slow-us before every step")->group(group);
  run.add_option("--slow-us", o.slow_us, "Delay of --slow-ranks per step, microseconds")->capture_default_str()->group(group);
  run.add_option("--compare", f.compare, "Allreduce algorithms run among the workers on the same sizes, or none")
      ->capture_default_str()->group(group);
}

PsOptions resolve_ps(const RunOptions& common, const PsFlags& f, const Registry& registry, int nranks) {
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
  ps.watchdog_s = common.watchdog_s;

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
  if (ps.staleness < 0) throw std::invalid_argument("--staleness must not be negative");
  if (!std::isfinite(ps.learning_rate)) throw std::invalid_argument("--lr must be a finite number");
  const std::size_t elem = dtype_size(ps.dtype);
  ps.partition_bytes = parse_size(f.partition);
  if (ps.partition_bytes < elem) throw std::invalid_argument("--partition-size " + f.partition + " is smaller than one element");
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
  } else if (ps.sizes.min_bytes == 0) {
    throw std::invalid_argument("--minbytes must be at least one element for the parameter server");
  }
  ps.slow_ranks = parse_rank_list(f.slow_ranks, "--slow-ranks");
  for (int r : ps.slow_ranks)
    if (r < 0 || r >= roles.workers())
      throw std::invalid_argument("--slow-ranks " + std::to_string(r) + " is not a worker (workers are ranks 0.." +
                                  std::to_string(roles.workers() - 1) + ")");
  if (ps.slow_us < 0) throw std::invalid_argument("--slow-us must not be negative");
  if (f.compare != "none")
    for (const std::string& name : split_list(f.compare)) {
      const AlgorithmEntry* e = registry.find(Collective::allreduce, name);
      if (!e)
        throw std::invalid_argument("unknown --compare allreduce algorithm '" + name +
                                    "'; valid: " + registry.names(Collective::allreduce) + ", or none");
      ps.compare.push_back(e);
    }
  return ps;
}

}  // namespace collbench
