#include "harness/common/invocation.hpp"

#include <cstdio>

namespace collbench {

void print_results(const OutputOptions& out, const char* what) {
  std::printf("# %s: %s and %s\n", what, out.csv_path.c_str(), out.json_path.c_str());
}

int finish_run(const Invocation& inv, const OutputOptions& out, std::int64_t wrong, const std::string& blame) {
  if (inv.rank == 0) {
    print_results(out, "results");
    if (wrong > 0 && blame.empty())
      std::fprintf(stderr, "collbench: error: %lld wrong element(s) found; see the errors column\n",
                   static_cast<long long>(wrong));
    else if (wrong > 0)
      std::fprintf(stderr, "collbench: error: %s; see the errors column\n", blame.c_str());
  }
  return wrong > 0 ? 1 : 0;
}

}  // namespace collbench
