// The GPU interface where collbench was built without a CUDA compiler: no GPU, and
// every GPU operation refuses with the reason.
#include <stdexcept>

#include "collectives/gpu.hpp"
#include "collectives/memory_space.hpp"

namespace collbench {
namespace {
[[noreturn]] void refuse() {
  throw std::runtime_error("this collbench was built without CUDA (no nvcc at configure time), so it has no GPU support");
}
}  // namespace

GpuInventory probe_gpus() {
  GpuInventory g;
  g.why_none = "this collbench was built without CUDA (no nvcc at configure time)";
  return g;
}

void gpu_use_device(int) { refuse(); }
DeviceBuffer::DeviceBuffer(std::size_t) { refuse(); }
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&&) noexcept { return *this; }
DeviceBuffer::~DeviceBuffer() = default;
void gpu_copy(void*, const void*, std::size_t) { refuse(); }
GpuStream::GpuStream() { refuse(); }
GpuStream::~GpuStream() = default;
void GpuStream::synchronize() const { refuse(); }
void gpu_reduce(DType, ReduceOp, void*, const void*, const void*, std::size_t, const GpuStream&) { refuse(); }
void gpu_copy_async(void*, const void*, std::size_t, const GpuStream&) { refuse(); }
std::unique_ptr<MemorySpace> make_gpu_space(int) { refuse(); }

}  // namespace collbench
