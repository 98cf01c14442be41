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
  return {{"role", "worker"},         {"push_s", push},       {"pull_s", pull},
          {"staleness", stale},       {"bytes_sent", sent},   {"bytes_received", received},
          {"pushes_sent", r.pushes_sent}, {"steps", r.steps.size()}, {"error", r.error}};
}

nlohmann::json ps_report_json(const PsServerReport& r) {
  nlohmann::json stale = nlohmann::json::object();
  for (auto [k, v] : r.staleness_counts) stale[std::to_string(k)] = v;
  return {{"role", "server"},          {"ingress_bytes", r.ingress_bytes}, {"egress_bytes", r.egress_bytes},
          {"pushes_received", r.pushes_received}, {"pulls_served", r.pulls_served},
          {"pull_wait_s", r.pull_wait_s}, {"staleness_counts", stale}, {"elapsed_s", r.elapsed_s},
          {"error", r.error}};
}

std::vector<std::string> ps_extra_columns() {
  return {"ps_mode", "servers", "workers", "server_ranks", "staleness_bound", "partitions", "partition_bytes",
          "assignment", "sparse_rows", "row_bytes", "lr", "push_min_us", "push_p50_us", "push_p99_us", "push_max_us",
          "pull_min_us", "pull_p50_us", "pull_p99_us", "pull_max_us", "goodput_worker_gbps", "goodput_server_gbps",
          "server_ingress_bytes_per_step", "server_egress_bytes_per_step", "server_bytes_imbalance",
          "server_ingress_imbalance", "wait_mean_us", "wait_p99_us", "staleness_max", "staleness_mean",
          "worker_sent_bytes_per_step", "worker_received_bytes_per_step", "ring_allreduce_bytes_per_step",
          "sent_vs_ring", "pushes_sent", "pushes_received"};
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
}  // namespace

