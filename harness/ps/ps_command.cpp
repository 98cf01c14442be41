#include "harness/ps/ps_command.hpp"

#include "harness/common/metadata.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/session.hpp"
#include "harness/ps/ps_rows.hpp"
#include "harness/ps/ps_sweep.hpp"
#include "harness/ps/ps_table.hpp"
#include "harness/run/run_command.hpp"

namespace collbench {
namespace {

nlohmann::json ps_metadata(const PsOptions& o, int nranks, const Topology& topology) {
  const PsRoles roles = ps_roles(nranks, o.servers);
  std::vector<int> servers, workers;
  for (int r = 0; r < nranks; ++r) (roles.is_server(r) ? servers : workers).push_back(r);
  return {
      {"servers", roles.servers},
      {"workers", roles.workers()},
      {"server_ranks", servers},
      {"server_ranks_text", join_ranks(servers)},
      {"worker_ranks", workers},
      {"modes", names_of(o.modes)},
      {"staleness_bound", o.staleness},
      {"learning_rate", o.learning_rate},
      {"partition_bytes", o.partition_bytes},
      {"assignment", kPsAssignmentNames.name(o.assignment)},
      {"sparse_rows", o.sparse_rows},
      {"row_bytes", o.row_bytes},
      {"slow_ranks", o.slow_ranks},
      {"slow_ranks_text", join_ranks(o.slow_ranks)},
      {"slow_us", o.slow_us},
      {"compare_allreduce_among_workers", names_of(o.compare)},
      {"waits_yield", node_is_oversubscribed(topology)},
      {"check_steps", kPsCheckSteps},
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

int run_command(PsOptions o, const Invocation& inv) {
  if (inv.rank == 0 && !o.note.empty()) std::fprintf(stderr, "collbench: note: %s\n", o.note.c_str());
  Session session(*inv.registry, inv.comm, o.ranks_per_node);
  nlohmann::json metadata = collect_metadata(inv, session);
  add_sweep_metadata(metadata, comparison_sweep(o, o.sizes), o.ranks_per_node, "ps");
  metadata["parameter_server"] = ps_metadata(o, inv.size, session.topology);
  ResultSink sink = ResultSink::open(o.out, "ps", ps_columns(), metadata, inv.comm);
  if (inv.rank == 0)
    print_ps_table_header(o, inv.size, static_cast<int>(metadata["hosts"].size()),
                          metadata["mpi"]["library"].get<std::string>(), metadata["parameter_server"]);
  const std::int64_t wrong = measure_keeping_results(inv, sink, [&] { return run_ps_sweep(o, session, sink); });
  return finish_run(inv, sink, wrong);
}

}  // namespace collbench
