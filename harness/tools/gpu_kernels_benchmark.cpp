// collbench-kernels on the GPU: each reduction kernel next to a device-to-device
// cudaMemcpyAsync of the same buffers, counting bytes as the host benchmarks do (2 per
// buffer byte for the copy, 3 for a reduction). Calls are queued kBatch at a time on
// the GPU's stream and waited for together, so launch and synchronisation costs are spread
// the way a schedule's back-to-back calls spread them.
#include "harness/tools/gpu_kernels_benchmark.hpp"

#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "collectives/kernels/dtype_visit.hpp"
#include "collectives/transport/gpu/gpu.hpp"
#include "collectives/transport/memory_space.hpp"

namespace collbench {
namespace {

constexpr int kBatch = 10;
const std::vector<long> kGpuSizes = {4 << 10, 256 << 10, 4 << 20, 64 << 20, 256 << 20, 1 << 30};

void gpu_copy_bench(benchmark::State& state, MemorySpace* gpu) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const OwnedBuffer src = gpu->allocate(bytes), dst = gpu->allocate(bytes);
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) gpu->copy(dst.data(), src.data(), bytes);
    gpu->synchronize();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * kBatch *
                          static_cast<std::int64_t>(2 * bytes));
}

void gpu_reduce_bench(benchmark::State& state, MemorySpace* gpu, DType t, ReduceOp op) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const std::size_t n = bytes / dtype_size(t);
  // Ones, as on the host: every op stays a normal number.
  std::vector<unsigned char> ones(bytes);
  visit_dtype(t, [&](auto zero) {
    using T = decltype(zero);
    const T one = T(1.0f);
    for (std::size_t i = 0; i < n; ++i) std::memcpy(ones.data() + i * sizeof(T), &one, sizeof(T));
  });
  const OwnedBuffer a = gpu->allocate(bytes), b = gpu->allocate(bytes), dst = gpu->allocate(bytes);
  gpu->copy_in(a.data(), ones.data(), bytes);
  gpu->copy_in(b.data(), ones.data(), bytes);
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) gpu->reduce(t, op, dst.data(), a.data(), b.data(), n);
    gpu->synchronize();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * kBatch *
                          static_cast<std::int64_t>(3 * bytes));
}

}  // namespace

void register_gpu_benchmarks() {
  const GpuInventory gpus = probe_gpus();
  if (gpus.devices.empty()) {
    std::cerr << "collbench-kernels: GPU benchmarks skipped: " << gpus.why_none << "\n";
    return;
  }
  const std::string label = gpus.devices.front().name;
  // GPU 0, its stream, for the whole run (the benchmarks run after this returns).
  static const std::unique_ptr<MemorySpace> gpu = make_gpu_space(0);
  for (long s : kGpuSizes) benchmark::RegisterBenchmark("gpu/copy", gpu_copy_bench, gpu.get())->Arg(s)->UseRealTime();
  for (DType t : kAllDTypes)
    for (ReduceOp op : kAllReduceOps) {
      const std::string name = "gpu/reduce/" + std::string(dtype_name(t)) + "/" + std::string(reduce_op_name(op));
      auto* b = benchmark::RegisterBenchmark(name.c_str(), gpu_reduce_bench, gpu.get(), t, op)->UseRealTime();
      for (long s : kGpuSizes) b->Arg(s);
    }
  benchmark::AddCustomContext("gpu", label);
}

}  // namespace collbench
