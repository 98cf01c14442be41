// collbench-kernels: the local reduction kernels for every dtype and op next to a
// memcpy baseline on the same buffer sizes (on a visible GPU also the device kernels:
// gpu_kernels_benchmark.cpp). Bytes per second count every byte read or written, as
// STREAM does: 2 per buffer byte for memcpy (read, write) and 3 for a reduction
// dst = a op b (two reads, one write). `reduce/DTYPE/OP` is the path reduce() takes
// (the label names it); with --every-path also `path/ISA/STORES/DTYPE/OP` for every
// path the CPU runs, with ordinary and with streaming stores. `paired/DTYPE/OP` times
// memcpy, f32 and DTYPE alternately within each iteration and reports the ratios as
// counters (paired_bench): the comparison that holds on a noisy machine. The sizes are 4 KiB,
// 256 KiB, 4 MiB, 64 MiB and the first power of two at least twice the last-level cache.
// The context records the CPU (model, features, caches, triad bandwidth).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/kernels/cpu_facts.hpp"

#include "collectives/kernels/dtype_visit.hpp"
#include "collectives/kernels/reduce_kernels.hpp"
#include "harness/common/stats.hpp"
#include "harness/tools/gpu_kernels_benchmark.hpp"

using namespace collbench;

namespace {

std::vector<long> sizes() {
  std::vector<long> s = {4 << 10, 256 << 10, 4 << 20, 64 << 20};
  long above = 1;
  while (static_cast<std::size_t>(above) < 2 * cpu_facts().last_level_cache_bytes) above *= 2;
  if (std::find(s.begin(), s.end(), above) == s.end()) s.push_back(above);
  return s;
}

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

std::vector<unsigned char> ones(DType t, std::size_t bytes) {
  std::vector<unsigned char> v(bytes);
  fill_ones(t, v.data(), bytes);
  return v;
}

// `isa` null: reduce() itself.
void reduce_bench(benchmark::State& state, DType t, ReduceOp op, const KernelIsa* isa, Streaming streaming) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const std::size_t n = bytes / dtype_size(t);
  const std::vector<unsigned char> a = ones(t, bytes), b = ones(t, bytes);
  std::vector<unsigned char> dst(bytes, 0);
  for (auto _ : state) {
    if (isa)
      reduce_with(*isa, streaming, t, op, dst.data(), a.data(), b.data(), n);
    else
      reduce(t, op, dst.data(), a.data(), b.data(), n);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(3 * bytes));
  const bool streamed = isa ? streaming == Streaming::always : bytes >= reduce_streaming_min_bytes();
  state.SetLabel(std::string(isa ? kernel_isa_name(*isa) : reduce_kernel_isa()) + (streamed ? ",streaming" : ""));
}

