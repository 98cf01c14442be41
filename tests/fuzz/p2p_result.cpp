// A p2p result read back by `collbench model fit --p2p FILE.json`: its links, and the
// model file built from it with fixed reduction and copy costs in place of timed ones.
#include "collectives/dtype.hpp"
#include "harness/model/model_fit.hpp"
#include "tests/fuzz/fuzz_input.hpp"

using namespace collbench;

namespace {
nlohmann::json g_copy, g_reductions;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_copy = fitted_ranges({{64, 0.1}, {65536, 3}, {std::size_t{64} << 20, 4000}});
  for (DType d : kAllDTypes)
    for (ReduceOp op : kAllReduceOps)
      g_reductions[std::string(dtype_name(d)) + ":" + std::string(reduce_op_name(op))] = g_copy;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::refusals_allowed([&] {
    const auto [doc, links] = read_p2p_text(fuzz::as_text(data, size), "p2p.json");
    model_from_p2p(doc, links, g_copy, g_reductions, {"p2p.json", "model.json"}, 2);
  });
  return 0;
}
