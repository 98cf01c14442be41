#pragma once
// Turns what every rank of a parameter-server run recorded into result rows.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "algorithms/parameter_server/protocol.hpp"
#include "harness/common/result_row.hpp"
#include "harness/common/topology.hpp"
#include "harness/ps/ps_options.hpp"

namespace collbench {

// One rank's record of one session, as JSON so ranks can send it to rank 0.
// Workers keep only the steps after `warmup`.
nlohmann::json ps_report_json(const PsWorkerReport& report, int warmup);
nlohmann::json ps_report_json(const PsServerReport& report);

// A parameter-server row's own values, after the common columns of ResultRow.
struct PsRowStats {
  std::string ps_mode, server_ranks, assignment;
  int servers = 0, workers = 0;
  nlohmann::json staleness_bound;  // null for async
  std::size_t partitions = 0, partition_bytes = 0;
  nlohmann::json sparse_rows, row_bytes;  // null for a dense model
  double lr = 0;
  Summary push_us, pull_us, wait_us;
  double goodput_worker_gbps = 0, goodput_server_gbps = 0;
  double server_ingress_bytes_per_step = 0, server_egress_bytes_per_step = 0;
  double server_bytes_imbalance = 0, server_ingress_imbalance = 0;
  double staleness_max = 0, staleness_mean = 0;
  double worker_sent_bytes_per_step = 0, worker_received_bytes_per_step = 0, ring_allreduce_bytes_per_step = 0;
  nlohmann::json sent_vs_ring;  // null when ring sends nothing (one worker)
  std::int64_t pushes_sent = 0, pushes_received = 0;
};
Fields ps_extra_fields(const PsRowStats& stats);
// Every column of a ps run's CSV: the common ones, then the parameter server's.
std::vector<std::string> ps_columns();

struct PsRowInput {
  const PsOptions* options = nullptr;
  const ProtocolEntry* mode = nullptr;
  const PsConfig* config = nullptr;
  PsRoles roles;
  std::size_t bytes = 0;                // the model (dense) or the whole table (sparse)
  std::vector<nlohmann::json> reports;  // every rank's, every round
  std::int64_t errors = -1;
  const Topology* topology = nullptr;
};
ResultRow ps_result_row(const PsRowInput& in);

}  // namespace collbench
