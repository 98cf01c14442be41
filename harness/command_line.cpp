#include "harness/command_line.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "harness/common/lists.hpp"
#include "harness/common/sizes.hpp"

namespace collbench {
namespace {

struct PsFlags {
  std::string modes = "sync", partition = "4096000", assignment = "round-robin", row_bytes, slow_ranks,
              compare = "ring";
};

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

void resolve_ps(RunOptions& o, const PsFlags& f, const Registry& registry, int nranks) {
  PsRunOptions& ps = o.ps;
  const PsRoles roles = ps_roles(nranks, ps.servers);
  require_ps_dtype(o.dtype);
  for (const std::string& m : split_list(f.modes)) {
    const ProtocolEntry* e = registry.find_protocol("ps", m);
    if (!e) throw std::invalid_argument("unknown --ps-mode '" + m + "'; valid: sync, async, bounded");
    if (std::find(ps.modes.begin(), ps.modes.end(), e) == ps.modes.end()) ps.modes.push_back(e);
  }
  if (ps.modes.empty()) throw std::invalid_argument("--ps-mode names no mode");
  if (ps.staleness < 0) throw std::invalid_argument("--staleness must not be negative");
  if (!std::isfinite(ps.learning_rate)) throw std::invalid_argument("--lr must be a finite number");
  const std::size_t elem = dtype_size(o.dtype);
  ps.partition_bytes = parse_size(f.partition);
  if (ps.partition_bytes < elem) throw std::invalid_argument("--partition-size " + f.partition + " is smaller than one element");
  auto a = parse_ps_assignment(f.assignment);
  if (!a) throw std::invalid_argument("unknown --assignment '" + f.assignment + "'; valid: round-robin, hash");
  ps.assignment = *a;
  if ((ps.sparse_rows > 0) != !f.row_bytes.empty())
    throw std::invalid_argument("--sparse-rows and --row-bytes go together (a sparse table needs both)");
  if (ps.sparse()) {
    ps.row_bytes = parse_size(f.row_bytes);
    if (ps.row_bytes == 0 || ps.row_bytes % elem)
      throw std::invalid_argument("--row-bytes " + f.row_bytes + " is not a positive multiple of the " +
                                  std::string(dtype_name(o.dtype)) + " element size");
    if (o.min_bytes < ps.row_bytes)
      throw std::invalid_argument("--minbytes " + std::to_string(o.min_bytes) + " is smaller than one " +
                                  std::to_string(ps.row_bytes) + "-byte row of the sparse table");
  } else if (o.min_bytes == 0) {
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
      if (!e) throw std::invalid_argument("unknown --compare allreduce algorithm '" + name + "'");
      ps.compare.push_back(e);
    }
}

void resolve(RunOptions& o, const std::string& collective, const std::string& algorithms,
             const std::string& dtype, const std::string& op, const std::string& minb,
             const std::string& maxb, const std::string& timing, const std::string& segment,
             const Registry& registry, int nranks) {
  o.parameter_server = collective == "ps";
  auto c = o.parameter_server ? std::optional{Collective::allreduce} : parse_collective(collective);
  if (!c) throw std::invalid_argument("unknown collective '" + collective + "'; valid: " +
                                      join_names(kAllCollectives, collective_name) + ", ps");
  o.collective = *c;
  auto t = parse_dtype(dtype);
  if (!t) throw std::invalid_argument("unknown dtype '" + dtype + "'; valid: " + join_names(kAllDTypes, dtype_name));
  o.dtype = *t;
  auto r = parse_reduce_op(op);
  if (!r) throw std::invalid_argument("unknown op '" + op + "'; valid: " + join_names(kAllReduceOps, reduce_op_name));
  o.op = *r;
  if (timing == "per-call") o.timing = TimingPolicy::per_call;
  else if (timing == "loop") o.timing = TimingPolicy::loop;
  else throw std::invalid_argument("unknown timing policy '" + timing + "'; valid: per-call, loop");

  if (o.parameter_server && !algorithms.empty())
    throw std::invalid_argument("--collective ps takes --ps-mode (and --compare), not --algorithms");
  const auto available = registry.for_collective(o.collective);
  auto names = [](const AlgorithmEntry* e) { return e->name; };
  if (algorithms.empty()) {
    o.algorithms = available;
  } else {
    for (const std::string& name : split_list(algorithms)) {
      const AlgorithmEntry* e = registry.find(o.collective, name);
      if (!e) throw std::invalid_argument("unknown algorithm '" + name + "' for " + collective +
                                          "; valid: " + join_names(available, names));
      if (std::find(o.algorithms.begin(), o.algorithms.end(), e) == o.algorithms.end()) o.algorithms.push_back(e);
    }
    if (o.algorithms.empty()) throw std::invalid_argument("--algorithms names no algorithm");
  }

  o.min_bytes = parse_size(minb);
  o.max_bytes = parse_size(maxb);
  if (o.min_bytes > o.max_bytes)
    throw std::invalid_argument("--minbytes (" + minb + ") is larger than --maxbytes (" + maxb + ")");
  const std::size_t elem = dtype_size(o.dtype);
  for (auto [flag, text, value] : {std::tuple{"--minbytes", minb, o.min_bytes}, std::tuple{"--maxbytes", maxb, o.max_bytes}})
    if (value % elem)
      throw std::invalid_argument(std::string(flag) + " " + text + " is not a multiple of the " + dtype + " element size (" +
                                  std::to_string(elem) + " bytes)");
  if (!(o.step_factor > 1) && o.min_bytes != o.max_bytes)
    throw std::invalid_argument("--stepfactor must be greater than 1 when --minbytes and --maxbytes differ");
  if (!std::isfinite(o.step_factor)) throw std::invalid_argument("--stepfactor must be a finite number");
  if (o.warmup < 0) throw std::invalid_argument("--warmup must not be negative");
  if (o.iters < 1) throw std::invalid_argument("--iters must be at least 1");
  if (o.rounds < 1) throw std::invalid_argument("--rounds must be at least 1");
  if (!segment.empty()) {
    o.segment_bytes = parse_size(segment);
    if (o.segment_bytes < elem)
      throw std::invalid_argument("--segment-size " + segment + " is smaller than one " + dtype + " element");
  }
  if (o.root < 0 || o.root >= nranks)
    throw std::invalid_argument("--root " + std::to_string(o.root) + " is out of range for " +
                                std::to_string(nranks) + " rank(s) (valid: 0.." + std::to_string(nranks - 1) + ")");
}

}  // namespace

const char* timing_policy_name(TimingPolicy t) { return t == TimingPolicy::loop ? "loop" : "per-call"; }

std::string timing_policy_text(TimingPolicy t) {
  if (t == TimingPolicy::loop)
    return "one barrier, then the timed calls back to back (as nccl-tests and a plain MPI_Wtime loop); "
           "each call's time is the gap between consecutive completions on a rank; the slowest rank "
           "(largest total) is reported";
  return "a barrier (not timed) before every call; each call timed alone on every rank (as the OSU "
         "benchmarks); an iteration's time is the slowest rank's";
}

Command parse_command_line(int argc, const char* const* argv, const Registry& registry, int nranks) {
  CLI::App app{"collbench: collective communication benchmarks for distributed training", "collbench"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every subcommand");
  CLI::App* list = app.add_subcommand("list", "List collectives, algorithms, dtypes and ops");
  CLI::App* run = app.add_subcommand("run", "Run a validated size sweep of one collective");
  CLI::App* replay = app.add_subcommand("replay", "Replay a model's gradient exchange per training step: "
                                                  "bucketing, overlap with backward, exposed communication");
  CLI::App* workloads = app.add_subcommand("workloads", "List the built-in workloads, or show one's tensors and buckets");
  workloads->require_subcommand(1);
  CLI::App* workloads_list = workloads->add_subcommand("list", "List the built-in workloads");
  CLI::App* workloads_show = workloads->add_subcommand("show", "Show a workload's tensors, totals and buckets");

  Command cmd;
  RunOptions& o = cmd.run;
  std::string collective = "allreduce", algorithms, dtype = "f32", op = "sum", minb = "8", maxb = "64M",
              timing = "per-call", segment;
  run->add_option("--collective,-c", collective, join_names(kAllCollectives, collective_name) + ", ps (parameter server)")
      ->capture_default_str();
  run->add_option("--algorithms,-a", algorithms, "Comma-separated algorithm names (default: all registered)");
  run->add_option("-b,--minbytes", minb, "Smallest size in bytes (K/M/G suffixes)")->capture_default_str();
  run->add_option("-e,--maxbytes", maxb, "Largest size in bytes (K/M/G suffixes)")->capture_default_str();
  run->add_option("-f,--stepfactor", o.step_factor, "Multiply the size by this between steps")->capture_default_str();
  run->add_option("-w,--warmup", o.warmup, "Untimed warm-up calls per algorithm, size and round")->capture_default_str();
  run->add_option("-n,--iters", o.iters, "Timed calls per algorithm, size and round")->capture_default_str();
  run->add_option("--rounds", o.rounds, "Rounds per size; each round times every algorithm in turn, so "
                                        "algorithms are measured interleaved")->capture_default_str();
  run->add_option("-d,--dtype", dtype, "f32, f64, f16, bf16, i32 or i64")->capture_default_str();
  run->add_option("-o,--op", op, "sum, prod, min or max")->capture_default_str();
  run->add_option("-r,--root", o.root, "Root rank of broadcast, reduce and gather")->capture_default_str();
  run->add_flag("--check,!--no-check", o.check, "Validate every algorithm against the MPI library before timing (default on)");
  run->add_flag("--in-place", o.in_place, "Use one buffer for input and output (MPI_IN_PLACE)");
  run->add_option("--segment-size", segment, "Pipeline segment of pipelined algorithms (K/M suffixes; "
                                              "default: each algorithm's own, see 'collbench list')");
  run->add_option("--ranks-per-node", o.ranks_per_node, "Emulate nodes of this many consecutive ranks for "
                                                        "hierarchical algorithms (default: real nodes, "
                                                        "from MPI_COMM_TYPE_SHARED)");
  PsFlags ps;
  const std::string ps_group = "Parameter server (--collective ps)";
  run->add_option("--servers", o.ps.servers, "Server ranks: the last S ranks serve, ranks 0..n-S-1 are workers")
      ->capture_default_str()->group(ps_group);
  run->add_option("--ps-mode", ps.modes, "sync, async, bounded, or a comma-separated list")->capture_default_str()->group(ps_group);
  run->add_option("--staleness", o.ps.staleness, "bounded: steps a worker may run ahead of the slowest")
      ->capture_default_str()->group(ps_group);
  run->add_option("--lr", o.ps.learning_rate, "SGD learning rate the servers apply")->capture_default_str()->group(ps_group);
  run->add_option("--partition-size", ps.partition, "Largest partition of a tensor (K/M suffixes; BytePS's default)")
      ->capture_default_str()->group(ps_group);
  run->add_option("--assignment", ps.assignment, "Partitions to servers: round-robin or hash")->capture_default_str()->group(ps_group);
  run->add_option("--sparse-rows", o.ps.sparse_rows, "Sparse: rows each worker pushes and pulls per step, of a "
                                                     "table of (size / row bytes) rows")->group(ps_group);
  run->add_option("--row-bytes", ps.row_bytes, "Sparse: bytes per table row")->group(ps_group);
  run->add_option("--slow-ranks", ps.slow_ranks, "Comma-separated workers that sleep --slow-us before every step")->group(ps_group);
  run->add_option("--slow-us", o.ps.slow_us, "Delay of --slow-ranks per step, microseconds")->capture_default_str()->group(ps_group);
  run->add_option("--compare", ps.compare, "Allreduce algorithms run among the workers on the same sizes, or none")
      ->capture_default_str()->group(ps_group);
  run->add_option("--timing", timing, "per-call or loop (see the table header)")->capture_default_str();
  run->add_option("--csv", o.csv_path, "CSV output path (default: results/collbench-<collective>-<time>.csv)");
  run->add_option("--json", o.json_path, "JSON output path (default: next to the CSV)");
  run->add_option("--output-dir", o.output_dir, "Directory for default output files")->capture_default_str();

  ReplayFlags rf;
  add_workload_flags(*replay, o.replay, rf);
  add_replay_flags(*replay, o.replay, rf, o.csv_path, o.json_path, o.output_dir, o.ranks_per_node);
  workloads_show->add_option("workload", o.replay.workload, "resnet50, bert-base, bert-large, lm1b, or a FILE.csv")->required();
  add_workload_flags(*workloads_show, o.replay, rf);

  try {
    app.parse(argc, argv);
    if (list->parsed()) {
      cmd.kind = Command::Kind::list;
      return cmd;
    }
    if (workloads_list->parsed()) {
      cmd.kind = Command::Kind::workloads_list;
      return cmd;
    }
    if (workloads_show->parsed() || replay->parsed()) {
      if (replay->count("--ranks-per-node") && o.ranks_per_node < 1)
        throw std::invalid_argument("--ranks-per-node must be at least 1");
      resolve_replay(o.replay, rf, registry, nranks, replay->parsed());
      cmd.kind = replay->parsed() ? Command::Kind::replay : Command::Kind::workloads_show;
      return cmd;
    }
    if (run->count("--ranks-per-node") && o.ranks_per_node < 1)
      throw std::invalid_argument("--ranks-per-node must be at least 1");
    resolve(o, collective, algorithms, dtype, op, minb, maxb, timing, segment, registry, nranks);
    if (o.parameter_server) resolve_ps(o, ps, registry, nranks);
    cmd.kind = Command::Kind::run;
  } catch (const CLI::CallForHelp&) {
    cmd.kind = Command::Kind::help;
    cmd.text = app.help();
    for (CLI::App* sub : {run, replay, workloads, workloads_show})
      if (sub->parsed()) cmd.text = sub->help();
  } catch (const CLI::CallForAllHelp&) {
    cmd.kind = Command::Kind::help;
    cmd.text = app.help("", CLI::AppFormatMode::All);
  } catch (const CLI::ParseError& e) {
    cmd.kind = Command::Kind::error;
    cmd.text = e.what();
    if (cmd.text.empty()) cmd.text = "invalid command line";
    cmd.text += " (run 'collbench --help' for usage)";
  } catch (const std::invalid_argument& e) {
    cmd.kind = Command::Kind::error;
    cmd.text = e.what();
  }
  return cmd;
}

}  // namespace collbench
