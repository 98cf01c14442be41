// The GPU interface over the CUDA runtime (and NCCL's version, where NCCL was found).
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "collectives/cuda/reduce_launch.hpp"
#include "collectives/gpu.hpp"

#if COLLBENCH_HAVE_NCCL
#include <nccl.h>
#endif

namespace collbench {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

cudaStream_t stream_of(const GpuStream& s) { return static_cast<cudaStream_t>(s.native()); }

}  // namespace

GpuInventory probe_gpus() {
  GpuInventory g;
  g.built_with_cuda = true;
  g.built_with_nccl = COLLBENCH_HAVE_NCCL;
  cudaRuntimeGetVersion(&g.runtime_version);
  if (cudaDriverGetVersion(&g.driver_version) != cudaSuccess) g.driver_version = 0;
#if COLLBENCH_HAVE_NCCL
  if (int v = 0; ncclGetVersion(&v) == ncclSuccess)
    g.nccl_version = std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
#endif
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it for whoever asks next
    g.why_none = std::string(g.driver_version == 0 ? "no NVIDIA driver is loaded" : "the CUDA runtime sees no GPU") +
                 " (cudaGetDeviceCount: " + cudaGetErrorString(e) + ")";
    return g;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    char bus[32] = {};
    cudaDeviceGetPCIBusId(bus, sizeof bus, i);
    g.devices.push_back({i, p.name, bus, p.totalGlobalMem, p.major, p.minor});
  }
  if (g.devices.empty()) g.why_none = "the CUDA runtime lists no GPU";
  return g;
}

void gpu_use_device(int index) { check(cudaSetDevice(index), "cudaSetDevice"); }

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
  data_ = static_cast<std::byte*>(p);
  check(cudaMemset(p, 0, bytes), "cudaMemset");
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (data_) cudaFree(data_);
    data_ = o.data_, bytes_ = o.bytes_;
    o.data_ = nullptr, o.bytes_ = 0;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (data_) cudaFree(data_);
}

void gpu_copy(void* dst, const void* src, std::size_t bytes) {
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
}

GpuStream::GpuStream() {
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  stream_ = s;
}

GpuStream::~GpuStream() {
  if (stream_) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void GpuStream::synchronize() const { check(cudaStreamSynchronize(stream_of(*this)), "cudaStreamSynchronize"); }

void gpu_copy_async(void* dst, const void* src, std::size_t bytes, const GpuStream& stream) {
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_of(stream)), "cudaMemcpyAsync");
}

void gpu_reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count,
                const GpuStream& stream) {
  launch_reduce(t, op, dst, a, b, count, stream.native());
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    throw std::runtime_error(std::string("gpu_reduce: kernel launch: ") + cudaGetErrorString(e));
}

}  // namespace collbench
