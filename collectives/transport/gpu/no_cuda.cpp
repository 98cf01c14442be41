// The GPU interface where collbench was built without a CUDA compiler: no GPU, and
// every GPU operation refuses with the reason.
#include <stdexcept>

#include "collectives/transport/exported_memory.hpp"
#include "collectives/transport/gpu/gpu.hpp"
#include "collectives/transport/memory_space.hpp"

namespace collbench {
namespace {
[[noreturn]] void refuse_without_cuda() {
  throw std::runtime_error(
      "this collbench was built without CUDA (no nvcc at configure time), so it has no GPU support");
}
}  // namespace

GpuInventory probe_gpus() {
  GpuInventory g;
  g.why_none = "this collbench was built without CUDA (no nvcc at configure time)";
  return g;
}

std::unique_ptr<MemorySpace> make_gpu_space(int) { refuse_without_cuda(); }

std::unique_ptr<ExportedMemory> make_cuda_ipc_memory(MemorySpace&) { refuse_without_cuda(); }

}  // namespace collbench
