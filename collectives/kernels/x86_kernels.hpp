#pragma once
// The x86 clones of the reductions, internal to reduce_kernels.cpp, which calls each only
// after the CPU has shown it has the ISA. `stream` writes dst with non-temporal stores
// past the head that aligns it (or not at all, where no element boundary aligns it).
#include <cstddef>

#include "collectives/dtype.hpp"

namespace collbench::detail {

// Past the cache, the kernels prefetch their inputs this far ahead: the hardware
// prefetcher alone left the 16-bit kernels behind memcpy (results/README.md, "Figures
// from earlier code comments"). At 64 MiB on an AMD EPYC (Zen 5), AVX-512, 3 interleaved
// runs, medians in GB/s for 1, 2, 4 and 8 KiB ahead: f32 sum 56.6, 59.7, 60.4, 51.8;
// bf16 sum 50.7, 55.1, 59.9, 55.0 (memcpy 47.8).
constexpr std::size_t kStreamPrefetchBytes = 4096;

// AVX2 + F16C (x86_avx2_kernels.cpp).
void reduce_avx2(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t n, bool stream);
// AVX-512 F/BW/VL (x86_avx512_kernels.cpp).
void reduce_avx512(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t n, bool stream);
// The same with bf16 rounded by AVX512_BF16 (x86_avx512_bf16_kernels.cpp).
void reduce_avx512_bf16(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t n, bool stream);

// f16 and bf16 with AVX2 (and F16C for f16), 16 elements per iteration, widened to f32
// in registers, reduced, rounded once to nearest even and narrowed back, bit for bit
// what the portable path computes. Reduces whole groups of 16 elements and returns how
// many elements it handled; the caller does the rest. `stream` needs dst 32-byte
// aligned (half_kernels_x86.cpp).
std::size_t reduce_half_avx2(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t n, bool stream);

}  // namespace collbench::detail
