#include "harness/model/model_command.hpp"

#include <malloc.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cstdio>
#include <stdexcept>

#include "generated/build_info.hpp"
#include "harness/common/exit_status.hpp"
#include "harness/common/lists.hpp"
#include "harness/common/metadata.hpp"
#include "harness/common/numeric_flags.hpp"
#include "harness/common/sizes.hpp"
#include "harness/common/stats.hpp"

namespace collbench {

CLI::App* add_command(CLI::App& app, CostModelFlags& f) {
  CLI::App* model = app.add_subcommand("model",
                                       "Predict algorithms' times from their schedules and a cost model "
                                       "file, at any rank count (no MPI traffic)");
  model->require_subcommand(1);
  CostModelOptions& o = f.parsed;
  for (auto [name, help, slot] :
       {std::tuple{"predict", "Predicted time of each algorithm at each size", &f.predict},
        std::tuple{"best", "The predicted fastest algorithm per size, its margin, and where that changes", &f.best}}) {
    CLI::App* s = model->add_subcommand(name, help);
    *slot = s;
    s->add_option("--model,-m", f.model, "Cost model file (JSON; see the README's Cost model)")->required();
    s->add_option("--collective,-c", f.collective, kCollectiveNames.valid())->capture_default_str();
    s->add_option("--algorithms,-a", f.algorithms, "Comma-separated reference algorithms (default: all)");
    s->add_option("--ranks,-n", o.ranks, "Ranks to predict for")->check(whole_in(2, 1 << 20))->required();
    s->add_option("-b,--minbytes", f.min_bytes, "Smallest size, as run counts it (K/M/G)")->capture_default_str();
    s->add_option("-e,--maxbytes", f.max_bytes, "Largest size (K/M/G)")->capture_default_str();
    s->add_option("-f,--stepfactor", o.sizes.step_factor, "Multiply the size by this between steps")
        ->check(number_in(1, 1e6))
        ->capture_default_str();
    s->add_option("-d,--dtype", f.dtype, kDTypeNames.valid())->capture_default_str();
    s->add_option("-o,--op", f.op, kReduceOpNames.valid())->capture_default_str();
    s->add_option("-r,--root", o.root, "Root rank of broadcast, reduce and gather")->check(whole_in(0, INT_MAX));
    s->add_option("--segment-size", f.segment, "Pipeline segment of pipelined algorithms (default: each one's own)");
    s->add_option("--order", f.order,
                  "The executor order to predict: dataflow (run's default) or steps (run "
                  "--order steps; the published closed forms' assumption)")
        ->capture_default_str();
    s->add_option("--method", f.method,
                  "auto (the symmetric path where it holds, else the split one, else a "
                  "pipeline's periodic one, else a closing ring allgather's recurrence, each where it "
                  "holds, else every rank simulated), full, symmetric, split, periodic, or ring_tail")
        ->capture_default_str();
    add_output_flags(*s, o.out, "model");
  }
  f.fit_app = model->add_subcommand("fit",
                                    "Write a cost model file from a collbench p2p result (alpha and beta "
                                    "per link class) and reduction and copy rates timed here");
  f.fit_app->add_option("--p2p", f.fit.p2p_path, "A collbench p2p JSON result")->required();
  f.fit_app->add_option("--out", f.fit.out_path, "The model file to write")->required();
  f.fit_app->add_option("--ranks-per-node", f.fit.ranks_per_node, "Ranks per host (default: the p2p run's)")
      ->check(whole_in(1, 1 << 20));
  f.fit_app->add_flag("--overwrite", f.fit.overwrite, "Replace --out if it exists");
  return model;
}

std::variant<CostModelOptions, ModelFitOptions> resolve_command(const CostModelFlags& f, const CommandContext& c) {
  if (f.fit_app->parsed()) return f.fit;
  const Registry& registry = c.registry;
  CostModelOptions o = f.parsed;
  o.best = f.best->parsed();
  o.model = load_model(f.model);
  o.collective = kCollectiveNames.parse_or_throw(f.collective, "collective");
  o.dtype = kDTypeNames.parse_or_throw(f.dtype, "dtype");
  o.op = kReduceOpNames.parse_or_throw(f.op, "op");
  o.method = kPredictMethodNames.parse_or_throw(f.method, "--method");
  o.order = kExecutionOrderNames.parse_or_throw(f.order, "execution order");
  std::vector<const AlgorithmEntry*> schedules;
  for (const AlgorithmEntry* e : registry.for_collective(o.collective))
    if (!e->is_baseline()) schedules.push_back(e);
  if (f.algorithms.empty()) {
    o.algorithms = schedules;
  } else {
    o.algorithms = resolve_list<const AlgorithmEntry*>(
        f.algorithms,
        [&](const std::string& n) {
          const AlgorithmEntry* e = registry.find(o.collective, n);
          return e && !e->is_baseline() ? std::optional{e} : std::nullopt;
        },
        [&](const std::string& n) {
          return "no schedule to predict for " + f.collective + " algorithm '" + n +
                 "' (the mpi baseline is the "
                 "library's own); valid: " +
                 join(names_of(schedules), std::identity{});
        },
        "--algorithms names no algorithm");
  }
  if (o.model.ranks_per_node < o.ranks && o.ranks % o.model.ranks_per_node)
    throw std::invalid_argument("model file '" + o.model.path + "': ranks_per_node " +
                                std::to_string(o.model.ranks_per_node) + " does not divide --ranks " +
                                std::to_string(o.ranks));
  if (o.root >= o.ranks)
    throw std::invalid_argument("--root " + std::to_string(o.root) + " is out of range for " + std::to_string(o.ranks) +
                                " rank(s)");
  parse_size_range(o.sizes, f.min_bytes, f.max_bytes);
  if (!f.segment.empty()) o.segment_bytes = parse_size(f.segment);
  return o;
}

namespace {

struct Predicted {
  const AlgorithmEntry* algorithm;
  Prediction p;
};

Row model_row(const CostModelOptions& o, std::size_t bytes, std::size_t count, const Predicted& x, int place,
              double vs_best) {
  const double algbw = algbw_gbps(static_cast<double>(bytes), x.p.time_us * 1e-6);
  const int rpn = std::min(o.model.ranks_per_node, o.ranks);
  Fields f{{"collective", collective_name(o.collective)},
           {"algorithm", x.algorithm->name},
           {"transport", "model"},
           {"ranks", o.ranks},
           {"bytes", bytes},
           {"count", count},
           {"dtype", dtype_name(o.dtype)},
           {"op", uses_reduce_op(o.collective) ? reduce_op_name(o.op) : std::string_view("none")},
           {"root", o.root},
           {"predicted_us", x.p.time_us},
           {"algbw_gbps", algbw},
           {"busbw_gbps", algbw * busbw_factor(o.collective, o.ranks)},
           {"nodes", o.ranks / rpn},
           {"ranks_per_node", rpn},
           {"segment_bytes", x.algorithm->segment_bytes({o.segment_bytes, {}, {}})},
           {"order", kExecutionOrderNames.name(o.order)},
           {"method", kPredictMethodNames.name(x.p.method)},
           {"symmetry", x.p.symmetry},
           {"messages", x.p.messages},
           {"predict_seconds", x.p.seconds},
           {"place", place},
           {"vs_best", vs_best}};
  char line[256];
  std::snprintf(line, sizeof line, "  %11zu %-20s %14.3f %10.4f %10.4f %3d %7.3f %-9s %8.3f\n", bytes,
                x.algorithm->name.c_str(), x.p.time_us, algbw, algbw * busbw_factor(o.collective, o.ranks), place,
                vs_best, std::string(kPredictMethodNames.name(x.p.method)).c_str(), x.p.seconds);
  return {f, nlohmann::json::object(), o.best ? "" : line};
}

// Predictions at scale build, plan and free schedules of tens of MB in turn (a ring over
// 65,536 ranks: 131,070 steps a rank). glibc hands such blocks back to the kernel and
// faults them in again on the next, which cost about as much as the work itself here
// (2.3 s instead of 3.8 s for that ring in dataflow order); freed memory is kept for reuse.
void keep_freed_memory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
}

}  // namespace

