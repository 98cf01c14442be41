// reduce_avx512 with bf16 rounded by AVX512_BF16's vcvtne2ps2bf16 (one instruction for
// 32 elements). That instruction treats denormal inputs as zero, so a vector holding a
// denormal or a NaN result is rounded in integer arithmetic instead, as the portable
// path does: the results stay bit for bit the same.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's AVX-512 intrinsics pass undefined vectors it then reports (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,prefer-vector-width=512")
#include "collectives/kernels/x86_avx512_half.hpp"
#include "collectives/kernels/x86_reduce_body.hpp"

namespace collbench {
namespace {

struct BF16Insn {
  COLLBENCH_AVX512 static Pair512 widen(__m512i h) { return BF16x32::widen(h); }
  COLLBENCH_AVX512 static __m512i narrow(Pair512 p) {
    constexpr int kDenormalOrNaN = 0x01 | 0x20 | 0x80;  // quiet NaN, denormal, signalling NaN
    if (_mm512_fpclass_ps_mask(p.lo, kDenormalOrNaN) | _mm512_fpclass_ps_mask(p.hi, kDenormalOrNaN)) [[unlikely]]
      return BF16x32::narrow(p);
    // lo holds the even elements, hi the odd: the instruction puts lo's 16 results in the
    // low half, hi's in the high half, and one permutation interleaves them.
    const __m512i packed = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(p.hi, p.lo));
    const __m512i interleave = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7,
                                                22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    return _mm512_permutexvar_epi16(interleave, packed);
  }
};

}  // namespace

namespace detail {

[[gnu::flatten]] void reduce_avx512_bf16(DType t, ReduceOp op, void* d, const void* a, const void* b, std::size_t n,
                                         bool stream) {
  reduce_x86<64>(t, op, d, a, b, n, stream, [](auto... args) { return reduce_half_avx512<BF16Insn>(args...); });
}

}  // namespace detail
}  // namespace collbench
#endif
