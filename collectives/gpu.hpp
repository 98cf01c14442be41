#pragma once
// GPUs as collbench sees them, with no CUDA header: collectives/cuda/ implements this
// where nvcc was found at build time, no_cuda.cpp everywhere else (no GPU, and why).
#include <cstddef>
#include <string>
#include <vector>

#include "collectives/dtype.hpp"
#include "collectives/names.hpp"

namespace collbench {

// Where a run's buffers live.
enum class MemoryKind { host, device };
inline constexpr NameTable<MemoryKind, 2> kMemoryKindNames{{{{MemoryKind::host, "host"}, {MemoryKind::device, "device"}}}};

struct GpuDevice {
  int index = 0;
  std::string name, pci_bus_id;
  std::size_t memory_bytes = 0;
  int compute_major = 0, compute_minor = 0;
};

struct GpuInventory {
  bool built_with_cuda = false;
  bool built_with_nccl = false;
  int driver_version = 0;   // CUDA's encoding (13000 is 13.0); 0: no driver
  int runtime_version = 0;  // the CUDA runtime collbench was linked with
  std::string nccl_version;  // the NCCL library loaded, as "2.28.3"; empty: none
  std::vector<GpuDevice> devices;
  std::string why_none;  // where `devices` is empty: what CUDA said
};

// What this process sees: asks the CUDA runtime (no GPU is touched beyond that).
GpuInventory probe_gpus();

// The GPU a rank uses: its index on its node modulo the GPUs it sees, so several ranks
// may share one.
int gpu_of_local_rank(int local_rank, int gpu_count);

// Why device memory cannot be used with `g`, as one sentence; empty where it can.
std::string device_memory_refusal(const GpuInventory& g);

// "13.0" from CUDA's 13000; "none" for 0.
std::string cuda_version_text(int version);

// The GPU work below runs on the calling thread's current device.
void gpu_use_device(int index);

// Device memory of `bytes`, zeroed, freed by its owner.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  DeviceBuffer(DeviceBuffer&& o) noexcept : data_(o.data_), bytes_(o.bytes_) { o.data_ = nullptr, o.bytes_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
  std::byte* data() const { return data_; }
  std::size_t size() const { return bytes_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Copies between host and device memory in either direction, and returns when done.
void gpu_copy(void* dst, const void* src, std::size_t bytes);

// An ordered queue of GPU work (a CUDA stream), destroyed by its owner.
class GpuStream {
 public:
  GpuStream();
  GpuStream(const GpuStream&) = delete;
  GpuStream& operator=(const GpuStream&) = delete;
  ~GpuStream();
  void* native() const { return stream_; }  // the cudaStream_t
  void synchronize() const;

 private:
  void* stream_ = nullptr;
};

// dst[i] = a[i] op b[i] for i < count, in device memory, queued on `stream`: the
// semantics of reduce() (reduce_kernels.hpp), 16-bit floats computed in f32 and rounded
// once; dst may alias a or b exactly.
void gpu_reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count, const GpuStream& stream);
// dst = src, device to device, queued on `stream` (cudaMemcpyAsync): the baseline.
void gpu_copy_async(void* dst, const void* src, std::size_t bytes, const GpuStream& stream);

}  // namespace collbench
