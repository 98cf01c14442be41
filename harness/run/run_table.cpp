#include "harness/run/run_table.hpp"

#include <cstdio>

#include "harness/common/metadata.hpp"
#include "harness/common/stats.hpp"
#include "harness/run/bound.hpp"

namespace collbench {

void print_column_header(bool of_bound, bool of_memory_bound) {
  std::printf("#\n# %11s %11s %5s %5s %-18s %10s %10s %10s %10s %10s %8s %8s %7s %7s%s%s\n", "bytes", "count", "dtype",
              "op", "algorithm", "min_us", "avg_us", "p50_us", "p99_us", "max_us", "algbw", "busbw", "errors", "vs_mpi",
              of_bound ? " of_bound" : "", of_memory_bound ? "   of_mem" : "");
  std::fflush(stdout);
}

void print_table_header(const SweepSpec& o, const nlohmann::json& metadata) {
  const Collective c = o.collective;
  std::printf("# collbench %s: %d rank(s) on %zu host(s), dtype %s", std::string(collective_name(c)).c_str(),
              metadata["ranks"].get<int>(), metadata["hosts"].size(), std::string(dtype_name(o.dtype)).c_str());
  if (uses_reduce_op(c)) std::printf(", op %s", std::string(reduce_op_name(o.op)).c_str());
  if (uses_root(c)) std::printf(", root %d", o.root);
  std::printf(", %s\n", o.in_place ? "in place" : "out of place");
  std::printf("# MPI library: %s; transport of reference algorithms: %s\n",
              metadata["mpi"]["library"].get<std::string>().c_str(),
              transport_text(transport_row(o.transport)).c_str());
  for (const auto& caution : metadata["mpi_baseline"]["cautions"])
    std::printf("# note (%s): %s\n", metadata["mpi_baseline"]["row_name"].get<std::string>().c_str(),
                caution.get<std::string>().c_str());
  for (const std::string& warning : metadata_warnings(metadata)) std::printf("# WARNING: %s\n", warning.c_str());
  std::printf("# timing: %s.\n#   %s\n", timing_policy_text(o.timing, o.aggregate).c_str(),
              repetitions_text(o.reps).c_str());
  std::printf("# algbw = bytes/time (GB/s = 1e9 B/s); busbw = algbw x %s (nccl-tests); bytes = %s\n",
              std::string(traits(c).busbw_factor_text).c_str(),
              size_counts_all_blocks(c) ? "all n ranks' blocks" : "the per-rank buffer");
  if (o.segment_bytes) std::printf("# pipelined algorithms use %zu-byte segments\n", o.segment_bytes);
  if (o.check)
    std::printf(
        "# check: every algorithm's results (mpi's included) compared with the exact expected values: one "
        "untimed call, then the last timed call of each round%s. errors = wrong elements over all ranks "
        "and checked calls\n",
        o.check_every > 0 ? (" and every " + std::to_string(o.check_every) + "th").c_str() : "");
  else
    std::printf("# check: off (--no-check); errors = -1\n");
  std::printf("# '!' marks rows with outliers, %s: trust p50 there, not avg/max/bandwidth\n", outlier_rule().c_str());
  if (o.bound)
    std::printf(
        "# ring_bound = %s, measured interleaved with the algorithms (exchange: a window of messages to the "
        "right neighbour while receiving from the left, as osu_bibw; reduce: the kernel on one block, in "
        "cache); of_bound = ring_bound p50 / row p50\n",
        bound_formula(c).c_str());
  if (o.memory_bound())
    std::printf(
        "# of_mem = memory_bound / row p50: memory_bound = what the busiest rank copies and reduces running the "
        "row's schedule, each at the rate of a copy and a reduction over buffers of the call's size with every "
        "rank at once\n");
  print_column_header(o.bound, o.memory_bound());
}

std::string table_line(const ResultRow& r, std::optional<double> vs, std::optional<double> of_bound,
                       bool memory_column, std::optional<double> of_memory) {
  char ratio[16] = "-";
  if (vs) std::snprintf(ratio, sizeof ratio, "%.3f", *vs);
  char line[512];
  std::snprintf(
      line, sizeof line, "  %11zu %11zu %5s %5s %-18s %10.2f %10.2f %10.2f %10.2f %10.2f %8.3f %8.3f %7lld %7s\n",
      r.bytes, r.count, r.dtype.c_str(), r.op.c_str(), r.algorithm.c_str(), r.time_us.min, r.time_us.mean,
      r.time_us.p50, r.time_us.p99, r.time_us.max, r.algbw_gbps, r.busbw_gbps, static_cast<long long>(r.errors), ratio);
  std::string out = line;
  if (of_bound) {
    char share[16];
    std::snprintf(share, sizeof share, " %8.3f", *of_bound);
    out.insert(out.size() - 1, share);
  }
  if (memory_column) {
    char share[16] = "        -";
    if (of_memory) std::snprintf(share, sizeof share, " %8.3f", *of_memory);
    out.insert(out.size() - 1, share);
  }
  if (r.outliers > 0) out.insert(out.size() - 1, " ! " + std::to_string(r.outliers) + " outlier(s)");
  return out;
}

}  // namespace collbench
