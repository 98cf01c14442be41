#include "harness/workloads/workloads_command.hpp"

#include <CLI/CLI.hpp>

#include <cstdarg>
#include <cstdio>
#include <map>
#include <optional>

#include "harness/common/numeric_flags.hpp"
#include "workloads/bucketing.hpp"
#include "workloads/compute_model.hpp"
#include "workloads/traffic.hpp"
#include "workloads/zipf.hpp"

namespace collbench {
namespace {

void append(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void append(std::string& out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  out += buf;
}

std::string mib(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

}  // namespace

std::string workload_list_text() {
  std::string out = "built-in workloads (or give a FILE.csv; see workloads/README.md):\n";
  for (const BuiltinWorkload& b : builtin_workloads()) {
    const Workload w = load_workload(b.name);
    append(out, "  %-11s %4zu tensors %13zu parameters %10s  %s\n", b.name.c_str(), w.tensors.size(), w.parameters(),
           mib(w.bytes()).c_str(), b.summary.c_str());
  }
  return out;
}

namespace {
// Each all-to-all's blocks on `ranks` ranks: bytes per peer min/median/max and the busiest rank's.
void append_all_to_alls(std::string& out, const Workload& w, int ranks) {
  if (w.all_to_alls.empty()) return;
  append(out,
         "#\n# all-to-alls on the critical path, on %d rank(s) (position: share of the pass's compute before it)\n",
         ranks);
  append(out, "# %-28s %8s %8s %5s %12s %12s %12s %12s %12s\n", "name", "pass", "position", "dtype", "bytes/rank",
         "peer min", "peer median", "peer max", "busiest");
  for (const AllToAllCall& a : w.all_to_alls) {
    const TrafficSummary t = summarize_traffic(*all_to_all_counts(a, ranks));
    const std::size_t e = dtype_size(a.dtype);
    append(out, "  %-28s %8s %8.3f %5s %12zu %12zu %12zu %12zu %12zu\n", a.name.c_str(),
           a.backward ? "backward" : "forward", a.position, std::string(dtype_name(a.dtype)).c_str(),
           a.bytes_per_rank(), t.min * e, t.median * e, t.max * e, t.busiest * e);
  }
}
}  // namespace

std::string workload_show_text(const WorkloadChoice& r, int ranks) {
  const Workload& w = r.loaded;
  const std::optional<ComputeModel> c = workload_compute(r, w);
  std::string out;
  append(out, "# %s: %s\n# %zu tensors (%zu sparse), %zu parameters, %s of gradients\n", w.name.c_str(),
         w.description.c_str(), w.tensors.size(), w.sparse_tensors(), w.parameters(), mib(w.bytes()).c_str());
  if (c)
    append(out, "# compute: forward %.3f + backward %.3f + optimizer %.3f = %.3f ms\n", c->forward_ms,
           c->backward_total_ms(), c->optimizer_ms, c->total_ms());
  append(out, "#\n# tensors in backward order%s\n# %4s %-48s %12s %5s %12s %11s\n",
         c ? " (ready: ms after backward starts)" : "", "idx", "name", "elements", "dtype", "bytes",
         c ? "ready ms" : "");
  std::map<std::size_t, ZipfSampler> samplers;
  for (std::size_t i = 0; i < w.tensors.size(); ++i) {
    const GradientTensor& t = w.tensors[i];
    append(out, "  %4zu %-48s %12zu %5s %12zu", i, t.name.c_str(), t.elements, std::string(dtype_name(t.dtype)).c_str(),
           t.bytes());
    if (c) append(out, " %11.3f", c->ready_ms[i]);
    if (t.sparse) {
      auto it = samplers.try_emplace(t.rows, t.rows, w.zipf_exponent).first;
      const std::size_t touched = it->second.touched_rows(t.lookups, r.seed, 0, 0, i).size();
      append(out, "  sparse %zu x %zu, %zu lookups/step -> %zu rows (rank 0, step 0)", t.rows, t.row_elements,
             t.lookups, touched);
    }
    out += "\n";
  }
  append_all_to_alls(out, w, ranks);
  const std::vector<double> ready = c ? c->ready_ms : std::vector<double>(w.tensors.size(), 0.0);
  for (BucketingPolicy p : r.bucketings) {
    BucketingOptions o = r.bucketing;
    o.policy = p;
    const std::vector<Bucket> buckets = make_buckets(w, ready, o, false);
    append(out, "#\n# buckets, %s", std::string(kBucketingNames.name(p)).c_str());
    if (p == BucketingPolicy::ddp)
      append(out, " (first %s, then %s)", mib(o.ddp_first_bucket_bytes).c_str(), mib(o.ddp_bucket_bytes).c_str());
    if (p == BucketingPolicy::fusion)
      append(out, " (threshold %s, cycle %.3g ms)", mib(o.fusion_threshold_bytes).c_str(), o.cycle_ms);
    append(out, ": %zu (sparse tensors bucketed as dense; allgather and ps send them alone)\n", buckets.size());
    append(out, "# %6s %8s %12s %s\n", "bucket", "tensors", "bytes",
           c ? "ready ms  first .. last tensor" : "first .. last tensor");
    for (std::size_t i = 0; i < buckets.size(); ++i) {
      const Bucket& b = buckets[i];
      append(out, "  %6zu %8zu %12zu ", i, b.tensors.size(), b.bytes);
      if (c) append(out, "%8.3f  ", b.ready_ms);
      append(out, "%s .. %s\n", w.tensors[b.tensors.front()].name.c_str(), w.tensors[b.tensors.back()].name.c_str());
    }
  }
  return out;
}

CLI::App* add_command(CLI::App& app, WorkloadsFlags& f) {
  CLI::App* workloads =
      app.add_subcommand("workloads", "List the built-in workloads, or show one's tensors and buckets");
  workloads->require_subcommand(1);
  workloads->add_subcommand("list", "List the built-in workloads");
  f.show = workloads->add_subcommand("show", "Show a workload's tensors, totals and buckets");
  f.show->add_option("workload", f.parsed.choice.workload, "a built-in (workloads list) or a FILE.csv")->required();
  add_workload_flags(*f.show, f.parsed.choice, f.choice);
  f.show->add_option("--ranks", f.parsed.ranks, "Show the all-to-alls' blocks on this many ranks (default: the run's)")
      ->check(whole_in(1, 1 << 20));
  return workloads;
}

WorkloadsOptions resolve_command(const WorkloadsFlags& f, const CommandContext& context) {
  WorkloadsOptions o = f.parsed;
  o.show = f.show->parsed();
  if (!o.ranks) o.ranks = context.nranks;
  if (o.show) {
    resolve_workload(o.choice, f.choice, false);
    for (const AllToAllCall& a : o.choice.loaded.all_to_alls) all_to_all_counts(a, o.ranks);  // refuse a bad layout now
  }
  return o;
}

int run_command(const WorkloadsOptions& o, const Invocation& inv) {
  if (inv.rank == 0) std::printf("%s", (o.show ? workload_show_text(o.choice, o.ranks) : workload_list_text()).c_str());
  return 0;
}

}  // namespace collbench
