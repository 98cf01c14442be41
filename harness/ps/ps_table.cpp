#include "harness/ps/ps_table.hpp"

#include <cstdio>

#include "harness/run/run_table.hpp"

namespace collbench {

void print_ps_table_header(const PsOptions& o, int nranks, int nhosts, const std::string& mpi_library,
                           const nlohmann::json& ps) {
  std::printf(
      "# collbench ps (parameter server): %d rank(s) on %d host(s), dtype %s; servers: ranks %s; workers: "
      "ranks 0..%d\n",
      nranks, nhosts, std::string(dtype_name(o.dtype)).c_str(), ps["server_ranks_text"].get<std::string>().c_str(),
      ps["workers"].get<int>() - 1);
  std::printf(
      "# MPI library: %s; protocol over MPI point-to-point tagged messages%s\n", mpi_library.c_str(),
      ps["waits_yield"].get<bool>() ? "; more ranks than cores here, so waits yield the core between polls" : "");
  std::printf(
      "# model: %s; partitions of at most %zu B dealt %s; servers sum a step's pushes (sync) or apply each "
      "push (async, bounded), then SGD with lr %g\n",
      o.sparse() ? ("a table of size/" + std::to_string(o.row_bytes) + " rows; each worker step pushes and pulls " +
                    std::to_string(o.sparse_rows) + " rows of " + std::to_string(o.row_bytes) + " B")
                       .c_str()
                 : "one dense tensor of the size",
      o.partition_bytes, std::string(kPsAssignmentNames.name(o.assignment)).c_str(), o.learning_rate);
  if (!o.slow_ranks.empty())
    std::printf("# slow workers: ranks %s sleep %g us before every step\n",
                ps["slow_ranks_text"].get<std::string>().c_str(), o.slow_us);
  std::printf(
      "# timing: per mode and round, each worker runs %d warm-up + %d timed steps back to back, x %d round(s) "
      "interleaving the modes;\n#   a step = push (until every server acknowledged) + pull (until every value "
      "arrived); times pooled over workers\n",
      o.reps.warmup, o.reps.iters, o.reps.rounds);
  std::printf(
      "# algbw = size / step time; busbw = bytes a worker sent per step / step time (GB/s = 1e9 B/s); "
      "allreduce rows (--compare) ran among the workers only, timed back to back\n");
  if (o.check)
    std::printf(
        "# check: %d steps of known gradients; the reference is MPI_Allreduce of them plus the same SGD. "
        "sync: every pull must equal it exactly; every mode: the servers' final parameters (async and "
        "bounded within rounding). errors = wrong elements over all ranks\n",
        ps["check_steps"].get<int>());
  else
    std::printf("# check: off (--no-check); errors = -1\n");
  print_column_header();
}

std::string ps_detail_line(const ResultRow& r) {
  auto num = [&r](const char* key) {
    for (const auto& [k, v] : r.extra)
      if (k == key && v.is_number()) return v.get<double>();
    return 0.0;
  };
  char line[512];
  std::snprintf(line, sizeof line,
                "  %37s push p50 %.1f us, pull p50 %.1f us, pull held %.1f us (mean), staleness max %.0f, "
                "sent/step %.3g B = %.2f x ring, server bytes imbalance %.2f\n",
                "", num("push_p50_us"), num("pull_p50_us"), num("wait_mean_us"), num("staleness_max"),
                num("worker_sent_bytes_per_step"), num("sent_vs_ring"), num("server_bytes_imbalance"));
  return line;
}

}  // namespace collbench