// One iteration times memcpy, reduce() on f32 with the same op (16-bit dtypes) and
// reduce() on `t`, back to back on buffers of the same size, in an order that rotates
// each iteration; counters are the medians of the per-iteration ratios of bytes/s.
// Benchmarks seconds apart see this machine's memory bandwidth move by 10% or more
// (shared host); calls milliseconds apart see nearly the same machine.
void paired_bench(benchmark::State& state, DType t, ReduceOp op) {
  using Clock = std::chrono::steady_clock;
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const bool vs_f32 = t == DType::f16 || t == DType::bf16;
  const std::vector<unsigned char> a = ones(t, bytes), b = ones(t, bytes);
  const std::vector<unsigned char> a32 = vs_f32 ? ones(DType::f32, bytes) : std::vector<unsigned char>{};
  const std::vector<unsigned char> b32 = vs_f32 ? ones(DType::f32, bytes) : std::vector<unsigned char>{};
  std::vector<unsigned char> dst(bytes, 0);
  auto timed = [&](auto&& call) {
    const auto start = Clock::now();
    call();
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  const std::function<void()> calls[] = {
      [&] { std::memcpy(dst.data(), a.data(), bytes); },
      [&] { reduce(t, op, dst.data(), a.data(), b.data(), bytes / dtype_size(t)); },
      [&] { reduce(DType::f32, op, dst.data(), a32.data(), b32.data(), bytes / 4); },
  };
  const std::size_t kinds = vs_f32 ? 3 : 2;
  std::vector<double> over_memcpy, over_f32;
  std::size_t round = 0;
  for (auto _ : state) {
    double seconds[3] = {};
    for (std::size_t k = 0; k < kinds; ++k) {
      const std::size_t which = (round + k) % kinds;
      seconds[which] = timed(calls[which]);
    }
    ++round;
    // bytes/s: memcpy moves 2 bytes per buffer byte, a reduction 3.
    over_memcpy.push_back((3 / seconds[1]) / (2 / seconds[0]));
    if (vs_f32) over_f32.push_back(seconds[2] / seconds[1]);
  }
  state.counters["over_memcpy"] = percentile(over_memcpy, 50);
  if (vs_f32) state.counters["over_f32"] = percentile(over_f32, 50);
  state.counters["pairs"] = static_cast<double>(over_memcpy.size());
  state.SetLabel(reduce_kernel_isa());
}

void add_cpu_context() {
  const CpuFacts& f = cpu_facts();
  benchmark::AddCustomContext("cpu_model", f.model);
  // Each list space-separated (appended piece by piece: GCC 12 -O3 warns falsely,
  // -Wrestrict, on "a" + b + c here).
  std::string features, caches, paths;
  auto add = [](std::string& list, std::string_view item) {
    if (!list.empty()) list += ' ';
    list += item;
  };
  for (const auto& x : f.features) add(features, x);
  for (const auto& [name, bytes] : f.caches) add(caches, name + "=" + std::to_string(bytes >> 10) + "K");
  for (KernelIsa isa : kernel_isas_available()) add(paths, kernel_isa_name(isa));
  benchmark::AddCustomContext("cpu_kernel_features", features);
  benchmark::AddCustomContext("cpu_caches", caches);
  benchmark::AddCustomContext("kernel_path", reduce_kernel_isa());
  benchmark::AddCustomContext("kernel_paths_available", paths);
  benchmark::AddCustomContext("streaming_stores_from_bytes", std::to_string(reduce_streaming_min_bytes()));
  const TriadResult t = measure_triad();
  benchmark::AddCustomContext("triad_gb_per_s", std::to_string(t.gb_per_s));
  benchmark::AddCustomContext("triad_array_bytes", std::to_string(t.array_bytes));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    reduce_kernel_path();  // a COLLBENCH_KERNEL_ISA this CPU cannot run: one message, exit 2
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "collbench: error: %s\n", e.what());  // the one form every tool refuses with
    return 2;
  }
  // --every-path is ours: taken out before Google Benchmark reads the rest.
  const bool every_path = std::any_of(argv + 1, argv + argc, [](const char* a) { return std::string(a) == "--every-path"; });
  argc = static_cast<int>(std::remove_if(argv + 1, argv + argc, [](const char* a) { return std::string(a) == "--every-path"; }) - argv);
  const std::vector<long> kSizes = sizes();
  for (long s : kSizes) benchmark::RegisterBenchmark("memcpy", memcpy_bench)->Arg(s);
  for (DType t : kAllDTypes)
    for (ReduceOp op : kAllReduceOps) {
      const std::string what = std::string(dtype_name(t)) + "/" + std::string(reduce_op_name(op));
      auto* b = benchmark::RegisterBenchmark(("reduce/" + what).c_str(), reduce_bench, t, op, nullptr, Streaming::automatic);
      for (long s : kSizes) b->Arg(s);
      auto* paired = benchmark::RegisterBenchmark(("paired/" + what).c_str(), paired_bench, t, op);
      for (long s : kSizes) paired->Arg(s);
      if (!every_path) continue;
      for (const KernelIsa& isa : kernel_isas_available())
        for (Streaming st : {Streaming::never, Streaming::always}) {
          if (isa == KernelIsa::portable && st == Streaming::always) continue;  // it has no streaming stores
          const std::string name = "path/" + std::string(kernel_isa_name(isa)) +
                                   (st == Streaming::always ? "/streaming/" : "/cached/") + what;
          auto* p = benchmark::RegisterBenchmark(name.c_str(), reduce_bench, t, op, &isa, st);
          for (long s : kSizes) p->Arg(s);
        }
    }
  add_cpu_context();
  register_gpu_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
