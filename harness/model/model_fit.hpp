#pragma once
// `collbench model fit`: a cost model file from measurements on this machine or
// cluster: each link class's piecewise alpha and beta from a `collbench p2p` result's
// ping-pong fit (one message at a time, as a step's transfer), half duplex where its
// exchange test takes much longer than ping-pong, and the reduction and copy costs
// timed here (every dtype x op, fitted piecewise over sizes).
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "collectives/dtype.hpp"
#include "harness/common/invocation.hpp"
#include "harness/p2p/alpha_beta.hpp"

namespace collbench {

// {"intra_host": {...}, "inter_host": {...}, "notes": [...]} from a p2p JSON document;
// a class the run did not measure takes the other's values, with a note. Throws
// std::invalid_argument when the document has no p2p fit rows.
nlohmann::json links_from_p2p(const nlohmann::json& p2p, const std::string& path);

// The reduction's (or, op unset, memcpy's) time fitted piecewise over sizes 64 B ..
// max_bytes by bytes of result, as a model file's {"ranges": [...]}: call overhead and
// the fall from cache to memory both show.
inline constexpr std::size_t kTimedBytes = std::size_t{64} << 20;
// `together` runs before each timed call (a barrier: every rank times at once).
nlohmann::json timed_ranges(DType dtype, const ReduceOp* op, std::size_t max_bytes, const std::function<void()>& together);
// The same from given (bytes, us) points.
nlohmann::json fitted_ranges(const std::vector<SizeTime>& points);

struct ModelFitOptions {
  std::string p2p_path, out_path;
  int ranks_per_node = 0;  // 0: the p2p run's largest host
  bool overwrite = false;
};
int run_model_fit(const ModelFitOptions& o, const Invocation& inv);

}  // namespace collbench
