// collbench-kernels: the local reduction kernels for every dtype and op next to a
// memcpy baseline on the same buffer sizes (on a visible GPU also the device kernels:
// gpu_kernels_benchmark.cpp). Bytes per second count every byte read or written, as
// STREAM does: 2 per buffer byte for memcpy (read, write) and 3 for a reduction
// dst = a op b (two reads, one write).
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include "collectives/kernels/dtype_visit.hpp"
#include "collectives/kernels/reduce_kernels.hpp"
#include "harness/tools/gpu_kernels_benchmark.hpp"

using namespace collbench;

namespace {

const std::vector<long> kSizes = {4 << 10, 256 << 10, 4 << 20, 64 << 20};

void memcpy_bench(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(2 * bytes));
}

void reduce_bench(benchmark::State& state, DType t, ReduceOp op) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const std::size_t n = bytes / dtype_size(t);
  // Ones: sums, products, minima and maxima stay normal numbers in every dtype, so no
  // denormal or overflow handling is timed instead of the kernel.
  std::vector<unsigned char> a(bytes), b(bytes), dst(bytes, 0);
  visit_dtype(t, [&](auto zero) {
    using T = decltype(zero);
    for (std::size_t i = 0; i < n; ++i) {
      const T one = T(1.0f);
      std::memcpy(a.data() + i * sizeof(T), &one, sizeof(T));
      std::memcpy(b.data() + i * sizeof(T), &one, sizeof(T));
    }
  });
  for (auto _ : state) {
    reduce(t, op, dst.data(), a.data(), b.data(), n);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(3 * bytes));
  state.SetLabel(reduce_kernel_isa());
}

}  // namespace

int main(int argc, char** argv) {
  for (long s : kSizes) benchmark::RegisterBenchmark("memcpy", memcpy_bench)->Arg(s);
  for (DType t : kAllDTypes)
    for (ReduceOp op : kAllReduceOps) {
      const std::string name = "reduce/" + std::string(dtype_name(t)) + "/" + std::string(reduce_op_name(op));
      auto* b = benchmark::RegisterBenchmark(name.c_str(), reduce_bench, t, op);
      for (long s : kSizes) b->Arg(s);
    }
  register_gpu_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
