// A GPU's memory as a MemorySpace: buffers from cudaMalloc, staging from cudaMallocHost
// (pinned, so copies run at the link's speed), and every copy and kernel on one stream,
// so they happen in the order the executor queues them.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "collectives/cuda/reduce_launch.hpp"
#include "collectives/memory_space.hpp"

namespace collbench {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

class CudaSpace final : public MemorySpace {
 public:
  explicit CudaSpace(int device) : name_("cuda:" + std::to_string(device)) {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  CudaSpace(const CudaSpace&) = delete;
  CudaSpace& operator=(const CudaSpace&) = delete;
  ~CudaSpace() override { cudaStreamDestroy(stream_); }
  MemoryKind kind() const override { return MemoryKind::device; }
  std::string_view name() const override { return name_; }
  OwnedBuffer allocate(std::size_t bytes) override {
    void* p = nullptr;
    check(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
    check(cudaMemset(p, 0, bytes), "cudaMemset");
    return {static_cast<std::byte*>(p), bytes, [](std::byte* q, std::size_t) { cudaFree(q); }};
  }
  OwnedBuffer allocate_staging(std::size_t bytes) override {
    void* p = nullptr;
    check(cudaMallocHost(&p, bytes ? bytes : 1), "cudaMallocHost");
    return {static_cast<std::byte*>(p), bytes, [](std::byte* q, std::size_t) { cudaFreeHost(q); }};
  }
  void copy_in(void* dst, const void* src, std::size_t bytes) override {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync (in)");
    synchronize();  // the host memory may be reused at once
  }
  void copy_out(void* dst, const void* src, std::size_t bytes) override {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync (out)");
    synchronize();
  }
  void reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count) override {
    launch_reduce(t, op, dst, a, b, count, stream_);
    check(cudaGetLastError(), "reduction kernel launch");
  }
  void copy(void* dst, const void* src, std::size_t bytes) override {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_), "cudaMemcpyAsync");
  }
  void synchronize() override { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }
  void* native_stream() override { return stream_; }

 private:
  std::string name_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

std::unique_ptr<MemorySpace> make_gpu_space(int device) { return std::make_unique<CudaSpace>(device); }

}  // namespace collbench
