#include "harness/run/run_command.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>

#include "algorithms/baselines/mpi_baselines.hpp"
#include "collectives/transport/memory_space.hpp"
#include "collectives/transport/mpi/forced_algorithm.hpp"
#include "collectives/transport/mpi/known_defects.hpp"
#include "collectives/transport/mpi/mapped_transport.hpp"
#include "collectives/transport/mpi/mpi_names.hpp"
#include "collectives/transport/shm_memory.hpp"
#include "harness/common/control.hpp"
#include "harness/common/metadata.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/session.hpp"
#include "harness/common/stats.hpp"
#include "harness/common/topology.hpp"
#include "harness/common/transports.hpp"
#include "harness/p2p/p2p_probe.hpp"
#include "harness/run/bound.hpp"
#include "harness/run/run_table.hpp"
#include "harness/run/sweep.hpp"

namespace collbench {
namespace {

// "2(n-1)/n for allreduce; (n-1)/n for gather, allgather, reduce_scatter; 1 for ...",
// from the traits rows, so the prose cannot disagree with the code.
std::string busbw_definition() {
  std::vector<std::pair<std::string_view, std::vector<std::string_view>>> groups;  // factor, collectives
  for (const CollectiveTraits& c : kCollectiveTraits) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == c.busbw_factor_text; });
    if (it == groups.end()) it = groups.insert(groups.end(), {c.busbw_factor_text, {}});
    it->second.push_back(c.name);
  }
  return "algbw x " +
         join(
             groups, [](const auto& g) { return std::string(g.first) + " for " + join(g.second, std::identity{}); },
             "; ");
}

std::string bytes_definition() {
  std::vector<std::string_view> per_rank, all_blocks;
  for (const CollectiveTraits& c : kCollectiveTraits) (c.counts_all_blocks ? all_blocks : per_rank).push_back(c.name);
  return "per-rank buffer for " + join(per_rank, std::identity{}) + "; all n blocks for " +
         join(all_blocks, std::identity{});
}

// --probe-links' file: the run's metadata, with p2p's options (as `collbench p2p` with
// these tests and the run's repetitions would have them) and definitions.
LinkProbeFile link_probe_file(const RunOptions& o, const SweepSpec& s, const nlohmann::json& run_metadata,
                              const Session& session, const Transport& references, const Invocation& inv) {
  nlohmann::json m = run_metadata;
  m["p2p"] = p2p_metadata(link_probe_options(s), choose_pairs(session.topology.node_of_rank), rank_hosts(inv.comm));
  m["p2p"]["probed_in"] =
      "collbench run " + std::string(collective_name(s.collective)) +
      ": each message size, in the same rounds as the algorithms, at the first of the run's sizes at least as "
      "large (its rows' command_line and options)";
  m["definitions"] = p2p_definitions();
  m["transport"] = references.name();
  return {{"--probe-links", o.probe_links_path}, m};
}

}  // namespace

