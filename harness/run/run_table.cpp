#include "harness/run/run_table.hpp"

#include <cstdio>


namespace collbench {

void print_column_header() {
  std::printf("#\n# %11s %11s %5s %5s %-18s %10s %10s %10s %10s %10s %8s %8s %7s %7s\n", "bytes", "count", "dtype",
              "op", "algorithm", "min_us", "avg_us", "p50_us", "p99_us", "max_us", "algbw", "busbw", "errors",
              "vs_mpi");
  std::fflush(stdout);
}

void print_table_header(const SweepSpec& o, int nranks, int nhosts, const std::string& mpi_library) {
  const Collective c = o.collective;
  std::printf("# collbench %s: %d rank(s) on %d host(s), dtype %s", std::string(collective_name(c)).c_str(), nranks,
              nhosts, std::string(dtype_name(o.dtype)).c_str());
  if (uses_reduce_op(c)) std::printf(", op %s", std::string(reduce_op_name(o.op)).c_str());
  if (uses_root(c)) std::printf(", root %d", o.root);
  std::printf(", %s\n", o.in_place ? "in place" : "out of place");
  std::printf("# MPI library: %s; transport of reference algorithms: MPI point-to-point\n", mpi_library.c_str());
  std::printf("# timing: %s.\n#   %d warm-up + %d timed calls per algorithm and size, x %d round(s) interleaving the algorithms\n",
              timing_policy_text(o.timing).c_str(), o.reps.warmup, o.reps.iters, o.reps.rounds);
  std::printf("# algbw = bytes/time (GB/s = 1e9 B/s); busbw = algbw x %s (nccl-tests); bytes = %s\n",
              std::string(traits(c).busbw_factor_text).c_str(),
              size_counts_all_blocks(c) ? "all n ranks' blocks" : "the per-rank buffer");
  if (o.segment_bytes) std::printf("# pipelined algorithms use %zu-byte segments\n", o.segment_bytes);
  if (o.check)
    std::printf("# check: each algorithm's result compared with the MPI library's on the same inputs; "
                "mpi's own result compared with the exact expected values. errors = wrong elements over all ranks\n");
  else
    std::printf("# check: off (--no-check); errors = -1\n");
  print_column_header();
}

std::string table_line(const ResultRow& r, std::optional<double> vs) {
  char ratio[16] = "-";
  if (vs) std::snprintf(ratio, sizeof ratio, "%.3f", *vs);
  char line[512];
  std::snprintf(line, sizeof line, "  %11zu %11zu %5s %5s %-18s %10.2f %10.2f %10.2f %10.2f %10.2f %8.3f %8.3f %7lld %7s\n",
                r.bytes, r.count, r.dtype.c_str(), r.op.c_str(), r.algorithm.c_str(), r.time_us.min, r.time_us.mean,
                r.time_us.p50, r.time_us.p99, r.time_us.max, r.algbw_gbps, r.busbw_gbps,
                static_cast<long long>(r.errors), ratio);
  return line;
}

}  // namespace collbench
