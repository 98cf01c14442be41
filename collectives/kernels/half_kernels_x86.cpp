#include "collectives/kernels/x86_kernels.hpp"

#if COLLBENCH_X86_KERNELS
#include <immintrin.h>

#include "collectives/kernels/dtype_visit.hpp"

// Everything in this file runs only after reduce() has seen AVX2 and F16C on the CPU.
#pragma GCC target("avx2,f16c")

namespace collbench::detail {
namespace {

#define COLLBENCH_AVX2 [[gnu::always_inline]] inline
#define COLLBENCH_LAMBDA __attribute__((always_inline))

// Two f32 vectors: the low and high 8 of 16 elements.
struct Pair {
  __m256 lo, hi;
};

// bf16 is the top half of an f32, so no shuffles are needed: the even elements of a
// vector become f32 by a shift, the odd ones by masking, and after rounding the two
// halves are blended back into place.
struct BF16 {
  COLLBENCH_AVX2 static Pair widen(__m256i h) {
    return {_mm256_castsi256_ps(_mm256_slli_epi32(h, 16)),
            _mm256_castsi256_ps(_mm256_and_si256(h, _mm256_set1_epi32(int(0xffff0000u))))};
  }
  // BFloat16::from_float, eight lanes at a time, leaving the bf16 in each lane's top
  // half: round to nearest even. NaN (rare) is handled by fix_nan.
  COLLBENCH_AVX2 static __m256i round(__m256 f) {
    const __m256i u = _mm256_castps_si256(f);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    return _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff)));
  }
  // Rounding would carry a NaN's mantissa into its exponent: a NaN becomes a quiet NaN instead.
  COLLBENCH_AVX2 static __m256i fix_nan(__m256 f, __m256i rounded) {
    const __m256i quiet = _mm256_or_si256(_mm256_castps_si256(f), _mm256_set1_epi32(0x400000));
    return _mm256_blendv_epi8(rounded, quiet, _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q)));
  }
  COLLBENCH_AVX2 static __m256i narrow(Pair p) {
    __m256i lo = round(p.lo), hi = round(p.hi);
    // One test for both halves keeps the common, NaN-free case to a predictable branch.
    const __m256 unordered =
        _mm256_or_ps(_mm256_cmp_ps(p.lo, p.lo, _CMP_UNORD_Q), _mm256_cmp_ps(p.hi, p.hi, _CMP_UNORD_Q));
    if (!_mm256_testz_ps(unordered, unordered)) [[unlikely]] {
      lo = fix_nan(p.lo, lo);
      hi = fix_nan(p.hi, hi);
    }
    return _mm256_blend_epi16(_mm256_srli_epi32(lo, 16), hi, 0xaa);
  }
};

struct F16 {
  COLLBENCH_AVX2 static Pair widen(__m256i h) {
    return {_mm256_cvtph_ps(_mm256_castsi256_si128(h)), _mm256_cvtph_ps(_mm256_extracti128_si256(h, 1))};
  }
  COLLBENCH_AVX2 static __m256i narrow(Pair p) {
    constexpr int kNearestEven = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    return _mm256_set_m128i(_mm256_cvtps_ph(p.hi, kNearestEven), _mm256_cvtps_ph(p.lo, kNearestEven));
  }
};

// The same expressions as the portable path's apply<float, Op>: min/max keep `a` unless
// `b` compares strictly smaller/larger, so NaN handling matches too.
template <ReduceOp Op>
COLLBENCH_AVX2 __m256 apply(__m256 a, __m256 b) {
  if constexpr (Op == ReduceOp::sum) return _mm256_add_ps(a, b);
  if constexpr (Op == ReduceOp::prod) return _mm256_mul_ps(a, b);
  if constexpr (Op == ReduceOp::min) return _mm256_min_ps(b, a);  // b < a ? b : a
  if constexpr (Op == ReduceOp::max) return _mm256_max_ps(b, a);  // b > a ? b : a
}

constexpr std::size_t kAhead = kStreamPrefetchBytes / sizeof(__m256i);

template <class H, ReduceOp Op, bool Stream>
std::size_t run(void* dst, const void* a, const void* b, std::size_t n) {
  auto* d = static_cast<__m256i*>(dst);
  auto* x = static_cast<const __m256i*>(a);
  auto* y = static_cast<const __m256i*>(b);
  const std::size_t vectors = n / 16;
  auto one = [&](std::size_t v) COLLBENCH_LAMBDA {
    const Pair p = H::widen(_mm256_loadu_si256(x + v)), q = H::widen(_mm256_loadu_si256(y + v));
    const __m256i r = H::narrow({apply<Op>(p.lo, q.lo), apply<Op>(p.hi, q.hi)});
    if constexpr (Stream)
      _mm256_stream_si256(d + v, r);
    else
      _mm256_storeu_si256(d + v, r);
  };
  std::size_t v = 0;
  for (; v + 2 <= vectors; v += 2) {
    if constexpr (Stream) {
      _mm_prefetch(reinterpret_cast<const char*>(x + v + kAhead), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(y + v + kAhead), _MM_HINT_T0);
    }
    one(v);
    one(v + 1);
  }
  if (v < vectors) one(v);
  if constexpr (Stream) _mm_sfence();
  return vectors * 16;
}

template <class H, bool Stream>
std::size_t by_op(ReduceOp op, void* d, const void* a, const void* b, std::size_t n) {
  return visit_op(op, [&](auto o) { return run<H, o(), Stream>(d, a, b, n); });
}

}  // namespace

std::size_t reduce_half_avx2(DType t, ReduceOp op, void* d, const void* a, const void* b, std::size_t n, bool stream) {
  if (t == DType::bf16) return stream ? by_op<BF16, true>(op, d, a, b, n) : by_op<BF16, false>(op, d, a, b, n);
  if (t == DType::f16) return stream ? by_op<F16, true>(op, d, a, b, n) : by_op<F16, false>(op, d, a, b, n);
  return 0;
}

}  // namespace collbench::detail

#else

namespace collbench::detail {
std::size_t reduce_half_avx2(DType, ReduceOp, void*, const void*, const void*, std::size_t, bool) { return 0; }
}  // namespace collbench::detail

#endif
