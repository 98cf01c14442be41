#include "harness/ps/ps_rows.hpp"

#include <algorithm>
#include <numeric>

#include "harness/common/stats.hpp"

namespace collbench {

nlohmann::json ps_report_json(const PsWorkerReport& r, int warmup) {
  nlohmann::json push = nlohmann::json::array(), pull = push, stale = push, sent = push, received = push;
  for (std::size_t i = static_cast<std::size_t>(std::max(warmup, 0)); i < r.steps.size(); ++i) {
    push.push_back(r.steps[i].push_s);
    pull.push_back(r.steps[i].pull_s);
    stale.push_back(r.steps[i].staleness);
    sent.push_back(r.steps[i].bytes_sent);
    received.push_back(r.steps[i].bytes_received);
  }
  return {{"role", "worker"},
          {"push_s", push},
          {"pull_s", pull},
          {"staleness", stale},
          {"bytes_sent", sent},
          {"bytes_received", received},
          {"pushes_sent", r.pushes_sent},
          {"steps", r.steps.size()},
          {"error", r.error}};
}

nlohmann::json ps_report_json(const PsServerReport& r) {
  nlohmann::json stale = nlohmann::json::object();
  for (auto [k, v] : r.staleness_counts) stale[std::to_string(k)] = v;
  return {{"role", "server"},
          {"ingress_bytes", r.ingress_bytes},
          {"egress_bytes", r.egress_bytes},
          {"pushes_received", r.pushes_received},
          {"pulls_served", r.pulls_served},
          {"pull_wait_s", r.pull_wait_s},
          {"staleness_counts", stale},
          {"elapsed_s", r.elapsed_s},
          {"error", r.error}};
}

Fields ps_extra_fields(const PsRowStats& p) {
  return {{"ps_mode", p.ps_mode},
          {"servers", p.servers},
          {"workers", p.workers},
          {"server_ranks", p.server_ranks},
          {"staleness_bound", p.staleness_bound},
          {"partitions", p.partitions},
          {"partition_bytes", p.partition_bytes},
          {"assignment", p.assignment},
          {"sparse_rows", p.sparse_rows},
          {"row_bytes", p.row_bytes},
          {"lr", p.lr},
          {"push_min_us", p.push_us.min},
          {"push_p50_us", p.push_us.p50},
          {"push_p99_us", p.push_us.p99},
          {"push_max_us", p.push_us.max},
          {"pull_min_us", p.pull_us.min},
          {"pull_p50_us", p.pull_us.p50},
          {"pull_p99_us", p.pull_us.p99},
          {"pull_max_us", p.pull_us.max},
          {"goodput_worker_gbps", p.goodput_worker_gbps},
          {"goodput_server_gbps", p.goodput_server_gbps},
          {"server_ingress_bytes_per_step", p.server_ingress_bytes_per_step},
          {"server_egress_bytes_per_step", p.server_egress_bytes_per_step},
          {"server_bytes_imbalance", p.server_bytes_imbalance},
          {"server_ingress_imbalance", p.server_ingress_imbalance},
          {"wait_mean_us", p.wait_us.mean},
          {"wait_p99_us", p.wait_us.p99},
          {"staleness_max", p.staleness_max},
          {"staleness_mean", p.staleness_mean},
          {"worker_sent_bytes_per_step", p.worker_sent_bytes_per_step},
          {"worker_received_bytes_per_step", p.worker_received_bytes_per_step},
          {"ring_allreduce_bytes_per_step", p.ring_allreduce_bytes_per_step},
          {"sent_vs_ring", p.sent_vs_ring},
          {"pushes_sent", p.pushes_sent},
          {"pushes_received", p.pushes_received}};
}

std::vector<std::string> ps_columns() {
  ResultRow row;
  row.extra = ps_extra_fields({});
  return field_names(csv_fields(row));
}

namespace {
std::vector<double> numbers(const nlohmann::json& a, double scale = 1) {
  std::vector<double> out;
  for (const auto& v : a) out.push_back(v.get<double>() * scale);
  return out;
}
void append(std::vector<double>& to, const std::vector<double>& from) { to.insert(to.end(), from.begin(), from.end()); }
double mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// Every rank's reports of one mode at one size, decoded once: the workers' steps and
// traffic, the servers' per-server traffic and waits.
struct PsTotals {
  std::vector<std::vector<double>> round_steps;  // per round, every worker's step times
  std::vector<double> step_us, push_us, pull_us, staleness, sent, received, wait_us;
  std::vector<double> ingress, egress, rate;  // per server
  std::map<std::string, std::int64_t> server_staleness;
  std::int64_t pushes_sent = 0, pushes_received = 0;
};

PsTotals add_up_reports(const PsRowInput& in) {
  const PsOptions& o = *in.options;
  const auto nranks = static_cast<std::size_t>(in.roles.nranks);
  const auto S = static_cast<std::size_t>(in.roles.servers);
  PsTotals t;
  t.ingress.assign(S, 0), t.egress.assign(S, 0), t.rate.assign(S, 0);
  const double steps_per_session = static_cast<double>(o.reps.warmup + o.reps.iters);
  const double sessions = static_cast<double>(in.reports.size() / nranks);
  for (std::size_t i = 0; i < in.reports.size(); ++i) {
    const nlohmann::json& r = in.reports[i];
    if (r["role"] == "worker") {
      auto push = numbers(r["push_s"], 1e6), pull = numbers(r["pull_s"], 1e6);
      const std::size_t round = i / nranks;
      if (t.round_steps.size() <= round) t.round_steps.resize(round + 1);
      for (std::size_t k = 0; k < push.size(); ++k) {
        t.step_us.push_back(push[k] + pull[k]);
        t.round_steps[round].push_back(push[k] + pull[k]);
      }
      append(t.push_us, push);
      append(t.pull_us, pull);
      append(t.staleness, numbers(r["staleness"]));
      append(t.sent, numbers(r["bytes_sent"]));
      append(t.received, numbers(r["bytes_received"]));
      t.pushes_sent += r["pushes_sent"].get<std::int64_t>();
    } else {
      const auto s = static_cast<std::size_t>(in.roles.server_index(static_cast<int>(i % nranks)));
      t.ingress[s] += r["ingress_bytes"].get<double>() / steps_per_session / sessions;
      t.egress[s] += r["egress_bytes"].get<double>() / steps_per_session / sessions;
      t.rate[s] += r["ingress_bytes"].get<double>() / std::max(r["elapsed_s"].get<double>(), 1e-12) / 1e9 / sessions;
      append(t.wait_us, numbers(r["pull_wait_s"], 1e6));
      for (auto& [k, v] : r["staleness_counts"].items()) t.server_staleness[k] += v.get<std::int64_t>();
      t.pushes_received += r["pushes_received"].get<std::int64_t>();
    }
  }
  return t;
}

// The parameter server's own columns.
PsRowStats ps_row_stats(const PsRowInput& in, const PsPlan& plan, const PsTotals& t, double step_mean_us) {
  const PsConfig& config = *in.config;
  const PsTensor& tensor = config.tensors.at(0);
  const int W = in.roles.workers(), S = in.roles.servers;
  const std::size_t elem = dtype_size(config.dtype);
  const std::size_t rows_per_step = tensor.sparse ? std::min(in.options->sparse_rows, tensor.rows) : tensor.rows;
  const double gradient_bytes = static_cast<double>(rows_per_step * tensor.row_elements * elem);
  std::string server_ranks;
  for (int s = 0; s < S; ++s) server_ranks += (s ? ";" : "") + std::to_string(in.roles.server_rank(s));
  const double ring = 2.0 * (W - 1) / W * static_cast<double>(in.bytes);
  const double ingress_mean = mean(t.ingress);
  PsRowStats p;
  p.ps_mode = kPsModeNames.name(config.mode);
  p.servers = S;
  p.workers = W;
  p.server_ranks = server_ranks;
  if (config.mode == PsMode::bounded) p.staleness_bound = config.staleness;
  if (config.mode == PsMode::sync) p.staleness_bound = 0;
  p.partitions = plan.partitions.size();
  p.partition_bytes = config.partition_bytes;
  p.assignment = kPsAssignmentNames.name(config.assignment);
  if (tensor.sparse) {
    p.sparse_rows = rows_per_step;
    p.row_bytes = tensor.row_elements * elem;
  }
  p.lr = config.learning_rate;
  p.push_us = summarize(t.push_us);
  p.pull_us = summarize(t.pull_us);
  p.wait_us = summarize(t.wait_us);
  p.goodput_worker_gbps = algbw_gbps(gradient_bytes, step_mean_us * 1e-6);
  p.goodput_server_gbps = mean(t.rate);
  p.server_ingress_bytes_per_step = *std::max_element(t.ingress.begin(), t.ingress.end());
  p.server_egress_bytes_per_step = *std::max_element(t.egress.begin(), t.egress.end());
  p.server_bytes_imbalance = plan.imbalance();
  p.server_ingress_imbalance = ingress_mean > 0 ? p.server_ingress_bytes_per_step / ingress_mean : 1.0;
  p.staleness_max = t.staleness.empty() ? 0.0 : *std::max_element(t.staleness.begin(), t.staleness.end());
  p.staleness_mean = mean(t.staleness);
  p.worker_sent_bytes_per_step = mean(t.sent);
  p.worker_received_bytes_per_step = mean(t.received);
  p.ring_allreduce_bytes_per_step = ring;
  if (ring > 0) p.sent_vs_ring = mean(t.sent) / ring;
  p.pushes_sent = t.pushes_sent;
  p.pushes_received = t.pushes_received;
  return p;
}

}  // namespace

ResultRow ps_result_row(const PsRowInput& in) {
  const PsOptions& o = *in.options;
  const PsConfig& config = *in.config;
  const PsPlan plan = make_ps_plan(config, in.roles.servers);
  const PsTotals t = add_up_reports(in);
  ResultRow row{.collective = "ps",
                .algorithm = in.mode->name,
                .transport = "mpi-p2p",
                .ranks = in.roles.nranks,
                .bytes = in.bytes,
                .count = in.bytes / dtype_size(config.dtype),
                .dtype = std::string(dtype_name(config.dtype)),
                .op = "sum",
                .root = 0,
                .iters = o.reps.iters * o.reps.rounds,
                .errors = in.errors,
                .warmup = o.reps.warmup,
                .rounds = o.reps.rounds,
                .timing = "ps-steps",
                .nodes = in.topology->nodes,
                .ranks_per_node = in.topology->max_ranks_per_node,
                .aggregate = "pooled",  // every worker's steps, as one sample set
                .checked_calls = in.errors >= 0 ? 1 : 0};
  for (const auto& steps : t.round_steps) row.round_mean_us.push_back(mean(steps));
  // algbw: the model's bytes per step (as allreduce's); busbw: what a worker sent per step.
  fill_timing(row, t.step_us, 1);
  row.busbw_gbps = algbw_gbps(mean(t.sent), row.time_us.mean * 1e-6);
  row.extra = ps_extra_fields(ps_row_stats(in, plan, t, row.time_us.mean));
  std::map<std::string, std::int64_t> worker_staleness;
  for (double s : t.staleness) ++worker_staleness[std::to_string(static_cast<std::int64_t>(s))];
  row.details = {{"server_param_bytes", plan.server_bytes},
                 {"server_ingress_bytes_per_step", t.ingress},
                 {"server_egress_bytes_per_step", t.egress},
                 {"server_ingress_gbps", t.rate},
                 {"staleness_histogram_workers", worker_staleness},
                 {"staleness_histogram_servers", t.server_staleness},
                 {"slow_ranks", o.slow_ranks},
                 {"slow_us", o.slow_us}};
  return row;
}

}  // namespace collbench
