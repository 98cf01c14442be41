#include "harness/run/run_command.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "collectives/mpi/known_defects.hpp"
#include "collectives/mpi/library.hpp"
#include "harness/common/metadata.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/session.hpp"
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
  return "algbw x " + join(groups, [](const auto& g) { return std::string(g.first) + " for " + join(g.second, std::identity{}); },
                           "; ");
}

std::string bytes_definition() {
  std::vector<std::string_view> per_rank, all_blocks;
  for (const CollectiveTraits& c : kCollectiveTraits) (c.counts_all_blocks ? all_blocks : per_rank).push_back(c.name);
  return "per-rank buffer for " + join(per_rank, std::identity{}) + "; all n blocks for " + join(all_blocks, std::identity{});
}

}  // namespace

void add_sweep_metadata(nlohmann::json& m, const SweepSpec& s, int ranks_per_node, const std::string& collective) {
  const std::string forced = mpich_forced_algorithm(s.collective);
  m["mpi_baseline"] = {{"algorithm_variable", mpich_algorithm_variable(s.collective)},
                       {"forced_algorithm", forced.empty() ? "auto" : forced},
                       {"row_name", mpi_baseline_row_name(s.collective)}};
  m["timing_policy"] = {{"name", kTimingPolicyNames.name(s.timing)}, {"text", timing_policy_text(s.timing)}};
  m["options"] = {{"collective", collective},
                  {"algorithms", names_of(s.algorithms)},
                  {"min_bytes", s.sizes.min_bytes},
                  {"max_bytes", s.sizes.max_bytes},
                  {"step_factor", s.sizes.step_factor},
                  {"warmup", s.reps.warmup},
                  {"iters", s.reps.iters},
                  {"rounds", s.reps.rounds},
                  {"dtype", dtype_name(s.dtype)},
                  {"op", reduce_op_name(s.op)},
                  {"root", s.root},
                  {"check", s.check},
                  {"in_place", s.in_place},
                  {"segment_bytes", s.segment_bytes},
                  {"ranks_per_node", ranks_per_node}};
  m["definitions"] = {{"bytes", bytes_definition()},
                      {"algbw_gbps", "bytes / time, 1e9 bytes per second"},
                      {"busbw_gbps", busbw_definition()},
                      {"segment_bytes", "pipeline segment of pipelined algorithms, 0 for the others"},
                      {"errors", "wrong elements summed over ranks; -1 when not checked"}};
}

int run_run(RunOptions o, const Invocation& inv) {
  const SweepSpec& s = o.sweep;
  if (auto defect = known_mpi_defect(s.collective, s.in_place, s.root)) throw RunError(*defect);
  Session session(*inv.registry, inv.comm, o.ranks_per_node);
  nlohmann::json metadata = collect_metadata(inv, session);
  add_sweep_metadata(metadata, s, o.ranks_per_node, std::string(collective_name(s.collective)));
  ResultSink sink = ResultSink::open(o.out, std::string(collective_name(s.collective)),
                                     field_names(csv_fields(ResultRow{})), metadata, inv.comm);
  if (inv.rank == 0)
    print_table_header(s, inv.size, static_cast<int>(metadata["hosts"].size()),
                       metadata["mpi"]["library"].get<std::string>());
  const std::int64_t wrong = run_sweep(s, session, sink);
  return finish_run(inv, o.out, wrong);
}

}  // namespace collbench
