// A cost-model file (collbench model --model FILE.json), and the parameters a
// prediction takes from it.
#include "collectives/cost_model/model_file.hpp"
#include "tests/fuzz/fuzz_input.hpp"

using namespace collbench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::as_file(data, size, ".json");
  fuzz::refusals_allowed([&] {
    const CostModelFile m = load_model(path);
    cost_params(m, DType::bf16, ReduceOp::sum);
  });
  return 0;
}
