#pragma once
// What a replayed configuration measured, as rows, table lines and a Chrome trace.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/common/result_row.hpp"
#include "harness/common/stats.hpp"
#include "harness/replay/timeline.hpp"
#include "workloads/compute_model.hpp"

namespace collbench {

struct ReplayExchangeInfo {
  std::string name, kind;  // e.g. "bucket 3", "allreduce"
  std::size_t tensors = 0, bytes = 0;
  double ready_ms = 0;
};

// One configuration's measurements, gathered on rank 0.
struct ReplayConfigResult {
  std::string workload, algorithm, bucketing, sparse_strategy, ps_mode;
  int ranks = 0, workers = 0, servers = 0;
  std::vector<ReplayExchangeInfo> exchanges;
  std::vector<std::vector<StepTimeline>> steps;  // [step][worker rank]
  std::vector<std::size_t> comm_bytes;           // per step, rank 0
  std::int64_t errors = -1;                      // -1: not checked
  std::string label() const;
  // The step as the job sees it: the slowest worker's.
  double step_ms(std::size_t s) const;
  double comm_ms(std::size_t s) const;
  double alltoall_ms(std::size_t s) const;          // the all-to-alls' durations, summed (slowest worker)
  double alltoall_exposed_ms(std::size_t s) const;  // compute waiting on them (slowest worker)
};

// What distinguishes one row of a configuration: a timed step (with its round) or the
// configuration's mean (with the spread of its steps).
struct ReplayRowValues {
  nlohmann::json step;  // the timed step's index, or "mean"
  double comm_ms = 0, step_ms = 0, alltoall_ms = 0, alltoall_exposed_ms = 0;
  std::size_t comm_bytes = 0;
  std::optional<Summary> spread;
  std::optional<int> round;
};
Fields replay_fields(const ReplayConfigResult& r, const ComputeModel& compute, const ReplayRowValues& v);
// Every column: the fields of a row that has them all.
std::vector<std::string> replay_columns();
Fields replay_step_fields(const ReplayConfigResult& r, const ComputeModel& compute, std::size_t step, int round);
Fields replay_mean_fields(const ReplayConfigResult& r, const ComputeModel& compute);
// What only the JSON's mean rows carry: each exchange's size, readiness and time.
nlohmann::json replay_details(const ReplayConfigResult& r);

void print_replay_header(const std::string& description, std::size_t tensors, std::size_t parameters, std::size_t bytes,
                         std::size_t sparse, const ComputeModel& compute, bool from_profile, int ranks, int steps,
                         int warmup, int rounds);
std::string replay_line(const ReplayConfigResult& r, const ComputeModel& compute);
void print_replay_winner(const std::vector<ReplayConfigResult>& results, const ComputeModel& compute);

// A Chrome-trace (Perfetto) document: per worker rank, compute and each exchange,
// configurations and steps one after another.
nlohmann::json replay_trace(const std::vector<ReplayConfigResult>& results, const ComputeModel& compute,
                            const std::vector<std::string>& tensor_names);

}  // namespace collbench
