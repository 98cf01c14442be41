#pragma once
// f16 and bf16 with AVX-512 F/BW: 32 elements per iteration, widened to f32 in
// registers, reduced, rounded once to nearest even and narrowed back, bit for bit what
// the portable path computes (half_kernels_x86.cpp is the 256-bit twin). Included by
// x86_avx512_kernels.cpp and x86_avx512_bf16_kernels.cpp after their target pragmas;
// internal linkage, as portable_kernels.hpp explains.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "collectives/kernels/dtype_visit.hpp"
#include "collectives/kernels/x86_kernels.hpp"

namespace collbench {
namespace {

#define COLLBENCH_AVX512 [[gnu::always_inline]] inline
#define COLLBENCH_AVX512_LAMBDA __attribute__((always_inline))

// GCC 12's shift, min and max intrinsics pass an undefined vector that -Wmaybe-uninitialized
// reports (GCC bug 105593): shifts and arithmetic are written with vector extensions.
typedef std::uint32_t U32x16 __attribute__((vector_size(64)));
COLLBENCH_AVX512 __m512i shl16(__m512i v) { return reinterpret_cast<__m512i>(reinterpret_cast<U32x16>(v) << 16); }
COLLBENCH_AVX512 __m512i shr16(__m512i v) { return reinterpret_cast<__m512i>(reinterpret_cast<U32x16>(v) >> 16); }

// Two f32 vectors holding 32 elements.
struct Pair512 {
  __m512 lo, hi;
};

// bf16 is the top half of an f32: the even elements of a vector become f32 by a shift,
// the odd ones by masking, and after rounding the halves are blended back into place.
struct BF16x32 {
  COLLBENCH_AVX512 static Pair512 widen(__m512i h) {
    return {_mm512_castsi512_ps(shl16(h)),
            _mm512_castsi512_ps(_mm512_and_si512(h, _mm512_set1_epi32(int(0xffff0000u))))};
  }
  // BFloat16::from_float in integer arithmetic: round to nearest even, a NaN made quiet.
  COLLBENCH_AVX512 static __m512i round(__m512 f) {
    const __m512i u = _mm512_castps_si512(f);
    const __m512i lsb = _mm512_and_si512(shr16(u), _mm512_set1_epi32(1));
    const __m512i rounded = _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
    const __m512i quiet = _mm512_or_si512(u, _mm512_set1_epi32(0x400000));
    return _mm512_mask_blend_epi32(_mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q), rounded, quiet);
  }
  COLLBENCH_AVX512 static __m512i narrow(Pair512 p) {
    return _mm512_mask_blend_epi16(0xaaaaaaaau, shr16(round(p.lo)), round(p.hi));
  }
};

struct F16x32 {
  COLLBENCH_AVX512 static Pair512 widen(__m512i h) {
    return {_mm512_cvtph_ps(_mm512_castsi512_si256(h)), _mm512_cvtph_ps(_mm512_extracti64x4_epi64(h, 1))};
  }
  COLLBENCH_AVX512 static __m512i narrow(Pair512 p) {
    constexpr int kNearestEven = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtps_ph(p.lo, kNearestEven)),
                              _mm512_cvtps_ph(p.hi, kNearestEven), 1);
  }
};

// The portable path's expressions: min/max keep `a` unless `b` compares strictly
// smaller/larger, so NaN handling matches too.
template <ReduceOp Op>
COLLBENCH_AVX512 __m512 apply512(__m512 a, __m512 b) {
  if constexpr (Op == ReduceOp::sum) return a + b;
  if constexpr (Op == ReduceOp::prod) return a * b;
  if constexpr (Op == ReduceOp::min) return b < a ? b : a;
  if constexpr (Op == ReduceOp::max) return b > a ? b : a;
}

template <class H, ReduceOp Op, bool Stream>
COLLBENCH_AVX512 std::size_t half512(void* dst, const void* a, const void* b, std::size_t n) {
  constexpr std::size_t kAhead = detail::kStreamPrefetchBytes / sizeof(__m512i);
  auto* d = static_cast<__m512i*>(dst);
  auto* x = static_cast<const __m512i*>(a);
  auto* y = static_cast<const __m512i*>(b);
  const std::size_t vectors = n / 32;
  auto one = [&](std::size_t v) COLLBENCH_AVX512_LAMBDA {
    const Pair512 p = H::widen(_mm512_loadu_si512(x + v)), q = H::widen(_mm512_loadu_si512(y + v));
    const __m512i r = H::narrow({apply512<Op>(p.lo, q.lo), apply512<Op>(p.hi, q.hi)});
    if constexpr (Stream)
      _mm512_stream_si512(d + v, r);
    else
      _mm512_storeu_si512(d + v, r);
  };
  // Two vectors per iteration: independent work for the out-of-order core to overlap.
  std::size_t v = 0;
  for (; v + 2 <= vectors; v += 2) {
    if constexpr (Stream) {
      _mm_prefetch(reinterpret_cast<const char*>(x + v + kAhead), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(y + v + kAhead), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(x + v + 1 + kAhead), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(y + v + 1 + kAhead), _MM_HINT_T0);
    }
    one(v);
    one(v + 1);
  }
  if (v < vectors) one(v);
  if constexpr (Stream) _mm_sfence();
  return vectors * 32;
}

template <class H, bool Stream>
COLLBENCH_AVX512 std::size_t half512_by_op(ReduceOp op, void* d, const void* a, const void* b, std::size_t n) {
  return visit_op(op, [&](auto o) { return half512<H, o(), Stream>(d, a, b, n); });
}

// Whole groups of 32 16-bit elements with bf16 narrowed by `BF16`; returns how many.
template <class BF16>
COLLBENCH_AVX512 std::size_t reduce_half_avx512(DType t, ReduceOp op, void* d, const void* a, const void* b,
                                                std::size_t n, bool stream) {
  if (t == DType::bf16) return stream ? half512_by_op<BF16, true>(op, d, a, b, n) : half512_by_op<BF16, false>(op, d, a, b, n);
  if (t == DType::f16)
    return stream ? half512_by_op<F16x32, true>(op, d, a, b, n) : half512_by_op<F16x32, false>(op, d, a, b, n);
  return 0;
}

}  // namespace
}  // namespace collbench
