// How tokens pick experts (--routing, --counts moe:E:ROUTING): the first byte picks the
// expert count (1 to 64) and whether the rest is a spelling (zipf:S[:SEED], hot:E:SHARE,
// ...) or a FILE.csv histogram; the same spelling also goes through --counts moe:E:...
#include "tests/fuzz/fuzz_input.hpp"
#include "workloads/input_files.hpp"
#include "workloads/traffic.hpp"

using namespace collbench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int experts = 1 + data[0] % 64;
  const std::string routing =
      data[0] & 64 ? fuzz::as_file(data + 1, size - 1, ".csv") : fuzz::as_text(data + 1, size - 1);
  forget_input_files();
  fuzz::refusals_allowed([&] { parse_popularity(routing, experts, "expert"); });
  forget_input_files();
  fuzz::refusals_allowed([&] {
    const int ranks = 1 + data[0] % 4;
    parse_traffic_pattern("moe:" + std::to_string(experts * ranks) + ":" + routing, ranks);
  });
  return 0;
}
