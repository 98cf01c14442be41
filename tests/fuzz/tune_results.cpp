// A collbench result read back by `collbench tune` (results of the library's default and
// forced algorithms). Rows are read only from a result of the running library, so the
// seeds name it as this build's library does.
#include "harness/tune/tune_results.hpp"
#include "tests/fuzz/fuzz_input.hpp"

using namespace collbench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::as_file(data, size, ".json");
  fuzz::refusals_allowed([&] { read_tune_results({path}); });
  return 0;
}
