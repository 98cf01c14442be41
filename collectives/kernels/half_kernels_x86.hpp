#pragma once
// f16 and bf16 reductions with AVX2 (and F16C for f16): 16 elements per iteration,
// widened to f32 in registers, reduced, rounded once to nearest even and narrowed
// back, bit for bit what the portable path computes. Internal to reduce_kernels.cpp.
#include <cstddef>

#include "collectives/dtype.hpp"

namespace collbench::detail {

// Past the cache, the kernels prefetch their inputs this far ahead: the hardware
// prefetcher alone left the 16-bit kernels behind memcpy (results/README.md, "Figures
// from earlier code comments").
constexpr std::size_t kStreamPrefetchBytes = 1024;

// Reduces whole groups of 16 elements and returns how many elements it handled (a
// multiple of 16; the caller does the rest). `stream` writes dst with non-temporal
// stores and needs dst 32-byte aligned. Only for f16 and bf16, on CPUs with AVX2+F16C.
std::size_t reduce_half_avx2(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t n, bool stream);

}  // namespace collbench::detail