void add_sweep_metadata(nlohmann::json& m, const SweepSpec& s, int ranks_per_node, const std::string& collective) {
  const ForcedAlgorithm& forced = forced_mpi_algorithm(s.collective);
  m["mpi_baseline"] = {{"forced_algorithm", forced.algorithm.empty() ? "auto" : forced.algorithm},
                       {"forced_by", forced.setting},
                       {"cautions", forced.cautions},
                       {"row_name", mpi_baseline_row_name(s.collective)}};
  m["timing_policy"] = {{"name", kTimingPolicyNames.name(s.timing)},
                        {"aggregate", kRankAggregateNames.name(s.aggregate)},
                        {"text", timing_policy_text(s.timing, s.aggregate)},
                        {"repetitions", repetitions_text(s.reps)}};
  auto count_or_auto = [](int n) { return n == Repetitions::kAuto ? nlohmann::json("auto") : nlohmann::json(n); };
  m["options"] = {{"collective", collective},
                  {"algorithms", names_of(s.algorithms)},
                  {"min_bytes", s.sizes.min_bytes},
                  {"max_bytes", s.sizes.max_bytes},
                  {"step_factor", s.sizes.step_factor},
                  {"warmup", count_or_auto(s.reps.warmup)},
                  {"iters", count_or_auto(s.reps.iters)},
                  {"time_budget_s", s.reps.budget_s},
                  {"min_iters", s.reps.min_iters},
                  {"rounds", s.reps.rounds},
                  {"aggregate", kRankAggregateNames.name(s.aggregate)},
                  {"check_every", s.check_every},
                  {"dtype", dtype_name(s.dtype)},
                  {"op", reduce_op_name(s.op)},
                  {"root", s.root},
                  {"check", s.check},
                  {"in_place", s.in_place},
                  {"segment_bytes", s.segment_bytes},
                  {"order", kExecutionOrderNames.name(s.order)},
                  {"transport", kTransportKindNames.name(s.transport)},
                  {"counts", s.traffic ? s.traffic->text : ""},
                  {"size_per", s.sizes_per_peer ? "peer" : "rank"},
                  {"bound", s.bound},
                  {"ranks_per_node", ranks_per_node}};
  if (!s.smallest_count.empty()) {
    nlohmann::json& from = m["options"]["algorithms_from_count"];
    for (const auto& [a, count] : s.smallest_count) from[result_row_name(*a)] = count;
  }
  m["definitions"] = {
      {"algorithms_from_count",
       "algorithms the library runs only from this count per call on (options): no rows at smaller sizes"},
      {"bytes", bytes_definition()},
      {"algbw_gbps", "bytes / time, 1e9 bytes per second"},
      {"busbw_gbps", busbw_definition()},
      {"segment_bytes", "pipeline segment of pipelined algorithms, 0 for the others"},
      {"errors",
       "wrong elements against the exact expected values, summed over ranks and "
       "checked calls; -1 when not checked"},
      {"checked_calls",
       "calls whose results were checked: one untimed call, the last timed call "
       "of each round, and every check_every-th timed call"},
      {"outliers", outlier_rule() + "; when above 0, trust p50 rather than avg, max and the bandwidths"},
      {"aggregate", "how ranks' times were combined; see timing_policy"}};
  if (s.bound)
    m["definitions"]["bound"] = {
        {"row", "algorithm 'ring_bound': " + bound_formula(s.collective) +
                    ", from point-to-point exchange and reduction-kernel probes timed in the same rounds; its "
                    "min/p50/max combine the probes' min/p50/max; details in each bound row's JSON"},
        {"of_bound",
         "ring_bound p50 / row p50: the share of the ring's bound a row reaches; above 1 where an algorithm with "
         "fewer, larger messages (recursive doubling) beats the ring's latency"},
        {"assumes",
         "each rank's own core moves what it receives and reduces what it owns (shared memory, TCP), "
         "so transfer and reduction add up; with offloaded transfers (RDMA, NVLink) they could overlap"}};
}

namespace {

// Where the library runs its own algorithm `name` as row `a` in this run: "" when it runs
// it at some size of the run, and then, where it runs it only from some count on (below it
// MPICH cannot, Open MPI runs another by itself), the row is measured from the first size
// where it does, with a note; else why not.
struct LibraryAlgorithmSizes {
  SweepSpec& s;
  const Invocation& inv;
  int ranks = 1;
  Topology nodes;
  std::vector<std::size_t> sizes;

  LibraryAlgorithmSizes(SweepSpec& spec, const Invocation& invocation)
      : s(spec),
        inv(invocation),
        nodes(discover_topology(invocation.comm, 0)),
        sizes(sweep_sizes(spec.sizes.min_bytes, spec.sizes.max_bytes, spec.sizes.step_factor, dtype_size(spec.dtype))) {
    MPI_Comm_size(inv.comm, &ranks);
  }

