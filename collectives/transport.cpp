#include "collectives/transport.hpp"

#include <algorithm>
#include <cstring>
#include <new>

namespace collbench {

HostBuffer Transport::allocate(std::size_t bytes) {
  constexpr std::align_val_t kPage{4096};
  auto* p = static_cast<std::byte*>(::operator new(std::max<std::size_t>(bytes, 1), kPage));
  std::memset(p, 0, bytes);
  return {p, bytes, [kPage](std::byte* q, std::size_t) { ::operator delete(q, kPage); }};
}

}  // namespace collbench
