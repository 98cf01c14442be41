#pragma once
// `collbench model fit`: a cost model file from measurements on this machine or
// cluster: each link class's piecewise alpha and beta from a `collbench p2p` result's
// ping-pong fit (one message at a time, as a step's transfer), half duplex where its
// exchange test takes much longer than ping-pong, and the reduction and copy costs
// timed here (every dtype x op, fitted piecewise over sizes).
#include <functional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "collectives/cost_model/link_fit.hpp"
#include "harness/common/invocation.hpp"

namespace collbench {

struct ModelFitOptions {
  std::string p2p_path, out_path;
  int ranks_per_node = 0;  // 0: the p2p run's largest host
  bool overwrite = false;
};
int run_command(const ModelFitOptions& o, const Invocation& inv);

// The p2p result's text as {document, links} (links_from_p2p); throws RunError naming
// the file where it is not a p2p result with fit rows.
std::pair<nlohmann::json, nlohmann::json> read_p2p_text(const std::string& text, const std::string& path);
// The model file from the p2p result read and the reduction and copy costs timed here
// (fitted_ranges: copy, and reductions by "dtype:op"); throws RunError naming --p2p
// where the result holds a field of the wrong type.
nlohmann::json model_from_p2p(const nlohmann::json& doc, const nlohmann::json& links, const nlohmann::json& copy,
                              const nlohmann::json& reductions, const ModelFitOptions& o, int fit_ranks);

}  // namespace collbench
