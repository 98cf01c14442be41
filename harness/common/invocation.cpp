#include "harness/common/invocation.hpp"

#include <cstdio>

#include "harness/common/exit_status.hpp"

namespace collbench {

int finish_run(const Invocation& inv, ResultSink& sink, std::int64_t wrong, const std::string& blame) {
  sink.finish();
  if (inv.rank == 0) {
    sink.print_paths("results");
    if (wrong > 0 && blame.empty())
      std::fprintf(stderr, "collbench: error: %lld wrong element(s) found; see the errors column\n",
                   static_cast<long long>(wrong));
    else if (wrong > 0)
      std::fprintf(stderr, "collbench: error: %s; see the errors column\n", blame.c_str());
  }
  return wrong > 0 ? kExitWrongResults : 0;
}

}  // namespace collbench