ResultRow ps_result_row(const PsRowInput& in) {
  const RunOptions& o = *in.options;
  const PsConfig& config = *in.config;
  const PsPlan plan = make_ps_plan(config, in.roles.servers);
  const int W = in.roles.workers(), S = in.roles.servers;
  const PsTensor& tensor = config.tensors.at(0);
  const std::size_t elem = dtype_size(config.dtype);
  const std::size_t rows_per_step = tensor.sparse ? std::min(o.ps.sparse_rows, tensor.rows) : tensor.rows;
  const double gradient_bytes = static_cast<double>(rows_per_step * tensor.row_elements * elem);

  std::vector<std::vector<double>> round_steps;
  std::vector<double> step_us, push_us, pull_us, staleness, sent, received, wait_us;
  std::vector<double> ingress(static_cast<std::size_t>(S), 0), egress(ingress), rate(ingress);
  std::map<std::string, std::int64_t> server_staleness;
  std::int64_t pushes_sent = 0, pushes_received = 0;
  const std::size_t steps_per_session = static_cast<std::size_t>(o.warmup + o.iters);
  for (std::size_t i = 0; i < in.reports.size(); ++i) {
    const nlohmann::json& r = in.reports[i];
    if (r["role"] == "worker") {
      auto push = numbers(r["push_s"], 1e6), pull = numbers(r["pull_s"], 1e6);
      const std::size_t round = i / static_cast<std::size_t>(in.roles.nranks);
      if (round_steps.size() <= round) round_steps.resize(round + 1);
      for (std::size_t k = 0; k < push.size(); ++k) {
        step_us.push_back(push[k] + pull[k]);
        round_steps[round].push_back(push[k] + pull[k]);
      }
      append(push_us, push);
      append(pull_us, pull);
      append(staleness, numbers(r["staleness"]));
      append(sent, numbers(r["bytes_sent"]));
      append(received, numbers(r["bytes_received"]));
      pushes_sent += r["pushes_sent"].get<std::int64_t>();
    } else {
      const auto s = static_cast<std::size_t>(in.roles.server_index(static_cast<int>(i % static_cast<std::size_t>(in.roles.nranks))));
      const double sessions = static_cast<double>(in.reports.size() / static_cast<std::size_t>(in.roles.nranks));
      ingress[s] += r["ingress_bytes"].get<double>() / static_cast<double>(steps_per_session) / sessions;
      egress[s] += r["egress_bytes"].get<double>() / static_cast<double>(steps_per_session) / sessions;
      rate[s] += r["ingress_bytes"].get<double>() / std::max(r["elapsed_s"].get<double>(), 1e-12) / 1e9 / sessions;
      append(wait_us, numbers(r["pull_wait_s"], 1e6));
      for (auto& [k, v] : r["staleness_counts"].items()) server_staleness[k] += v.get<std::int64_t>();
      pushes_received += r["pushes_received"].get<std::int64_t>();
    }
  }

  ResultRow row;
  row.collective = "ps";
  row.algorithm = in.mode->name;
  row.transport = "mpi-p2p";
  row.ranks = in.roles.nranks;
  row.bytes = in.bytes;
  row.count = in.bytes / elem;
  row.dtype = dtype_name(config.dtype);
  row.op = "sum";
  row.root = 0;
  row.iters = o.iters * o.rounds;
  row.time_us = summarize(step_us);
  for (const auto& steps : round_steps) row.round_mean_us.push_back(mean(steps));
  // algbw: the model's bytes per step (as allreduce's); busbw: what a worker sent per step.
  row.algbw_gbps = algbw_gbps(static_cast<double>(in.bytes), row.time_us.mean * 1e-6);
  row.busbw_gbps = algbw_gbps(mean(sent), row.time_us.mean * 1e-6);
  row.errors = in.errors;
  row.warmup = o.warmup;
  row.rounds = o.rounds;
  row.timing = "ps-steps";
  row.nodes = in.topology->nodes;
  row.ranks_per_node = in.topology->max_ranks_per_node;

  std::string server_ranks;
  for (int s = 0; s < S; ++s) server_ranks += (s ? ";" : "") + std::to_string(in.roles.server_rank(s));
  const Summary push = summarize(push_us), pull = summarize(pull_us), wait = summarize(wait_us);
  const double ring = 2.0 * (W - 1) / W * static_cast<double>(in.bytes);
  const double ingress_mean = mean(ingress);
  nlohmann::json bound = nullptr;
  if (config.mode == PsMode::bounded) bound = config.staleness;
  if (config.mode == PsMode::sync) bound = 0;
  row.extra = {{"ps_mode", ps_mode_name(config.mode)},
               {"servers", S},
               {"workers", W},
               {"server_ranks", server_ranks},
               {"staleness_bound", bound},
               {"partitions", plan.partitions.size()},
               {"partition_bytes", config.partition_bytes},
               {"assignment", ps_assignment_name(config.assignment)},
               {"sparse_rows", tensor.sparse ? nlohmann::json(rows_per_step) : nlohmann::json(nullptr)},
               {"row_bytes", tensor.sparse ? nlohmann::json(tensor.row_elements * elem) : nlohmann::json(nullptr)},
               {"lr", config.learning_rate},
               {"push_min_us", push.min},
               {"push_p50_us", push.p50},
               {"push_p99_us", push.p99},
               {"push_max_us", push.max},
               {"pull_min_us", pull.min},
               {"pull_p50_us", pull.p50},
               {"pull_p99_us", pull.p99},
               {"pull_max_us", pull.max},
               {"goodput_worker_gbps", algbw_gbps(gradient_bytes, row.time_us.mean * 1e-6)},
               {"goodput_server_gbps", mean(rate)},
               {"server_ingress_bytes_per_step", *std::max_element(ingress.begin(), ingress.end())},
               {"server_egress_bytes_per_step", *std::max_element(egress.begin(), egress.end())},
               {"server_bytes_imbalance", plan.imbalance()},
               {"server_ingress_imbalance", ingress_mean > 0 ? *std::max_element(ingress.begin(), ingress.end()) / ingress_mean : 1.0},
               {"wait_mean_us", wait.mean},
               {"wait_p99_us", wait.p99},
               {"staleness_max", staleness.empty() ? 0.0 : *std::max_element(staleness.begin(), staleness.end())},
               {"staleness_mean", mean(staleness)},
               {"worker_sent_bytes_per_step", mean(sent)},
               {"worker_received_bytes_per_step", mean(received)},
               {"ring_allreduce_bytes_per_step", ring},
               {"sent_vs_ring", ring > 0 ? nlohmann::json(mean(sent) / ring) : nlohmann::json(nullptr)},
               {"pushes_sent", pushes_sent},
               {"pushes_received", pushes_received}};
  std::map<std::string, std::int64_t> worker_staleness;
  for (double s : staleness) ++worker_staleness[std::to_string(static_cast<std::int64_t>(s))];
  row.details = {{"server_param_bytes", plan.server_bytes},
                 {"server_ingress_bytes_per_step", ingress},
                 {"server_egress_bytes_per_step", egress},
                 {"server_ingress_gbps", rate},
                 {"staleness_histogram_workers", worker_staleness},
                 {"staleness_histogram_servers", server_staleness},
                 {"slow_ranks", o.ps.slow_ranks},
                 {"slow_us", o.ps.slow_us}};
  return row;
}

}  // namespace collbench
