// A GPU's memory as a MemorySpace: buffers from cudaMalloc, staging from cudaMallocHost
// (pinned, so copies run at the link's speed), and every copy and kernel on one stream,
// so they happen in the order the executor queues them.
#include <cuda_runtime.h>

#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/transport/gpu/cuda_check.hpp"
#include "collectives/transport/gpu/reduce_launch.hpp"
#include "collectives/transport/memory_space.hpp"

namespace collbench {
namespace {

class CudaSpace final : public MemorySpace {
 public:
  explicit CudaSpace(int device) : name_("cuda:" + std::to_string(device)) {
    cuda_check(cudaSetDevice(device), "cudaSetDevice");
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  CudaSpace(const CudaSpace&) = delete;
  CudaSpace& operator=(const CudaSpace&) = delete;
  ~CudaSpace() override {
    for (const Mark& m : marks_) cudaEventDestroy(m.event);
    for (cudaEvent_t e : spare_events_) cudaEventDestroy(e);
    cudaStreamDestroy(stream_);
  }
  MemoryKind kind() const override { return MemoryKind::device; }
  std::string_view name() const override { return name_; }
  OwnedBuffer allocate(std::size_t bytes) override {
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
    // On the stream: cudaMemset would not be ordered before this non-blocking stream's work.
    cuda_check(cudaMemsetAsync(p, 0, bytes, stream_), "cudaMemsetAsync");
    return {static_cast<std::byte*>(p), bytes, [](std::byte* q, std::size_t) { cudaFree(q); }};
  }
  OwnedBuffer allocate_staging(std::size_t bytes) override {
    void* p = nullptr;
    cuda_check(cudaMallocHost(&p, bytes ? bytes : 1), "cudaMallocHost");
    return {static_cast<std::byte*>(p), bytes, [](std::byte* q, std::size_t) { cudaFreeHost(q); }};
  }
  void copy_in(void* dst, const void* src, std::size_t bytes) override {
    cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync (in)");
    synchronize();  // the host memory may be reused at once
  }
  void copy_out(void* dst, const void* src, std::size_t bytes) override {
    cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync (out)");
    synchronize();
  }
  void reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count) override {
    launch_reduce(t, op, dst, a, b, count, stream_);
    cuda_check(cudaGetLastError(), "reduction kernel launch");
  }
  void copy(void* dst, const void* src, std::size_t bytes) override {
    // Default: the source may be another GPU's memory, mapped through CUDA IPC.
    cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_), "cudaMemcpyAsync");
  }
  void synchronize() override { cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }
  void* native_stream() override { return stream_; }
  std::uint64_t mark() override {
    cudaEvent_t e = nullptr;
    if (spare_events_.empty()) {
      cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    } else {
      e = spare_events_.back();
      spare_events_.pop_back();
    }
    cuda_check(cudaEventRecord(e, stream_), "cudaEventRecord");
    marks_.push_back({++marked_, e});
    return marked_;
  }
  bool reached(std::uint64_t mark) override {
    while (!marks_.empty()) {
      const cudaError_t q = cudaEventQuery(marks_.front().event);
      if (q == cudaErrorNotReady) break;
      cuda_check(q, "cudaEventQuery");
      reached_ = marks_.front().seq;
      spare_events_.push_back(marks_.front().event);
      marks_.pop_front();
    }
    return reached_ >= mark;
  }

 private:
  struct Mark {
    std::uint64_t seq;
    cudaEvent_t event;
  };
  std::string name_;
  cudaStream_t stream_ = nullptr;
  std::deque<Mark> marks_;  // recorded on the stream, not yet seen done
  std::vector<cudaEvent_t> spare_events_;
  std::uint64_t marked_ = 0, reached_ = 0;
};

}  // namespace

std::unique_ptr<MemorySpace> make_gpu_space(int device) { return std::make_unique<CudaSpace>(device); }

}  // namespace collbench
