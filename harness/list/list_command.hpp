#pragma once
// `collbench list`: the collectives and their algorithms, the protocols, dtypes and
// ops, as text or (--json) for scripts.
#include "harness/common/invocation.hpp"

namespace CLI {
class App;
}

namespace collbench {

struct ListOptions {
  bool json = false;
};
CLI::App* add_list_command(CLI::App& app, ListOptions& o);
int run_list(const ListOptions& o, const Invocation& inv);

}  // namespace collbench
