#pragma once
// Fitting a cost model's pieces from measurements: each link class's piecewise alpha
// and beta from a `collbench p2p` result (ping-pong as one message at a time, the
// exchange test for both ways at once), and reduction and copy costs timed here.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/cost_model/alpha_beta.hpp"
#include "collectives/dtype.hpp"
#include "collectives/process/page_bytes.hpp"

namespace collbench {

// {"intra_host": {...}, "inter_host": {...}, "notes": [...]} from a p2p JSON document;
// a class the run did not measure takes the other's values, with a note. Throws
// std::invalid_argument when the document has no p2p fit rows.
nlohmann::json links_from_p2p(const nlohmann::json& p2p, const std::string& path);

// A p2p row's field, or null where the row has none (or is no object): operator[] on a
// const object is undefined for a missing key (nlohmann asserts only in debug builds),
// and a row of a file read back is whatever the file holds. get<double>() on the null
// throws a type_error, which the reader turns into one message.
const nlohmann::json& json_field(const nlohmann::json& row, const char* key);

// The reduction's (or, op unset, memcpy's) time fitted piecewise over sizes 64 B ..
// max_bytes by bytes of result, as a model file's {"ranges": [...]}: call overhead and
// the fall from cache to memory both show.
inline constexpr std::size_t kTimedBytes = std::size_t{64} << 20;
// The operands and result of the timed calls, allocated (and their pages touched) once
// for every dtype and operation timed: 25 fresh sets of 3 x 64 MiB cost `model fit`
// 15 s of zeroing and page faults on a 2-core VM.
class KernelTimer {
 public:
  explicit KernelTimer(std::size_t max_bytes);
  // `together` runs before each timed call (a barrier: every rank times at once).
  nlohmann::json timed_ranges(DType dtype, const ReduceOp* op, const std::function<void()>& together);

 private:
  PageBytes a_, b_, dst_;
};
// The same from given (bytes, us) points.
nlohmann::json fitted_ranges(const std::vector<SizeTime>& points);

}  // namespace collbench
