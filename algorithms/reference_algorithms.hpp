#pragma once
#include "registry.hpp"

namespace collbench {

// Registers every schedule-based reference algorithm.
void register_reference_algorithms(Registry& registry);

}  // namespace collbench
