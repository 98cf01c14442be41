#pragma once
// Turns what every rank of a parameter-server run recorded into result rows.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/command_line.hpp"
#include "algorithms/parameter_server/protocol.hpp"
#include "harness/common/result_row.hpp"
#include "harness/common/topology.hpp"

namespace collbench {

// One rank's record of one session, as JSON so ranks can send it to rank 0.
// Workers keep only the steps after `warmup`.
nlohmann::json ps_report_json(const PsWorkerReport& report, int warmup);
nlohmann::json ps_report_json(const PsServerReport& report);

// The CSV columns of parameter-server rows, after the common ones.
std::vector<std::string> ps_extra_columns();

struct PsRowInput {
  const RunOptions* options = nullptr;
  const ProtocolEntry* mode = nullptr;
  const PsConfig* config = nullptr;
  PsRoles roles;
  std::size_t bytes = 0;  // the model (dense) or the whole table (sparse)
  std::vector<nlohmann::json> reports;  // every rank's, every round
  std::int64_t errors = -1;
  const Topology* topology = nullptr;
};
ResultRow ps_result_row(const PsRowInput& in);

}  // namespace collbench
