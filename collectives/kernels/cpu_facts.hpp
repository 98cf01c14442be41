#pragma once
// What a result needs to say about the CPU it came from: model, the ISA features the
// kernels care about, cache sizes, the kernel path taken, and the memory bandwidth one
// core gets (a short STREAM-like triad).
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace collbench {

struct CpuFacts {
  std::string model;                                         // /proc/cpuinfo's "model name"
  std::vector<std::string> features;                         // of kKernelFeatures, those the CPU has
  std::vector<std::pair<std::string, std::size_t>> caches;   // "L1d", "L2", "L3" -> bytes (cpu0's view)
  std::size_t last_level_cache_bytes = 0;
};

// The /proc/cpuinfo flags that decide or would decide a kernel path.
inline constexpr const char* kKernelFeatures[] = {"avx2",     "f16c",        "avx512f",     "avx512bw", "avx512vl",
                                                  "avx512dq", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16"};

const CpuFacts& cpu_facts();  // read once, then cached

struct TriadResult {
  double gb_per_s = 0;        // best of the repetitions, 3 x array bytes per pass (STREAM's count)
  std::size_t array_bytes = 0;  // each of the three arrays
  int repetitions = 0;
};
// STREAM's triad a = b + s c on doubles, arrays of twice the last-level cache each
// (16 MiB to 512 MiB), best of 5 passes after one that faults the pages in: about
// 0.1-0.3 s. On the calling thread only.
TriadResult measure_triad();

}  // namespace collbench