  std::string limit(const AlgorithmEntry* a, const std::string& name) {
    auto count_at = [&](std::size_t bytes) { return sweep_count(s, bytes, ranks); };
    std::string why = mpi_switch_refusal(s.collective, name, ranks, nodes.nodes, nodes.max_ranks_per_node, s.in_place,
                                         dtype_size(s.dtype));
    if (!why.empty()) return why;
    const SwitchCountLimit limit = mpi_switch_count_limit(s.collective, name, ranks, dtype_size(s.dtype));
    const auto first =
        std::find_if(sizes.begin(), sizes.end(), [&](std::size_t b) { return count_at(b) >= limit.smallest; });
    if (first == sizes.end())
      return limit.below + "; the largest size has " + std::to_string(count_at(sizes.back())) + " (raise --maxbytes)";
    if (first != sizes.begin()) {
      s.smallest_count[a] = limit.smallest;
      if (inv.rank == 0)
        std::printf("# note: %s has rows from %zu bytes on only: %s\n", result_row_name(*a).c_str(), *first,
                    limit.below.c_str());
    }
    return "";
  }
};

// The library's algorithms switched in the run (mpi[NAME]): refused where the environment
// already forces one (the plain mpi row would switch it back), or where the library cannot
// serve the run's calls with one (mpi[all] leaves such an algorithm out, with a note).
void check_switched_algorithms(SweepSpec& s, const Invocation& inv) {
  auto switched = [](const AlgorithmEntry* a) { return a->is_baseline_of("mpi") && a->name != "mpi"; };
  if (std::none_of(s.algorithms.begin(), s.algorithms.end(), switched)) return;
  if (const ForcedAlgorithm& f = forced_mpi_algorithm(s.collective); !f.algorithm.empty())
    throw RunError(f.setting +
                   " already forces the library's algorithm; mpi[NAME] rows switch it inside the run: "
                   "unset it, or run the plain mpi row alone");
  LibraryAlgorithmSizes where(s, inv);
  std::vector<const AlgorithmEntry*> kept;
  for (const AlgorithmEntry* a : s.algorithms) {
    if (!switched(a)) {
      kept.push_back(a);
      continue;
    }
    const std::string why = where.limit(a, a->name.substr(4, a->name.size() - 5));
    if (why.empty())
      kept.push_back(a);
    else if (!s.every_library_algorithm)
      throw RunError(why);
    else if (inv.rank == 0)
      std::printf("# note: mpi[all] leaves out %s: %s\n", a->name.c_str(), why.c_str());
  }
  s.algorithms = kept;
}

// The plain mpi row where the environment forces the library's algorithm (mpi[NAME]):
// refused where the library cannot run it for the run's calls, and measured from the
// first size where it runs it, as a switched one.
void limit_forced_algorithm(SweepSpec& s, const Invocation& inv) {
  const ForcedAlgorithm& f = forced_mpi_algorithm(s.collective);
  const auto mpi = std::find_if(s.algorithms.begin(), s.algorithms.end(),
                                [](const AlgorithmEntry* a) { return a->is_baseline_of("mpi") && a->name == "mpi"; });
  if (f.algorithm.empty() || mpi == s.algorithms.end()) return;
  LibraryAlgorithmSizes where(s, inv);
  if (const std::string why = where.limit(*mpi, f.algorithm); !why.empty()) throw RunError(f.setting + ": " + why);
}

}  // namespace

int run_command(RunOptions o, const Invocation& inv) {
  const SweepSpec& s = o.sweep;
  if (auto defect = known_mpi_defect(s.collective, s.in_place, s.root)) throw RunError(*defect);
  const bool runs_mpi = std::any_of(s.algorithms.begin(), s.algorithms.end(),
                                    [](const AlgorithmEntry* a) { return a->is_baseline_of("mpi"); });
  // A forced algorithm the library would not run must not label rows as if it had.
  if (const ForcedAlgorithm& f = forced_mpi_algorithm(s.collective); runs_mpi && !f.refused.empty())
    throw RunError(f.refused);
  Session session(*inv.registry, inv.comm, o.ranks_per_node);
  check_switched_algorithms(o.sweep, inv);
  limit_forced_algorithm(o.sweep, inv);
  const OpenTransport opened = open_transport(s.transport, session.transport, inv);
  Transport& references = *opened.transport;
  nlohmann::json metadata = collect_metadata(inv, session);
  metadata["transport"] = references.name();
  metadata["memory"] = kMemoryKindNames.name(s.memory);
  if (opened.space) metadata["memory_of_rank"] = control_allgather(std::string(opened.space->name()), inv.comm);
  // Ranks that spin beyond the machine's cores starve the ranks they wait for (ps and
  // replay do the same); MPI's own collectives still spin as the library does.
  const bool yield = metadata["oversubscription"]["oversubscribed"].get<bool>();
  session.transport.set_yield_while_waiting(yield);
  set_barrier_yields(yield);
  metadata["reference_waits_yield"] = yield;
  add_sweep_metadata(metadata, s, o.ranks_per_node, std::string(collective_name(s.collective)));
  ResultRow columns;
  if (s.bound) columns.extra.push_back({"of_bound", 0.0});
  if (s.memory_bound()) columns.extra.insert(columns.extra.end(), {{"memory_bound_us", 0.0}, {"of_memory_bound", 0.0}});
  if (opened.space) columns.extra.push_back({"memory", ""});  // which GPU, per row
  if (s.traffic) columns.extra.insert(columns.extra.end(), {{"counts", ""}, {"busiest_bytes", 0}});
  std::optional<LinkProbeFile> links;
  std::vector<OtherOutput> others;
  if (s.probe_links) {
    links = link_probe_file(o, s, metadata, session, references, inv);
    others.push_back(links->out);
  }
  ResultSink sink = ResultSink::open(o.out, std::string(collective_name(s.collective)),
                                     field_names(csv_fields(columns)), metadata, inv.comm, others);
  if (inv.rank == 0) print_table_header(s, metadata);
  const SweepErrors errors = run_sweep(s, session, references, sink, links ? &*links : nullptr);
  return finish_run(inv, sink, errors.total(), errors.blame(mpi_names(s.collective).function));
}

}  // namespace collbench
