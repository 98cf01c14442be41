// nccl.hpp where collbench was built without NCCL: every NCCL request refuses.
#include <stdexcept>

#include "collectives/transport/gpu/nccl.hpp"

namespace collbench {
namespace {
[[noreturn]] void refuse_without_nccl() {
  throw std::runtime_error("this collbench was built without NCCL (no libnccl and nccl.h at configure time)");
}
}  // namespace

std::unique_ptr<Transport> make_nccl_transport(int, int, MemorySpace&, const BroadcastBytes&) { refuse_without_nccl(); }
std::unique_ptr<PreparedCollective> prepare_nccl_collective(const CollectiveCall&, Transport&) {
  refuse_without_nccl();
}

}  // namespace collbench
