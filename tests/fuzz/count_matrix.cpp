// alltoallv's count matrix (--counts FILE.csv): the first byte picks the rank count (1 to
// 16), the rest is the file; a matrix read is then scaled to element counts, as a run does.
#include "tests/fuzz/fuzz_input.hpp"
#include "workloads/input_files.hpp"
#include "workloads/traffic.hpp"

using namespace collbench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int ranks = 1 + data[0] % 16;
  const std::string path = fuzz::as_file(data + 1, size - 1, ".csv");
  forget_input_files();
  fuzz::refusals_allowed([&] {
    const TrafficPattern p = parse_traffic_pattern(path, ranks);
    const SharedCounts counts = scaled_counts(p, std::size_t{1} << 20);
    summarize_traffic(*counts);
  });
  return 0;
}
