#include "harness/run/run_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "algorithms/baselines/mpi_baselines.hpp"
#include "collectives/names.hpp"
#include "collectives/transport/mpi/library.hpp"
#include "collectives/transport/mpi/open_mpi_switch.hpp"
#include "harness/common/lists.hpp"
#include "harness/common/numeric_flags.hpp"
#include "harness/common/request_limits.hpp"
#include "harness/common/sizes.hpp"
#include "harness/run/bound.hpp"

namespace collbench {

bool is_parameter_server(const RunFlags& f) { return f.collective == "ps"; }

void add_run_flags(CLI::App& run, RunFlags& f) {
  SweepSpec& s = f.parsed.sweep;
  run.add_option("--collective,-c", f.collective, kCollectiveNames.valid() + " (ps: see collbench ps)")
      ->capture_default_str();
  run.add_option("--algorithms,-a", f.algorithms, "Comma-separated algorithm names (default: all registered)")
      ->each([&f](const std::string&) { f.algorithms_given = true; });
  run.add_option("-b,--minbytes", f.min_bytes, "Smallest size in bytes (K/M/G suffixes)")->capture_default_str();
  run.add_option("-e,--maxbytes", f.max_bytes, "Largest size in bytes (K/M/G suffixes)")->capture_default_str();
  run.add_option("-f,--stepfactor", s.sizes.step_factor, "Multiply the size by this between steps")
      ->check(number_in(1, 1e6))
      ->capture_default_str();
  run.add_option("-w,--warmup", f.warmup,
                 "Untimed warm-up calls per algorithm, size and round, or auto "
                 "(100 up to 8 KiB, 10 above, as OSU)")
      ->capture_default_str();
  run.add_option("-n,--iters", f.iters,
                 "Timed calls per algorithm, size and round, or auto (1000 up to 8 KiB, "
                 "100 above, as OSU, within --time-budget)")
      ->capture_default_str();
  run.add_option("--time-budget", s.reps.budget_s,
                 "With -n auto: seconds of timed calls per algorithm and size "
                 "(all rounds), at least --min-iters calls per round; 0: no limit")
      ->check(number_in(0, 86400))
      ->capture_default_str();
  run.add_option("--min-iters", s.reps.min_iters,
                 "With -n auto: the fewest timed calls per round --time-budget leaves an algorithm and size "
                 "(fewer than 10 where a call takes seconds, e.g. 64 MiB on a slow link)")
      ->check(whole_in(1, 1000))
      ->capture_default_str();
  run.add_option("--rounds", s.reps.rounds,
                 "Rounds per size; each round times every algorithm in turn, so "
                 "algorithms are measured interleaved")
      ->check(whole_in(1, kMaxRepeats))
      ->capture_default_str();
  run.add_option("-d,--dtype", f.dtype, kDTypeNames.valid())->capture_default_str();
  run.add_option("-o,--op", f.op, kReduceOpNames.valid())->capture_default_str();
  run.add_option("-r,--root", s.root, "Root rank of broadcast, reduce and gather")
      ->check(whole_in(0, INT_MAX))
      ->capture_default_str();
  run.add_flag("--check,!--no-check", s.check,
               "Check every algorithm's results against the exact expected values: "
               "one untimed call, and the last timed call of every round (default on)");
  run.add_option("--check-every", s.check_every,
                 "Also check every N-th timed call (as nccl-tests -c); 0: only the "
                 "last")
      ->check(whole_in(0, INT_MAX))
      ->capture_default_str();
  run.add_flag("--in-place", s.in_place, "Use one buffer for input and output (MPI_IN_PLACE)");
  run.add_option("--counts", f.counts,
                 "alltoallv: who sends how much to whom, scaled to each size: uniform, zipf:S[:SEED] (receivers "
                 "skewed), hot:RANK:SHARE (one rank receives SHARE of everything), moe:EXPERTS[:ROUTING] (tokens "
                 "routed to experts spread over the ranks), or FILE.csv (n x n weights, row = sender)")
      ->capture_default_str();
  run.add_option("--size-per", f.size_per,
                 "What -b/-e measure for gather, allgather, reduce_scatter, alltoall(v): rank (all n blocks of one "
                 "rank, as nccl-tests and the bytes column) or peer (one block, as OSU)")
      ->capture_default_str();
  run.add_option("--segment-size", f.segment,
                 "Pipeline segment of pipelined algorithms (K/M suffixes; "
                 "default: each algorithm's own, see 'collbench list')");
  run.add_option("--mpi-segments", f.mpi_segments,
                 "Comma-separated segment sizes (K/M suffixes): each of Open MPI's algorithms in -a that takes a "
                 "segment (mpi[all], mpi[NAME]) once more per size, as mpi[NAME:seg=BYTES]");
  run.add_option("--ranks-per-node", f.parsed.ranks_per_node,
                 "Emulate nodes of this many consecutive ranks for "
                 "hierarchical algorithms (default: real nodes, "
                 "from MPI_COMM_TYPE_SHARED)")
      ->check(whole_in(1, INT_MAX));
  run.add_option("--order", f.order,
                 "How the reference algorithms' schedules run: dataflow (each transfer and "
                 "reduction as soon as its data allows, overlapping steps) or steps (step by "
                 "step, for comparison)")
      ->capture_default_str()
      ->each([&f](const std::string&) { f.order_given = true; });
  add_transport_flag(run, f.transport, TransportUser::run);
  run.add_option("--memory", f.memory,
                 "Where the buffers live: host, or device (the GPU local_rank % GPUs; "
                 "reference algorithms only, checked as on the host)")
      ->capture_default_str();
  run.add_flag("--bound", f.parsed.sweep.bound,
               "Also measure, interleaved with the algorithms, the point-to-point exchange and reduction-kernel "
               "times a ring needs and report their sum as row 'bound', and every algorithm's share of it "
               "(allreduce, reduce_scatter, allgather)");
  run.add_option("--probe-links", f.parsed.probe_links_path,
                 "Also time p2p's link tests (latency, bandwidth, exchange, written, busy, pair, rewrite) in this "
                 "launch, each message size "
                 "between the collective's sizes at the first one at least as large, in the same rounds, and write "
                 "them to this JSON as `collbench p2p` would (model fit --p2p reads it): links measured as the "
                 "collectives met them");
  run.add_option("--timing", f.timing, "per-call or loop (see the table header)")->capture_default_str();
  run.add_option("--aggregate", f.aggregate,
                 "How ranks' times combine: " + kRankAggregateNames.valid() +
                     " (mean: OSU's Avg Latency; see the table header)")
      ->capture_default_str();
  add_output_flags(run, f.parsed.out, "<collective>");
  add_watchdog_flags(run, f.parsed.watchdog);
  add_force_flag(run, f.parsed.force);
}

RequestEstimate estimate_sweep(const SweepSpec& s, const std::vector<std::size_t>& sizes) {
  RequestEstimate e;
  long double calls = 0;
  for (std::size_t bytes : sizes) {
    const double floor = call_floor_seconds(bytes);
    const long double per_round = s.reps.warmup_at(bytes) + s.reps.iters_at(bytes, floor);
    calls += per_round * s.reps.rounds + (s.check ? 1 : 0);
    e.seconds += (per_round * s.reps.rounds + 1) * floor * s.algorithms.size();
  }
  const std::size_t largest = sizes.empty() ? 0 : sizes.back();
  const int most_iters = std::max(s.reps.iters_at(0, 0), s.reps.iters_at(largest, 0));
  // Send and receive buffers at the largest size, and every call's time.
  e.bytes_per_rank = 2.0L * largest + 16.0L * most_iters * s.reps.rounds * s.algorithms.size();
  e.memory_flag = "-e " + format_bytes(s.sizes.max_bytes);
  e.work = std::to_string(s.algorithms.size()) + " algorithm(s) x " + std::to_string(sizes.size()) + " size(s), " +
           std::to_string(static_cast<long long>(calls)) + " calls each";
  return e;
}

CLI::App* add_command(CLI::App& app, RunFlags& f) {
  CLI::App* run = app.add_subcommand("run", "Run a validated size sweep of one collective");
  add_run_flags(*run, f);
  return run;
}

namespace {

// The names a run is spelled in: collective, dtype, op, timing, order, memory, counts.
void resolve_names(SweepSpec& s, const RunFlags& f, bool ps) {
  auto c = ps ? std::optional{Collective::allreduce} : parse_collective(f.collective);
  if (!c)
    throw std::invalid_argument("unknown collective '" + f.collective + "'; valid: " + kCollectiveNames.valid() +
                                ", ps");
  s.collective = *c;
  s.dtype = kDTypeNames.parse_or_throw(f.dtype, "dtype");
  s.op = kReduceOpNames.parse_or_throw(f.op, "op");
  s.timing = kTimingPolicyNames.parse_or_throw(f.timing, "timing policy");
  s.order = kExecutionOrderNames.parse_or_throw(f.order, "execution order");
  s.memory = kMemoryKindNames.parse_or_throw(f.memory, "--memory");
  s.aggregate = kRankAggregateNames.parse_or_throw(f.aggregate, "--aggregate");
  s.reps.warmup = parse_count_or_auto(f.warmup, "--warmup", 0);
  s.reps.iters = parse_count_or_auto(f.iters, "--iters", 1);
}

// mpi[NAME:seg=64K] as the row is named, mpi[NAME:seg=65536]; any other name as it is.
std::string segment_in_bytes(const std::string& item) {
  const std::size_t at = item.find(kSegmentTag);
  if (item.rfind("mpi[", 0) != 0 || item.back() != ']' || at == std::string::npos) return item;
  const std::size_t from = at + kSegmentTag.size();
  const std::string text = item.substr(from, item.size() - 1 - from);
  return "mpi[" + segmented_name(item.substr(4, at - 4), parse_size(text)) + "]";
}

// --mpi-segments: after each mpi[NAME] whose algorithm takes a segment, mpi[NAME:seg=B]
// for each listed B (the plain row keeps the library's segment size).
void add_segmented_rows(std::vector<std::string>& items, Collective c, const RunFlags& f, std::size_t elem) {
  if (f.mpi_segments.empty()) return;
  std::vector<std::size_t> segments;
  for (const std::string& text : split_list(f.mpi_segments)) {
    segments.push_back(parse_size(text));
    if (segments.back() == 0)
      throw std::invalid_argument("--mpi-segments " + text + ": a segment must be at least one " + f.dtype +
                                  " element");
    if (segments.back() % elem != 0)
      throw std::invalid_argument("--mpi-segments " + text + " is not a whole number of " + f.dtype + " elements");
  }
  const std::vector<std::string> takes = mpi_segmented_algorithms(c);
  std::vector<std::string> out;
  for (const std::string& item : items) {
    out.push_back(item);
    for (const std::string& a : takes)
      if (item == "mpi[" + a + "]")
        for (std::size_t b : segments) out.push_back("mpi[" + segmented_name(a, b) + "]");
  }
  if (out.size() == items.size())
    throw std::invalid_argument(
        "--mpi-segments adds rows to the library's algorithms that take a segment, switched in the run (-a mpi[all] "
        "or mpi[NAME]), and -a names none of " +
        (!takes.empty()                       ? join(takes, std::identity{}, ", ")
         : !mpi_switch_unavailable(c).empty() ? f.collective + "'s (" + mpi_switch_unavailable(c) + ")"
                                              : f.collective + "'s (" + mpi_library().summary +
                                                    " switches none with a segment of its own; Open MPI does)"));
  items = out;
}

// Sets s.algorithms, and s.every_library_algorithm where the list names mpi[all].
void resolve_algorithms(SweepSpec& s, const RunFlags& f, const Registry& registry, bool ps) {
  const Collective c = s.collective;
  if (ps && f.algorithms_given)
    throw std::invalid_argument("--collective ps takes --ps-mode (and --compare), not --algorithms");
  if (!f.algorithms_given) {
    if (!f.mpi_segments.empty())
      throw std::invalid_argument(
          "--mpi-segments adds rows beside the library's algorithms switched in the run: "
          "name them with -a mpi[all] or mpi[NAME]");
    s.algorithms = registry.for_collective(c);
    return;
  }
  // mpi[NAME]: the library's own algorithm, switched to inside the run; mpi[all]: each.
  const std::vector<std::string> library = mpi_switchable_algorithms(c);
  std::vector<std::string> items;
  for (const std::string& item : split_list(f.algorithms))
    if (item != "mpi[all]")
      items.push_back(segment_in_bytes(item));
    else {
      s.every_library_algorithm = true;
      for (const std::string& a : library) items.push_back("mpi[" + a + "]");
      if (library.empty()) items.push_back(item);
    }
  add_segmented_rows(items, c, f, dtype_size(s.dtype));
  s.algorithms = resolve_list<const AlgorithmEntry*>(
      join(items, std::identity{}, ","),
      [&](const std::string& name) {
        const AlgorithmEntry* e = registry.find(c, name);
        if (!e && name.size() > 5 && name.rfind("mpi[", 0) == 0 && name.back() == ']')
          e = mpi_switched_algorithm(c, name.substr(4, name.size() - 5));
        return e ? std::optional{e} : std::nullopt;
      },
      [&](const std::string& name) {
        const std::vector<std::string> segmented = mpi_segmented_algorithms(c);
        return "unknown algorithm '" + name + "' for " + f.collective + "; valid: " + registry.names(c) +
               (library.empty() ? " (" + mpi_switch_unavailable(c) + ")"
                                : ", mpi[all] or mpi[NAME] for NAME in " + join(library, std::identity{}) +
                                      (segmented.empty() ? ""
                                                         : " (mpi[NAME:seg=BYTES] for NAME in " +
                                                               join(segmented, std::identity{}) + ")"));
      },
      "--algorithms names no algorithm");
}

// -b, -e and --segment-size, in whole elements.
void resolve_sizes(SweepSpec& s, const RunFlags& f) {
  parse_size_range(s.sizes, f.min_bytes, f.max_bytes);
  const std::size_t elem = dtype_size(s.dtype);
  for (auto [flag, text, value] : {std::tuple{"--minbytes", f.min_bytes, s.sizes.min_bytes},
                                   std::tuple{"--maxbytes", f.max_bytes, s.sizes.max_bytes}})
    if (value % elem)
      throw std::invalid_argument(std::string(flag) + " " + text + " is not a multiple of the " + f.dtype +
                                  " element size (" + std::to_string(elem) + " bytes)");
  if (f.segment.empty()) return;
  s.segment_bytes = parse_size(f.segment);
  if (s.segment_bytes < elem)
    throw std::invalid_argument("--segment-size " + f.segment + " is smaller than one " + f.dtype + " element");
  if (s.segment_bytes % elem)
    throw std::invalid_argument("--segment-size " + f.segment + " is not a multiple of the " + f.dtype +
                                " element size (" + std::to_string(elem) + " bytes)");
}

// Where the buffers live and what carries the messages, and what that allows.
void resolve_where(SweepSpec& s, const RunFlags& f, bool ps, const std::function<GpuInventory()>& probe) {
  if (s.memory == MemoryKind::device && ps)
    throw std::invalid_argument("--collective ps runs on host memory only, not --memory device");
  if (f.transport.name != "mpi" && ps)
    throw std::invalid_argument("--collective ps needs --transport mpi (its tagged messages are MPI's)");
  s.transport = resolve_transport(f.transport, s.memory, TransportUser::run, probe);
  if (transport_row(s.transport).step_order) {
    // A step's sends and receives go out as one NCCL group; overlapping steps could
    // leave a group waiting for a peer's later one on the same stream.
    if (f.order_given && s.order == ExecutionOrder::dataflow)
      throw std::invalid_argument("--transport " + f.transport.name +
                                  " runs schedules step by step (--order steps), one NCCL group per step");
    s.order = ExecutionOrder::steps;
  }
  keep_runnable(s.algorithms, s.memory, s.transport, f.algorithms_given);
}

// alltoallv's count matrix pattern, and whether sizes are per rank or per peer.
void resolve_blocks(SweepSpec& s, const RunFlags& f, int nranks) {
  if (f.size_per != "rank" && f.size_per != "peer")
    throw std::invalid_argument("--size-per " + f.size_per + ": valid: rank, peer");
  s.sizes_per_peer = f.size_per == "peer";
  if (s.sizes_per_peer && !size_counts_all_blocks(s.collective))
    throw std::invalid_argument("--size-per peer applies to collectives made of one block per rank, not " +
                                f.collective);
  if (!takes_count_matrix(s.collective)) {
    if (f.counts != "uniform")
      throw std::invalid_argument("--counts applies to alltoallv (its per-peer counts), not " + f.collective);
    return;
  }
  try {
    s.traffic = parse_traffic_pattern(f.counts, nranks);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--counts " + std::string(e.what()));
  }
  if (s.in_place && !is_symmetric(*s.traffic))
    throw std::invalid_argument(
        "alltoallv --in-place needs a symmetric --counts pattern (MPI_IN_PLACE sends what "
        "it receives); " +
        f.counts + " is not");
}

void check_bound_and_root(const SweepSpec& s, const RunFlags& f, bool ps, int nranks) {
  if (s.memory == MemoryKind::device && s.bound)
    throw std::invalid_argument("--bound measures host memory, not --memory device");
  if (s.bound && ps) throw std::invalid_argument("--bound applies to the collectives, not to --collective ps");
  if (s.bound && !has_bound(s.collective))
    throw std::invalid_argument("--bound is defined for allreduce, reduce_scatter and allgather, not " + f.collective);
  if (s.bound && nranks < 2) throw std::invalid_argument("--bound needs at least 2 ranks");
  if (s.probe_links && s.memory == MemoryKind::device)
    throw std::invalid_argument("--probe-links times host memory, not --memory device");
  if (s.probe_links && ps)
    throw std::invalid_argument("--probe-links applies to the collectives, not to --collective ps");
  if (s.probe_links && nranks < 2) throw std::invalid_argument("--probe-links needs at least 2 ranks");
  if (s.root < 0 || s.root >= nranks)
    throw std::invalid_argument("--root " + std::to_string(s.root) + " is out of range for " + std::to_string(nranks) +
                                " rank(s) (valid: 0.." + std::to_string(nranks - 1) + ")");
}

}  // namespace

RunOptions resolve_command(const RunFlags& f, const CommandContext& context) {
  RunOptions o = f.parsed;
  SweepSpec& s = o.sweep;
  s.probe_links = !o.probe_links_path.empty();
  const bool ps = is_parameter_server(f);
  resolve_names(s, f, ps);
  resolve_algorithms(s, f, context.registry, ps);
  resolve_sizes(s, f);
  resolve_where(s, f, ps, context.probe);
  check_bound_and_root(s, f, ps, context.nranks);
  if (!ps) resolve_blocks(s, f, context.nranks);
  const std::vector<std::size_t> sizes = checked_sweep_sizes(s.sizes, dtype_size(s.dtype), o.force);
  if (!ps) check_request(estimate_sweep(s, sizes), context.machine, o.force);
  return o;
}

}  // namespace collbench
