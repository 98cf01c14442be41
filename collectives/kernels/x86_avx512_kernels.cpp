// The reductions compiled for AVX-512 F/BW/VL: the portable loops vectorised 512 bits
// wide (GCC would otherwise prefer 256), 64-byte streaming stores past the cache, 16-bit
// floats in x86_avx512_half.hpp with bf16 rounded in integer arithmetic.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's AVX-512 intrinsics pass undefined vectors it then reports (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC target("avx512f,avx512bw,avx512vl,prefer-vector-width=512")
#include "collectives/kernels/x86_avx512_half.hpp"
#include "collectives/kernels/x86_reduce_body.hpp"

namespace collbench::detail {

[[gnu::flatten]] void reduce_avx512(DType t, ReduceOp op, void* d, const void* a, const void* b, std::size_t n,
                                    bool stream) {
  reduce_x86<64>(t, op, d, a, b, n, stream, [](auto... args) { return reduce_half_avx512<BF16x32>(args...); });
}

}  // namespace collbench::detail
#endif
