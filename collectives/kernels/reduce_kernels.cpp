#include "collectives/kernels/reduce_kernels.hpp"

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#if COLLBENCH_X86_KERNELS
#include <cpuid.h>
#endif

#include "collectives/kernels/cpu_facts.hpp"
#include "collectives/kernels/portable_kernels.hpp"
#include "collectives/kernels/x86_kernels.hpp"

namespace collbench {
namespace {

[[gnu::flatten]] void reduce_portable_loops(DType t, ReduceOp op, void* d, const void* a, const void* b,
                                            std::size_t n) {
  by_type(t, op, d, a, b, n);
}

std::vector<KernelIsa> detect_isas() {
  std::vector<KernelIsa> isas{KernelIsa::portable};
#if COLLBENCH_X86_KERNELS
  __builtin_cpu_init();
  // F16C from CPUID leaf 1 itself: clang's __builtin_cpu_supports does not know it.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
  if (__builtin_cpu_supports("avx2") && f16c) isas.push_back(KernelIsa::avx2);
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl");
  if (avx512) isas.push_back(KernelIsa::avx512);
  if (avx512 && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bf16"))
    isas.push_back(KernelIsa::avx512_bf16);
#endif
  return isas;
}

// When a, b and dst together exceed the last-level cache, outputs are written with
// non-temporal stores, as glibc's memcpy does past its threshold: this saves the
// read-for-ownership of every destination line. The cache size comes from sysfs
// (cpu_facts): sysconf's figure can be far off in virtual machines (384 MiB for a 32 MiB
// L3 here).
std::size_t llc_bytes() {
  const std::size_t sysfs = cpu_facts().last_level_cache_bytes;
  return sysfs > 0 ? sysfs : std::size_t{32} << 20;
}

KernelIsa chosen_isa() {
  const auto available = kernel_isas_available();
  const char* forced = std::getenv("COLLBENCH_KERNEL_ISA");
  if (forced == nullptr || *forced == '\0') return available.back();
  std::string names;
  for (KernelIsa isa : available) {
    if (kernel_isa_name(isa) == forced) return isa;
    names += (names.empty() ? "" : ", ") + std::string(kernel_isa_name(isa));
  }
  throw std::invalid_argument("COLLBENCH_KERNEL_ISA=" + std::string(forced) + ": this CPU runs " + names);
}

}  // namespace

std::string_view kernel_isa_name(KernelIsa isa) {
  switch (isa) {
    case KernelIsa::portable: return "portable";
    case KernelIsa::avx2: return "avx2+f16c";
    case KernelIsa::avx512: return "avx512";
    case KernelIsa::avx512_bf16: return "avx512+bf16";
  }
  return "?";
}

std::span<const KernelIsa> kernel_isas_available() {
  static const std::vector<KernelIsa> isas = detect_isas();
  return isas;
}

std::size_t reduce_streaming_min_bytes() {
  static const std::size_t bytes = llc_bytes() / 3 + 1;  // a, b and dst together exceed the LLC
  return bytes;
}

void reduce_with(KernelIsa isa, Streaming streaming, DType t, ReduceOp op, void* dst, const void* a, const void* b,
                 std::size_t count) {
  // In place the destination's lines are read anyway: streaming saves no read for
  // ownership there, and evicting lines just read cost 7% at 64 MiB (f32 sum, 2.89 ms
  // with ordinary stores against 3.10 streamed, AMD EPYC Zen 5).
  const bool stream = streaming == Streaming::always ||
                      (streaming == Streaming::automatic && dst != a && dst != b &&
                       count * dtype_size(t) >= reduce_streaming_min_bytes());
  switch (isa) {
    case KernelIsa::portable: return reduce_portable_loops(t, op, dst, a, b, count);
#if COLLBENCH_X86_KERNELS
    case KernelIsa::avx2: return detail::reduce_avx2(t, op, dst, a, b, count, stream);
    case KernelIsa::avx512: return detail::reduce_avx512(t, op, dst, a, b, count, stream);
    case KernelIsa::avx512_bf16: return detail::reduce_avx512_bf16(t, op, dst, a, b, count, stream);
#else
    default: break;
#endif
  }
  throw std::invalid_argument("reduce_with: " + std::string(kernel_isa_name(isa)) + " is not compiled in");
}

KernelIsa reduce_kernel_path() {
  static const KernelIsa isa = chosen_isa();
  return isa;
}

void reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count) {
  reduce_with(reduce_kernel_path(), Streaming::automatic, t, op, dst, a, b, count);
}

const char* reduce_kernel_isa() { return kernel_isa_name(reduce_kernel_path()).data(); }

}  // namespace collbench
