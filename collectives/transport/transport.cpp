#include "collectives/transport/transport.hpp"

#include <stdexcept>
#include <string>

#include "collectives/transport/memory_space.hpp"

namespace collbench {

OwnedBuffer Transport::allocate(std::size_t bytes) { return memory().allocate(bytes); }

MemorySpace& Transport::memory() { return host_space(); }

Ticket Transport::start_recv_reduce(const Message&, const ReceiveReduction&) {
  throw std::logic_error("the " + std::string(name()) + " transport does not reduce on receive");
}

}  // namespace collbench
