#include "harness/schedule/schedule_command.hpp"

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "collectives/schedule/symbolic_executor.hpp"
#include "harness/common/numeric_flags.hpp"
#include "harness/common/sizes.hpp"

namespace collbench {

CLI::App* add_command(CLI::App& app, ScheduleFlags& f) {
  ScheduleOptions& o = f.parsed;
  CLI::App* s = app.add_subcommand("schedule",
                                   "Print one rank's schedule of a reference algorithm, every rank's "
                                   "summary, and the symbolic executor's verdict (no MPI traffic)");
  s->add_option("--collective,-c", f.collective, kCollectiveNames.valid())->capture_default_str();
  s->add_option("--algorithm,-a", f.algorithm, "A reference algorithm (see 'collbench list')")->capture_default_str();
  s->add_option("--ranks", o.ranks, "How many ranks the schedule is built for")
      ->check(whole_in(1, 1 << 18))
      ->capture_default_str();
  s->add_option("--rank", o.rank, "Whose schedule to print")->check(whole_in(0, INT_MAX))->capture_default_str();
  s->add_option("--bytes", f.bytes,
                "Size as 'run' counts it: the per-rank buffer, or all ranks' blocks for gather, "
                "allgather and reduce_scatter (K/M/G suffixes)")
      ->capture_default_str();
  s->add_option("-d,--dtype", f.dtype, kDTypeNames.valid())->capture_default_str();
  s->add_option("-r,--root", o.root, "Root rank of broadcast, reduce and gather")
      ->check(whole_in(0, INT_MAX))
      ->capture_default_str();
  s->add_flag("--in-place", o.in_place, "One buffer for input and output (MPI_IN_PLACE)");
  s->add_option("--ranks-per-node", o.ranks_per_node, "Nodes of this many consecutive ranks (default: one node)")
      ->check(whole_in(1, INT_MAX));
  s->add_option("--segment-size", f.segment, "Pipeline segment (default: the algorithm's own)");
  s->add_flag("--json", o.json, "Print JSON instead of text");
  return s;
}

ScheduleOptions resolve_command(const ScheduleFlags& f, const CommandContext& context) {
  const Registry& registry = context.registry;
  ScheduleOptions o = f.parsed;
  const Collective c = kCollectiveNames.parse_or_throw(f.collective, "collective");
  o.algorithm = registry.find(c, f.algorithm);
  if (!o.algorithm || o.algorithm->is_baseline()) {
    std::vector<const AlgorithmEntry*> schedules;
    for (const AlgorithmEntry* e : registry.for_collective(c))
      if (!e->is_baseline()) schedules.push_back(e);
    const bool baseline = o.algorithm != nullptr;
    throw std::invalid_argument("no schedule for " + f.collective + " algorithm '" + f.algorithm + "'" +
                                (baseline ? " (the mpi baseline is the library's own)" : "") +
                                "; valid: " + join(names_of(schedules), std::identity{}));
  }
  o.dtype = kDTypeNames.parse_or_throw(f.dtype, "dtype");
  // Every rank's schedule is built (and summarised) here, one process for all of them.
  constexpr int kMostRanks = 1 << 18;
  if (o.ranks < 1 || o.ranks > kMostRanks)
    throw std::invalid_argument("--ranks " + std::to_string(o.ranks) + " is out of range (valid: 1.." +
                                std::to_string(kMostRanks) + ")");
  if (o.rank < 0 || o.rank >= o.ranks)
    throw std::invalid_argument("--rank " + std::to_string(o.rank) + " is out of range for " + std::to_string(o.ranks) +
                                " rank(s)");
  if (o.root < 0 || o.root >= o.ranks)
    throw std::invalid_argument("--root " + std::to_string(o.root) + " is out of range for " + std::to_string(o.ranks) +
                                " rank(s)");
  if (o.ranks_per_node < 0) throw std::invalid_argument("--ranks-per-node must be at least 1");
  const std::size_t elem = dtype_size(o.dtype);
  o.bytes = parse_size(f.bytes);
  // The per-rank byte totals (up to log2(ranks) x bytes for a binomial root) must fit.
  constexpr std::size_t kMostBytes = std::size_t{1} << 50;
  if (o.bytes > kMostBytes)
    throw std::invalid_argument("--bytes " + f.bytes + " is more than 1 PiB; schedules are printed up to that size");
  // One size is printed, so a size the rule would round is refused rather than changed.
  o.count = count_of_size(c, o.bytes, elem, o.ranks);
  if (const std::size_t per = size_in_elements(c, 1, o.ranks) * elem;
      size_in_elements(c, o.count, o.ranks) * elem != o.bytes)
    throw std::invalid_argument("--bytes " + f.bytes + " is not a multiple of " + std::to_string(per) + " (" +
                                (per == elem ? "one element" : "one element per rank") + ")");
  if (!f.segment.empty()) {
    o.segment_bytes = parse_size(f.segment);
    if (o.segment_bytes < elem || o.segment_bytes % elem)
      throw std::invalid_argument("--segment-size " + f.segment + " is not a positive multiple of one element");
  }
  return o;
}

namespace {

nlohmann::json region_json(const Region& r, std::size_t elem) {
  return {{"buffer", buffer_name(r.buffer)}, {"offset", r.offset}, {"count", r.count}, {"bytes", r.count * elem}};
}

nlohmann::json schedule_json(const Schedule& s, std::size_t elem) {
  nlohmann::json steps = nlohmann::json::array();
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    nlohmann::json sends = nlohmann::json::array(), recvs = sends, ops = sends;
    for (const Transfer& t : st.sends) sends.push_back({{"peer", t.peer}, {"region", region_json(t.region, elem)}});
    for (const Transfer& t : st.recvs) recvs.push_back({{"peer", t.peer}, {"region", region_json(t.region, elem)}});
    for (const LocalOp& op : st.ops) {
      nlohmann::json j = {{"kind", op.kind == LocalOp::Kind::reduce ? "reduce" : "copy"},
                          {"dst", region_json(op.dst, elem)},
                          {"a", region_json(op.a, elem)}};
      if (op.kind == LocalOp::Kind::reduce) j["b"] = region_json(op.b, elem);
      ops.push_back(j);
    }
    steps.push_back({{"step", s.number(i)}, {"sends", sends}, {"recvs", recvs}, {"ops", ops}});
  }
  return {{"scratch_elements", s.scratch_count}, {"steps", steps}};
}

nlohmann::json stats_json(int rank, const Schedule& s, std::size_t elem) {
  const ScheduleStats st = schedule_stats(s);
  return {{"rank", rank},
          {"steps", st.steps},
          {"messages_sent", st.messages_sent},
          {"messages_received", st.messages_received},
          {"bytes_sent", st.elements_sent * elem},
          {"bytes_received", st.elements_received * elem},
          {"bytes_reduced", st.elements_reduced * elem},
          {"bytes_copied", st.elements_copied * elem},
          {"scratch_bytes", s.scratch_count * elem}};
}

// The symbolic executor keeps, per element, the index and a bitset of ranks; past
// this much memory a schedule is summarised but not played.
constexpr double kSymbolicBudgetBytes = 2.0 * (1 << 30);

// What playing needs for the ranks' buffers (scratch comes on top).
double symbolic_bytes(const ScheduleOptions& o) {
  const double words = (o.ranks + 63) / 64, per_element = 8 + 8 * words;
  double elements = 0;
  for (int r = 0; r < o.ranks; ++r) {
    const BufferLayout l = buffer_layout(o.algorithm->collective, o.count, o.ranks, r, o.root, o.in_place);
    elements += static_cast<double>(l.send_count + l.recv_count);
  }
  return elements * per_element;
}

void print_text(const ScheduleOptions& o, const nlohmann::json& doc, const Schedule& mine, std::size_t elem) {
  const Collective c = o.algorithm->collective;
  std::printf("# collbench schedule: %s %s, %d rank(s), rank %d; %zu B (count %zu %s per rank)",
              std::string(collective_name(c)).c_str(), o.algorithm->name.c_str(), o.ranks, o.rank, o.bytes, o.count,
              std::string(dtype_name(o.dtype)).c_str());
  if (uses_root(c)) std::printf(", root %d", o.root);
  std::printf(", %s", o.in_place ? "in place" : "out of place");
  if (o.ranks_per_node) std::printf(", nodes of %d rank(s)", o.ranks_per_node);
  if (o.algorithm->pipelined()) std::printf(", segment %zu B", doc["request"]["segment_bytes"].get<std::size_t>());
  std::printf("\n# symbolic executor (every rank's schedule played together): %s\n",
              doc["verdict"].get<std::string>().c_str());
  for (const auto& e : doc["errors"]) std::printf("#   %s\n", e.get<std::string>().c_str());
  std::printf("#\n# rank %d: %s", o.rank, describe(mine, elem).c_str());
  std::printf("#\n# every rank's schedule:\n# %5s %6s %8s %8s %12s %12s %13s %12s %12s\n", "rank", "steps", "msgs out",
              "msgs in", "bytes sent", "bytes recv", "bytes reduced", "bytes copied", "scratch B");
  const auto& ranks = doc["ranks"];
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks.size() > 64 && i == 32)
      std::printf("  %5s (%zu ranks not shown; --json has them all)\n", "...", ranks.size() - 64);
    if (ranks.size() > 64 && i >= 32 && i + 32 < ranks.size()) continue;
    const auto& r = ranks[i];
    std::printf("  %5d %6zu %8zu %8zu %12zu %12zu %13zu %12zu %12zu\n", r["rank"].get<int>(),
                r["steps"].get<std::size_t>(), r["messages_sent"].get<std::size_t>(),
                r["messages_received"].get<std::size_t>(), r["bytes_sent"].get<std::size_t>(),
                r["bytes_received"].get<std::size_t>(), r["bytes_reduced"].get<std::size_t>(),
                r["bytes_copied"].get<std::size_t>(), r["scratch_bytes"].get<std::size_t>());
  }
}

}  // namespace

