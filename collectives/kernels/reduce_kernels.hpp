#pragma once
// The CPU's reductions, dst = a op b, for every dtype and op: the fastest clone this CPU
// runs, chosen once per process, every clone callable by name for tests and benchmarks.
#include <cstddef>
#include <span>
#include <string_view>

#include "collectives/dtype.hpp"

namespace collbench {

// The instruction sets a reduction can be compiled for, slowest first.
enum class KernelIsa {
  portable,     // plain C++ (whatever the compiler's baseline allows)
  avx2,         // AVX2 + F16C, 256-bit
  avx512,       // AVX-512 F/BW/VL, 512-bit, f16 through AVX-512F's 16-lane conversions
  avx512_bf16,  // the same, bf16 rounded by AVX512_BF16's vcvtne2ps2bf16
};
std::string_view kernel_isa_name(KernelIsa isa);  // "portable", "avx2+f16c", "avx512", "avx512+bf16"
// Every path this CPU can run, slowest first: the last is the one reduce() takes unless
// COLLBENCH_KERNEL_ISA names another.
std::span<const KernelIsa> kernel_isas_available();

// When outputs bypass the cache with non-temporal stores.
enum class Streaming {
  automatic,  // when a, b and dst together exceed the last-level cache (reduce_streaming_min_bytes), not in place
  never,
  always,  // whenever the destination can be aligned (tests, and measuring both ways)
};

// dst[i] = a[i] op b[i] for i < count. dst may alias a or b exactly (in-place); no
// other overlap is allowed. 16-bit floats are computed in f32 and rounded once. Every
// path gives the same bits.
void reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count);
// The same on a named path (one of kernel_isas_available()).
void reduce_with(KernelIsa isa, Streaming streaming, DType t, ReduceOp op, void* dst, const void* a, const void* b,
                 std::size_t count);
inline void reduce_portable(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count) {
  reduce_with(KernelIsa::portable, Streaming::never, t, op, dst, a, b, count);
}

// Outputs of at least this many bytes take the streaming path (a third of the
// last-level cache, read from sysfs).
std::size_t reduce_streaming_min_bytes();

// The path reduce() takes in this process: the fastest available, or the one
// COLLBENCH_KERNEL_ISA names (an unavailable or unknown name throws
// std::invalid_argument on first use, listing the available ones).
KernelIsa reduce_kernel_path();
// Its name, for labels and metadata.
const char* reduce_kernel_isa();

}  // namespace collbench
