#pragma once
// Where a run's buffers live, and how local work on them runs: the host, where the
// executor's reductions and copies happen at once, or a GPU (collectives/transport/gpu/), where
// they are queued on the rank's stream and happen in order. Transports say which space
// their buffers are in (Transport::memory); the executor queues its operations there and
// waits for them before a call returns; a transport that stages device data through the
// host copies it out and in here.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "collectives/dtype.hpp"
#include "collectives/transport/gpu/gpu.hpp"
#include "collectives/transport/transport.hpp"

namespace collbench {

class MemorySpace {
 public:
  virtual ~MemorySpace() = default;
  virtual MemoryKind kind() const = 0;
  virtual std::string_view name() const = 0;  // for rows and metadata: "host", "cuda:0"
  // Buffer memory of this space, zeroed.
  virtual OwnedBuffer allocate(std::size_t bytes) = 0;
  // Host memory that copies in and out of this space are fastest from (pinned for a GPU).
  virtual OwnedBuffer allocate_staging(std::size_t bytes) = 0;
  // Host to this space and back: after everything queued before, done on return.
  virtual void copy_in(void* dst, const void* host_src, std::size_t bytes) = 0;
  virtual void copy_out(void* host_dst, const void* src, std::size_t bytes) = 0;
  // Queued in order (on the host: done at once). dst may alias a or b exactly; a copy's
  // regions are disjoint (as schedules write them: a GPU's copy engine would not
  // handle an overlap).
  virtual void reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count) = 0;
  virtual void copy(void* dst, const void* src, std::size_t bytes) = 0;
  // Returns when everything queued is done.
  virtual void synchronize() = 0;
  // A point in the queue (after everything queued so far), and whether the work before it
  // is done, without waiting: how a transport learns that a copy out of a peer's buffer
  // has finished and the peer may reuse it. Marks are reached in the order they were made.
  virtual std::uint64_t mark() = 0;
  virtual bool reached(std::uint64_t mark) = 0;
  // The queue's native handle (a GPU's cudaStream_t), for libraries that queue work on it
  // (NCCL); nullptr for the host.
  virtual void* native_stream() { return nullptr; }
};

// The host: page-aligned heap memory, the host kernels.
MemorySpace& host_space();

// Writes `bytes` at `data` in `space` with `write(host pointer)`: in place on the host,
// through the host copy `mirror` for device memory.
template <class Write>
void write_via_host(MemorySpace& space, std::byte* data, std::size_t bytes, std::vector<std::byte>& mirror,
                    const Write& write) {
  if (space.kind() == MemoryKind::host) return write(data);
  mirror.resize(bytes);
  write(mirror.data());
  space.copy_in(data, mirror.data(), bytes);
}
// The `bytes` at `data` in `space`, readable on the host (in place, or copied into `mirror`).
inline const std::byte* read_via_host(MemorySpace& space, const std::byte* data, std::size_t bytes,
                                      std::vector<std::byte>& mirror) {
  if (space.kind() == MemoryKind::host) return data;
  mirror.resize(bytes);
  space.copy_out(mirror.data(), data, bytes);
  return mirror.data();
}

// A GPU's memory, with its kernels on a stream of its own; makes `device` the calling
// thread's current GPU. Throws std::runtime_error where collbench has no CUDA or the GPU
// cannot be used.
std::unique_ptr<MemorySpace> make_gpu_space(int device);

}  // namespace collbench