int run_command(const ScheduleOptions& o, const Invocation& inv) {
  if (inv.rank != 0) return 0;
  const Collective c = o.algorithm->collective;
  const std::size_t elem = dtype_size(o.dtype);
  AlgorithmParams params;
  params.segment_bytes = o.algorithm->segment_bytes({o.segment_bytes, {}});
  if (o.ranks_per_node > 0)
    for (int r = 0; r < o.ranks; ++r) params.node_of_rank.push_back(r / o.ranks_per_node);
  auto build = [&](int r) { return o.algorithm->build({c, o.ranks, r, o.count, o.root, elem, &params}); };

  nlohmann::json doc;
  doc["request"] = {{"collective", collective_name(c)},
                    {"algorithm", o.algorithm->name},
                    {"ranks", o.ranks},
                    {"rank", o.rank},
                    {"bytes", o.bytes},
                    {"count", o.count},
                    {"dtype", dtype_name(o.dtype)},
                    {"root", o.root},
                    {"in_place", o.in_place},
                    {"ranks_per_node", o.ranks_per_node},
                    {"segment_bytes", params.segment_bytes}};
  doc["errors"] = nlohmann::json::array();
  doc["ranks"] = nlohmann::json::array();
  bool ok = true;
  Schedule mine;
  if (symbolic_bytes(o) > kSymbolicBudgetBytes) {
    // Too large to play: every rank's schedule is built, summarised and dropped in turn.
    doc["verdict"] = "not played: too large to play symbolically on this machine; try fewer --ranks or --bytes";
    for (int r = 0; r < o.ranks; ++r) {
      Schedule s = build(r);
      doc["ranks"].push_back(stats_json(r, s, elem));
      if (r == o.rank) mine = std::move(s);
    }
  } else {
    std::vector<Schedule> all;
    for (int r = 0; r < o.ranks; ++r) all.push_back(build(r));
    const SymbolicReport rep = play_schedules({c, o.ranks, o.count, o.root, o.in_place}, all);
    ok = rep.ok();
    doc["verdict"] = ok ? "verified: every send met its receive and every rank ended with the right result" : "FAILED";
    doc["errors"] = rep.errors;
    for (int r = 0; r < o.ranks; ++r) doc["ranks"].push_back(stats_json(r, all[static_cast<std::size_t>(r)], elem));
    mine = std::move(all[static_cast<std::size_t>(o.rank)]);
  }
  doc["schedule"] = schedule_json(mine, elem);
  if (o.json)
    std::printf("%s\n", doc.dump(1).c_str());
  else
    print_text(o, doc, mine, elem);
  return ok ? 0 : 1;
}

}  // namespace collbench
