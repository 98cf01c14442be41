#pragma once
// `collbench model fit`: a cost model file from measurements on this machine or
// cluster: each link class's piecewise alpha and beta from a `collbench p2p` result's
// ping-pong fit (one message at a time, as a step's transfer), half duplex where its
// exchange test takes much longer than ping-pong, and the reduction and copy costs
// timed here (every dtype x op, fitted piecewise over sizes).
#include <functional>
#include <string>

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

}  // namespace collbench
