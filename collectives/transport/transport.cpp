#include "collectives/transport/transport.hpp"

#include "collectives/transport/memory_space.hpp"

namespace collbench {

OwnedBuffer Transport::allocate(std::size_t bytes) { return memory().allocate(bytes); }

MemorySpace& Transport::memory() { return host_space(); }

}  // namespace collbench
