#pragma once
// NCCL's own collectives as the `nccl` algorithm of each collective.
#include "collectives/schedule/registry.hpp"

namespace collbench {

// Adds `nccl` (library "nccl") for every collective: NCCL's own collective on device
// memory, over --transport nccl (collectives/transport/gpu/nccl.hpp runs it).
void register_nccl_baselines(Registry& registry);

}  // namespace collbench