int run_command(const CostModelOptions& o_in, const Invocation& inv) {
  CostModelOptions o = o_in;
  const nlohmann::json metadata = {
      {"tool", "collbench"},
      {"git_revision", build_info::git_revision},
      {"started_utc", utc_now()},
      {"command_line", std::vector<std::string>(inv.argv, inv.argv + inv.argc)},
      {"model", {{"path", o.model.path}, {"name", o.model.name}, {"file", o.model.source}}},
      {"definitions",
       {{"predicted_us",
         "the last rank's finish, simulated from every transfer and operation of the schedules in the "
         "executor's order (--order): messages alpha + bytes/beta per link class and size range (the "
         "exchange cost where a step sends and receives), rank ports and host links queued (shared where "
         "the model says shared_ports), "
         "reductions and copies per byte; per-byte rates taken where the measurement touched as much "
         "memory as the call"},
        {"order", "dataflow (run's default) or steps"},
        {"method",
         "symmetric: one block of ranks simulated (symmetry: how the others mirror it); full: every rank; "
         "split: a symmetric first phase as one block, the rest for every rank (symmetry: the block and "
         "where the phases meet); periodic: a pipeline's time extended along the line through a few "
         "shorter counts' (symmetry: which); ring_tail: the steps before a closing ring allgather "
         "(in dataflow order and its first steps) for every rank, the ring by recurrence (symmetry: where it "
         "began to repeat, if it did)"},
        {"place", "1 for the fastest predicted algorithm at this size"},
        {"vs_best", "predicted_us / the fastest's"}}}};
  const std::vector<std::size_t> sizes = checked_sweep_sizes(o.sizes, 1, true);
  const std::size_t elem = dtype_size(o.dtype);
  ResultSink sink =
      ResultSink::open(o.out, o.best ? "model-best" : "model",
                       field_names(model_row(o, 0, 0, {o.algorithms[0], {}}, 0, 0).fields), metadata, inv.comm);
  bool unpredicted = false;  // an algorithm that could not be predicted: its rows are missing
  if (inv.rank == 0) {
    std::printf("# collbench model %s: %s, %d ranks (%d per host), model '%s'\n", o.best ? "best" : "predict",
                std::string(collective_name(o.collective)).c_str(), o.ranks, std::min(o.model.ranks_per_node, o.ranks),
                o.model.name.c_str());
    if (!o.best)
      std::printf("# %11s %-20s %14s %10s %10s %3s %7s %-9s %8s\n", "bytes", "algorithm", "predicted_us", "algbw",
                  "busbw", "#", "vs_best", "method", "seconds");
    const CostParams params = cost_params(o.model, o.dtype, o.op);
    keep_freed_memory();
    std::string previous;
    for (std::size_t bytes : sizes) {
      const std::size_t count = count_of_size(o.collective, bytes, elem, o.ranks);
      if (count == 0) continue;  // nothing to predict; run would time an empty call
      const std::size_t per = size_in_elements(o.collective, 1, o.ranks) * elem;
      std::vector<Predicted> at;
      std::string missing;  // the algorithms not predicted at this size: the best is among the others
      for (const AlgorithmEntry* a : o.algorithms) {
        PredictRequest q{a,      o.collective,           o.ranks,         count,  elem,
                         o.root, o.model.ranks_per_node, o.segment_bytes, o.order};
        try {
          at.push_back({a, predict(q, params, o.method)});
        } catch (const std::exception& e) {  // too large to simulate, --method symmetric refused, or a
                                             // schedule the simulation cannot finish: the others still print
          std::fprintf(stderr, "collbench: cannot predict %s at %zu bytes: %s\n", a->name.c_str(), count * per,
                       e.what());
          unpredicted = true;
          missing += (missing.empty() ? "" : ", ") + a->name;
        }
      }
      if (at.empty()) continue;
      std::vector<Predicted> ranked = at;
      std::stable_sort(ranked.begin(), ranked.end(),
                       [](const Predicted& a, const Predicted& b) { return a.p.time_us < b.p.time_us; });
      for (const Predicted& x : at) {
        const int place =
            1 + static_cast<int>(std::find_if(ranked.begin(), ranked.end(),
                                              [&](const Predicted& y) { return y.algorithm == x.algorithm; }) -
                                 ranked.begin());
        sink.add(model_row(o, count * per, count, x, place, x.p.time_us / ranked[0].p.time_us));
      }
      if (o.best) {
        const double margin = ranked.size() > 1 ? ranked[1].p.time_us / ranked[0].p.time_us : 1;
        std::printf("  %11zu %-20s %14.3f us  x%.3f over %s%s%s\n", count * per, ranked[0].algorithm->name.c_str(),
                    ranked[0].p.time_us, margin, ranked.size() > 1 ? ranked[1].algorithm->name.c_str() : "-",
                    !previous.empty() && previous != ranked[0].algorithm->name ? "  <- crossover" : "",
                    missing.empty() ? "" : ("  (not predicted: " + missing + ")").c_str());
        previous = ranked[0].algorithm->name;
      }
    }
  }
  const int rc = finish_run(inv, sink, 0);
  if (unpredicted && rc == 0)
    std::fprintf(stderr, "collbench: error: some predictions are missing (see above); the others are written\n");
  return unpredicted && rc == 0 ? kExitRefused : rc;
}

}  // namespace collbench
