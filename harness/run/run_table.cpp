#include "harness/run/run_table.hpp"

#include <cstdio>

#include "algorithms/parameter_server/plan.hpp"
#include "collectives/registry.hpp"

namespace collbench {

namespace {
void print_column_header() {
  std::printf("#\n# %11s %11s %5s %5s %-18s %10s %10s %10s %10s %10s %8s %8s %7s %7s\n", "bytes", "count", "dtype",
              "op", "algorithm", "min_us", "avg_us", "p50_us", "p99_us", "max_us", "algbw", "busbw", "errors",
              "vs_mpi");
  std::fflush(stdout);
}
}  // namespace

void print_table_header(const RunOptions& o, int nranks, int nhosts, const std::string& mpi_library) {
  const Collective c = o.collective;
  std::printf("# collbench %s: %d rank(s) on %d host(s), dtype %s", std::string(collective_name(c)).c_str(), nranks,
              nhosts, std::string(dtype_name(o.dtype)).c_str());
  if (uses_reduce_op(c)) std::printf(", op %s", std::string(reduce_op_name(o.op)).c_str());
  if (uses_root(c)) std::printf(", root %d", o.root);
  std::printf(", %s\n", o.in_place ? "in place" : "out of place");
  std::printf("# MPI library: %s; transport of reference algorithms: MPI point-to-point\n", mpi_library.c_str());
  std::printf("# timing: %s.\n#   %d warm-up + %d timed calls per algorithm and size, x %d round(s) interleaving the algorithms\n",
              timing_policy_text(o.timing).c_str(), o.warmup, o.iters, o.rounds);
  std::printf("# algbw = bytes/time (GB/s = 1e9 B/s); busbw = algbw x %s (nccl-tests); bytes = %s\n",
              c == Collective::allreduce ? "2(n-1)/n" : size_counts_all_blocks(c) ? "(n-1)/n" : "1",
              size_counts_all_blocks(c) ? "all n ranks' blocks" : "the per-rank buffer");
  if (o.segment_bytes) std::printf("# pipelined algorithms use %zu-byte segments\n", o.segment_bytes);
  if (o.check)
    std::printf("# check: each algorithm's result compared with the MPI library's on the same inputs; "
                "mpi's own result compared with the exact expected values. errors = wrong elements over all ranks\n");
  else
    std::printf("# check: off (--no-check); errors = -1\n");
  print_column_header();
}

void print_ps_table_header(const RunOptions& o, int nranks, int nhosts, const std::string& mpi_library,
                           const nlohmann::json& ps) {
  std::printf("# collbench ps (parameter server): %d rank(s) on %d host(s), dtype %s; servers: ranks %s; workers: "
              "ranks 0..%d\n",
              nranks, nhosts, std::string(dtype_name(o.dtype)).c_str(), ps["server_ranks_text"].get<std::string>().c_str(),
              ps["workers"].get<int>() - 1);
  std::printf("# MPI library: %s; protocol over MPI point-to-point tagged messages%s\n", mpi_library.c_str(),
              ps["waits_yield"].get<bool>() ? "; more ranks than cores here, so waits yield the core between polls" : "");
  std::printf("# model: %s; partitions of at most %zu B dealt %s; servers sum a step's pushes (sync) or apply each "
              "push (async, bounded), then SGD with lr %g\n",
              o.ps.sparse() ? ("a table of size/" + std::to_string(o.ps.row_bytes) + " rows; each worker step pushes and pulls " +
                               std::to_string(o.ps.sparse_rows) + " rows of " + std::to_string(o.ps.row_bytes) + " B").c_str()
                            : "one dense tensor of the size",
              o.ps.partition_bytes, std::string(ps_assignment_name(o.ps.assignment)).c_str(), o.ps.learning_rate);
  if (!o.ps.slow_ranks.empty())
    std::printf("# slow workers: ranks %s sleep %g us before every step\n", ps["slow_ranks_text"].get<std::string>().c_str(),
                o.ps.slow_us);
  std::printf("# timing: per mode and round, each worker runs %d warm-up + %d timed steps back to back, x %d round(s) "
              "interleaving the modes;\n#   a step = push (until every server acknowledged) + pull (until every value "
              "arrived); times pooled over workers\n",
              o.warmup, o.iters, o.rounds);
  std::printf("# algbw = size / step time; busbw = bytes a worker sent per step / step time (GB/s = 1e9 B/s); "
              "allreduce rows (--compare) ran among the workers only, timed back to back\n");
  if (o.check)
    std::printf("# check: %d steps of known gradients; the reference is MPI_Allreduce of them plus the same SGD. "
                "sync: every pull must equal it exactly; every mode: the servers' final parameters (async and "
                "bounded within rounding). errors = wrong elements over all ranks\n",
                ps["check_steps"].get<int>());
  else
    std::printf("# check: off (--no-check); errors = -1\n");
  print_column_header();
}


void print_table_row(const ResultRow& r, std::optional<double> vs) {
  char ratio[16] = "-";
  if (vs) std::snprintf(ratio, sizeof ratio, "%.3f", *vs);
  std::printf("  %11zu %11zu %5s %5s %-18s %10.2f %10.2f %10.2f %10.2f %10.2f %8.3f %8.3f %7lld %7s\n", r.bytes,
              r.count, r.dtype.c_str(), r.op.c_str(), r.algorithm.c_str(), r.time_us.min, r.time_us.mean,
              r.time_us.p50, r.time_us.p99, r.time_us.max, r.algbw_gbps, r.busbw_gbps,
              static_cast<long long>(r.errors), ratio);
  std::fflush(stdout);
}

void print_algorithm_list(const Registry& registry) {
  std::printf("collectives and algorithms (mpi = the MPI library's own collective, the baseline):\n");
  for (Collective c : kAllCollectives) {
    std::printf("  %s\n", std::string(collective_name(c)).c_str());
    for (const AlgorithmEntry* e : registry.for_collective(c))
      std::printf("    %-22s %s%s\n", e->name.c_str(), e->summary.c_str(),
                  e->pipelined() ? (" [default segment " + std::to_string(e->default_segment_bytes / 1024) + " KiB]").c_str()
                                 : "");
  }
  std::printf("  ps (parameter server; choose with --ps-mode, see 'collbench run --help')\n");
  for (const ProtocolEntry* p : registry.protocols())
    std::printf("    %-22s %s\n", p->name.c_str(), p->summary.c_str());
  std::printf("dtypes:");
  for (DType t : kAllDTypes) std::printf(" %s", std::string(dtype_name(t)).c_str());
  std::printf("\nops:");
  for (ReduceOp op : kAllReduceOps) std::printf(" %s", std::string(reduce_op_name(op)).c_str());
  std::printf("\n");
}

}  // namespace collbench
