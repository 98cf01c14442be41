#pragma once
// `collbench replay`: opens the transport and outputs, then replays the workload.
#include "harness/common/invocation.hpp"
#include "harness/replay/replay_options.hpp"

namespace collbench {

int run_command(ReplayOptions r, const Invocation& inv);

}  // namespace collbench
