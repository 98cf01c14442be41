#include "harness/replay/replay_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "harness/common/stats.hpp"

namespace collbench {
namespace {

double mean_of(const std::vector<double>& v) { return summarize(v).mean; }

}  // namespace

std::string ReplayConfigResult::label() const {
  std::string s = algorithm + " / " + bucketing;
  if (sparse_strategy != "none") s += " / " + sparse_strategy;
  return s;
}

namespace {
// A step as the job sees it: the slowest worker's value of `field`.
double slowest(const std::vector<StepTimeline>& workers, double StepTimeline::* field) {
  double m = 0;
  for (const StepTimeline& t : workers) m = std::max(m, t.*field);
  return m;
}
}  // namespace

double ReplayConfigResult::step_ms(std::size_t s) const { return slowest(steps[s], &StepTimeline::step_ms); }
double ReplayConfigResult::comm_ms(std::size_t s) const { return slowest(steps[s], &StepTimeline::comm_ms); }
double ReplayConfigResult::alltoall_ms(std::size_t s) const { return slowest(steps[s], &StepTimeline::blocking_ms); }
double ReplayConfigResult::alltoall_exposed_ms(std::size_t s) const {
  return slowest(steps[s], &StepTimeline::stalled_ms);
}

Fields replay_fields(const ReplayConfigResult& r, const ComputeModel& c, const ReplayRowValues& v) {
  const double compute = c.total_ms(), hidden = v.comm_ms - (v.step_ms - compute);
  Fields f{{"workload", r.workload},
           {"algorithm", r.algorithm},
           {"bucketing", r.bucketing},
           {"sparse_strategy", r.sparse_strategy},
           {"ranks", r.ranks},
           {"step", v.step},
           {"compute_ms", compute},
           {"comm_ms", v.comm_ms},
           {"exposed_ms", v.step_ms - compute},
           {"step_ms", v.step_ms},
           {"efficiency", compute / v.step_ms},
           {"workers", r.workers},
           {"servers", r.servers},
           {"ps_mode", r.ps_mode.empty() ? nlohmann::json() : nlohmann::json(r.ps_mode)},
           {"exchanges", r.exchanges.size()},
           {"comm_bytes", v.comm_bytes},
           {"forward_ms", c.forward_ms},
           {"backward_ms", c.backward_total_ms()},
           {"optimizer_ms", c.optimizer_ms},
           {"hidden_comm_ms", std::max(0.0, hidden)},
           {"alltoall_ms", v.alltoall_ms},
           {"alltoall_exposed_ms", v.alltoall_exposed_ms}};
  if (v.spread)
    f.insert(f.end(), {{"step_ms_min", v.spread->min}, {"step_ms_p50", v.spread->p50}, {"step_ms_max", v.spread->max}});
  f.emplace_back("errors", r.errors);
  if (v.round) f.emplace_back("round", *v.round);
  return f;
}

std::vector<std::string> replay_columns() {
  return field_names(replay_fields(ReplayConfigResult{}, ComputeModel{}, {0, 0, 0, 0, 0, 0, Summary{}, 0}));
}

Fields replay_step_fields(const ReplayConfigResult& r, const ComputeModel& c, std::size_t s, int round) {
  return replay_fields(r, c,
                       {static_cast<int>(s), r.comm_ms(s), r.step_ms(s), r.alltoall_ms(s), r.alltoall_exposed_ms(s),
                        r.comm_bytes[s], std::nullopt, round});
}

Fields replay_mean_fields(const ReplayConfigResult& r, const ComputeModel& c) {
  std::vector<double> steps, comms, bytes, a2a, a2a_exposed;
  for (std::size_t s = 0; s < r.steps.size(); ++s) {
    steps.push_back(r.step_ms(s));
    comms.push_back(r.comm_ms(s));
    bytes.push_back(static_cast<double>(r.comm_bytes[s]));
    a2a.push_back(r.alltoall_ms(s));
    a2a_exposed.push_back(r.alltoall_exposed_ms(s));
  }
  const Summary spread = summarize(steps);
  return replay_fields(r, c,
                       {"mean", mean_of(comms), spread.mean, mean_of(a2a), mean_of(a2a_exposed),
                        static_cast<std::size_t>(std::llround(mean_of(bytes))), spread, std::nullopt});
}

nlohmann::json replay_details(const ReplayConfigResult& r) {
  nlohmann::json ex = nlohmann::json::array();
  for (std::size_t i = 0; i < r.exchanges.size(); ++i) {
    const ReplayExchangeInfo& e = r.exchanges[i];
    std::vector<double> ms;
    for (const auto& step : r.steps) ms.push_back(step[0].end_ms[i] - step[0].start_ms[i]);
    ex.push_back({{"name", e.name},
                  {"kind", e.kind},
                  {"tensors", e.tensors},
                  {"bytes", e.bytes},
                  {"ready_ms", e.ready_ms},
                  {"rank0_mean_ms", mean_of(ms)}});
  }
  return {{"details", {{"exchanges", ex}}}};
}

void print_replay_header(const std::string& description, std::size_t tensors, std::size_t parameters, std::size_t bytes,
                         std::size_t sparse, const ComputeModel& c, bool from_profile, int ranks, int steps, int warmup,
                         int rounds) {
  std::printf("# collbench replay: %s\n", description.c_str());
  std::printf("# %zu gradient tensors (%zu sparse), %zu parameters, %.1f MB of gradients; %d rank(s)\n", tensors,
              sparse, parameters, static_cast<double>(bytes) / 1e6, ranks);
  std::printf("# compute per step (%s): forward %.2f + backward %.2f + optimizer %.2f = %.2f ms (emulated)\n",
              from_profile ? "from the profile" : "--compute-ms spread by FLOPs", c.forward_ms, c.backward_total_ms(),
              c.optimizer_ms, c.total_ms());
  std::printf("# %d round(s), each running every configuration: %d warm-up then %d timed step(s)\n", rounds, warmup,
              steps);
  std::printf(
      "# communication is real, each exchange starting when its gradients are\n"
      "# ready or the previous exchange ends; a step is its slowest worker's; exposed = step - compute\n");
  std::printf("#\n# %-34s %5s %10s %10s %10s %10s %10s %6s %7s\n", "configuration", "exch", "step ms", "min", "max",
              "comm ms", "exposed", "eff", "errors");
}

std::string replay_line(const ReplayConfigResult& r, const ComputeModel& c) {
  std::vector<double> steps, comms;
  for (std::size_t s = 0; s < r.steps.size(); ++s) {
    steps.push_back(r.step_ms(s));
    comms.push_back(r.comm_ms(s));
  }
  const Summary spread = summarize(steps);
  const double step = spread.mean;
  char line[512];
  std::snprintf(line, sizeof line, "  %-34s %5zu %10.2f %10.2f %10.2f %10.2f %10.2f %6.3f %7s\n", r.label().c_str(),
                r.exchanges.size(), step, spread.min, spread.max, mean_of(comms), step - c.total_ms(),
                c.total_ms() / step, r.errors < 0 ? "-" : std::to_string(r.errors).c_str());
  return line;
}

void print_replay_winner(const std::vector<ReplayConfigResult>& results, const ComputeModel& c) {
  auto mean_step = [](const ReplayConfigResult& r) {
    std::vector<double> steps;
    for (std::size_t i = 0; i < r.steps.size(); ++i) steps.push_back(r.step_ms(i));
    return mean_of(steps);
  };
  const auto best = std::min_element(results.begin(), results.end(),
                                     [&](const auto& a, const auto& b) { return mean_step(a) < mean_step(b); });
  if (best == results.end()) return;
  const double step = mean_step(*best);
  std::printf("# fastest: %s: step %.2f ms, %.2f ms of communication exposed, efficiency %.3f\n", best->label().c_str(),
              step, step - c.total_ms(), c.total_ms() / step);
  for (const ReplayConfigResult& r : results)
    if (&r != &*best) std::printf("#   %-34s %.3fx its step time\n", r.label().c_str(), mean_step(r) / step);
}

nlohmann::json replay_trace(const std::vector<ReplayConfigResult>& results, const ComputeModel& c,
                            const std::vector<std::string>& tensor_names) {
  nlohmann::json events = nlohmann::json::array();
  auto event = [&](const std::string& name, const char* cat, int pid, int tid, double start_ms, double dur_ms,
                   nlohmann::json args = nullptr) {
    nlohmann::json e = {{"name", name}, {"cat", cat},           {"ph", "X"},          {"pid", pid},
                        {"tid", tid},   {"ts", start_ms * 1e3}, {"dur", dur_ms * 1e3}};
    if (!args.is_null()) e["args"] = std::move(args);
    events.push_back(std::move(e));
  };
  int max_workers = 0;
  double origin = 0;  // ms: configurations and steps follow one another
  for (const ReplayConfigResult& r : results) {
    max_workers = std::max(max_workers, r.workers);
    const double config_start = origin;
    for (std::size_t s = 0; s < r.steps.size(); ++s) {
      for (int w = 0; w < static_cast<int>(r.steps[s].size()); ++w) {
        const StepTimeline& t = r.steps[s][w];
        event(r.label() + " step " + std::to_string(s), "step", w, 0, origin, t.step_ms,
              {{"compute_ms", t.compute_ms}, {"comm_ms", t.comm_ms}, {"exposed_ms", t.exposed_ms()}});
        event("forward", "compute", w, 1, origin, c.forward_ms);
        for (std::size_t i = 0; i < c.backward_ms.size(); ++i)
          if (c.backward_ms[i] > 0)
            event("backward " + tensor_names[i], "compute", w, 1,
                  origin + c.forward_ms + c.ready_ms[i] - c.backward_ms[i], c.backward_ms[i]);
        if (c.optimizer_ms > 0)
          event("optimizer", "compute", w, 1, origin + t.step_ms - c.optimizer_ms, c.optimizer_ms);
        for (std::size_t i = 0; i < r.exchanges.size(); ++i) {
          const ReplayExchangeInfo& x = r.exchanges[i];
          event(x.name, "communication", w, 2, origin + t.start_ms[i], t.end_ms[i] - t.start_ms[i],
                {{"kind", x.kind}, {"tensors", x.tensors}, {"bytes", x.bytes}, {"ready_ms", x.ready_ms}});
        }
      }
      origin += r.step_ms(s) + 1;
    }
    event(r.label(), "configuration", 0, 3, config_start, origin - config_start);
    origin += 10;
  }
  for (int w = 0; w < max_workers; ++w) {
    events.push_back(
        {{"name", "process_name"}, {"ph", "M"}, {"pid", w}, {"args", {{"name", "rank " + std::to_string(w)}}}});
    const char* threads[] = {"step", "compute (emulated)", "communication", "configuration"};
    for (int tid = 0; tid < 4; ++tid)
      events.push_back(
          {{"name", "thread_name"}, {"ph", "M"}, {"pid", w}, {"tid", tid}, {"args", {{"name", threads[tid]}}}});
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace collbench
