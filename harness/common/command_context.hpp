#pragma once
// What every command's resolve_command(flags, context) may consult besides its flags:
// the algorithms, how many ranks there are, this node's limits, and the GPUs (asked
// only for device memory; tests pass their own). Nothing here talks to other ranks.
#include <functional>

#include "collectives/schedule/registry.hpp"
#include "collectives/transport/gpu/gpu.hpp"
#include "harness/common/request_limits.hpp"

namespace collbench {

struct CommandContext {
  const Registry& registry;
  int nranks = 1;
  Machine machine = {};
  std::function<GpuInventory()> probe = probe_gpus;
};

}  // namespace collbench
