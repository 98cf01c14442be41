#pragma once
// `collbench list`: the collectives and their algorithms, the protocols, dtypes and
// ops, as text or (--json) for scripts.
#include "harness/common/command_context.hpp"
#include "harness/common/invocation.hpp"

namespace CLI {
class App;
}

namespace collbench {

struct ListOptions {
  bool json = false;
};
// `list` has no flag to check: its options are its flags.
CLI::App* add_command(CLI::App& app, ListOptions& o);
ListOptions resolve_command(const ListOptions& o, const CommandContext& c);
int run_command(const ListOptions& o, const Invocation& inv);

}  // namespace collbench
