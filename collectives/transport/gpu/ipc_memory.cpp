// GPU memory shared with the other processes of a node through CUDA IPC: a buffer is
// exported once (cudaIpcGetMemHandle) and each peer opens it once, on first use
// (cudaIpcOpenMemHandle; across GPUs with peer access enabled lazily). The copies out of
// a peer's buffer run on the receiver's stream (the MemorySpace).
#include <cuda_runtime.h>

#include <cstring>
#include <map>
#include <stdexcept>
#include <string>

#include "collectives/transport/exported_memory.hpp"
#include "collectives/transport/gpu/cuda_check.hpp"

namespace collbench {
namespace {

static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(ExportHandle), "a CUDA IPC handle must fit an ExportHandle");

class CudaIpcMemory final : public ExportedMemory {
 public:
  explicit CudaIpcMemory(MemorySpace& space) : space_(space) {}
  CudaIpcMemory(const CudaIpcMemory&) = delete;
  CudaIpcMemory& operator=(const CudaIpcMemory&) = delete;
  // Buffers released go back to a pool, and the pool is never freed: a peer may still
  // have a buffer open, and freeing memory another process has open through IPC is
  // undefined (CUDA's cudaIpcOpenMemHandle). The process's exit frees it.
  ~CudaIpcMemory() override = default;
  std::string_view transport_name() const override { return "cuda-ipc"; }
  MemorySpace& space() override { return space_; }
  void start(const std::string&, int) override {}
  ExportedBuffer allocate(std::size_t bytes) override {
    Block b;
    // Reuse a released block of at most twice the size (same id, so peers' mappings hold).
    auto it = spare_.lower_bound(bytes);
    if (it != spare_.end() && it->first <= 2 * std::max<std::size_t>(bytes, 4096)) {
      b = it->second;
      spare_.erase(it);
    } else {
      void* p = nullptr;
      b.capacity = std::max<std::size_t>(bytes, 1);
      cuda_check(cudaMalloc(&p, b.capacity), "cuda-ipc transport: cudaMalloc");
      b.base = static_cast<std::byte*>(p);
      cudaIpcMemHandle_t h;
      cuda_check(cudaIpcGetMemHandle(&h, p), "cuda-ipc transport: cudaIpcGetMemHandle");
      std::memcpy(b.handle.data(), &h, sizeof h);
      b.id = next_id_++;
    }
    // Ordered before the stream's later work, as the space's own buffers are.
    cuda_check(cudaMemsetAsync(b.base, 0, bytes, static_cast<cudaStream_t>(space_.native_stream())),
               "cuda-ipc transport: cudaMemsetAsync");
    return {OwnedBuffer(b.base, bytes, [this, b](std::byte*, std::size_t) { spare_.emplace(b.capacity, b); }), b.id,
            b.handle};
  }
  const std::byte* map(int peer, std::uint64_t id, const ExportHandle& handle) override {
    cudaIpcMemHandle_t h;
    std::memcpy(&h, handle.data(), sizeof h);
    void* p = nullptr;
    const cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess)
      throw std::runtime_error("cuda-ipc transport: cannot open buffer " + std::to_string(id) + " of rank " +
                               std::to_string(peer) + ": " + cudaGetErrorString(e));
    return static_cast<const std::byte*>(p);
  }
  void unmap(const std::byte* mapped) noexcept override { cudaIpcCloseMemHandle(const_cast<std::byte*>(mapped)); }

 private:
  struct Block {
    std::byte* base = nullptr;
    std::size_t capacity = 0;
    std::uint64_t id = 0;
    ExportHandle handle{};
  };
  MemorySpace& space_;
  std::uint64_t next_id_ = 1;
  std::multimap<std::size_t, Block> spare_;  // by capacity
};

}  // namespace

std::unique_ptr<ExportedMemory> make_cuda_ipc_memory(MemorySpace& gpu_space) {
  if (gpu_space.kind() != MemoryKind::device) throw std::logic_error("cuda-ipc needs a GPU's memory space");
  return std::make_unique<CudaIpcMemory>(gpu_space);
}

}  // namespace collbench
