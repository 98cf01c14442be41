#pragma once
// `collbench model fit`: a cost model file from measurements on this machine or
// cluster: each link class's alpha and beta from a `collbench p2p` result (alpha: the
// ping-pong fit of the smallest sizes; beta: the streaming fit of the largest), and the
// reduction and copy rates timed here (every dtype x op, fitted over sizes).
#include <string>

#include <nlohmann/json.hpp>

#include "collectives/dtype.hpp"
#include "harness/common/invocation.hpp"

namespace collbench {

// {"intra_host": {...}, "inter_host": {...}, "notes": [...]} from a p2p JSON document;
// a class the run did not measure takes the other's values, with a note. Throws
// std::invalid_argument when the document has no p2p fit rows.
nlohmann::json links_from_p2p(const nlohmann::json& p2p, const std::string& path);

// Bytes of result per second of the reduction (or, op unset, of memcpy) fitted over
// sizes: t(m) = c + m / rate, so call overhead does not count as bandwidth.
double timed_rate_gbps(DType dtype, const ReduceOp* op);

struct ModelFitOptions {
  std::string p2p_path, out_path;
  int ranks_per_node = 0;  // 0: the p2p run's largest host
  bool overwrite = false;
};
int run_model_fit(const ModelFitOptions& o, const Invocation& inv);

}  // namespace collbench
