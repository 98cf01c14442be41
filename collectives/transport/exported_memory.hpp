#pragma once
// Buffers that other processes on this node can map, for a transport whose receiver
// copies straight out of its sender's buffer (collectives/transport/mpi/mapped_transport.hpp):
// POSIX shared memory, copied by the CPU (shm_memory.hpp), or GPU memory shared through
// CUDA IPC and copied on the receiver's stream (collectives/transport/gpu/ipc_memory.cpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "collectives/transport/memory_space.hpp"
#include "collectives/transport/transport.hpp"

namespace collbench {

// What a peer needs to map one buffer (a cudaIpcMemHandle_t is 64 bytes).
using ExportHandle = std::array<std::byte, 64>;

struct ExportedBuffer {
  OwnedBuffer memory;
  std::uint64_t id = 0;  // never reused for other memory: peers keep what they mapped by it
  ExportHandle handle{};
};

class ExportedMemory {
 public:
  virtual ~ExportedMemory() = default;
  virtual std::string_view transport_name() const = 0;  // "shm", "cuda-ipc"
  // Where the buffers are: the transport queues its copies there.
  virtual MemorySpace& space() = 0;
  // Once, before anything else: a prefix unique to the job, and this process's rank.
  virtual void start(const std::string& job_prefix, int rank) = 0;
  virtual ExportedBuffer allocate(std::size_t bytes) = 0;  // zeroed
  // Buffer `id` of rank `peer`, mapped for reading; the caller maps each one once.
  virtual const std::byte* map(int peer, std::uint64_t id, const ExportHandle& handle) = 0;
  virtual void unmap(const std::byte* mapped) noexcept = 0;
};

// Device memory of `gpu_space` (a GPU's MemorySpace) shared through CUDA IPC; throws
// std::runtime_error where collbench has no CUDA.
std::unique_ptr<ExportedMemory> make_cuda_ipc_memory(MemorySpace& gpu_space);

}  // namespace collbench
