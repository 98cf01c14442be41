// The reductions compiled for AVX2 + F16C: the portable loops vectorised 256 bits wide,
// streaming stores past the cache, 16-bit floats in half_kernels_x86.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#pragma GCC target("avx2,f16c")
#include "collectives/kernels/x86_reduce_body.hpp"

namespace collbench::detail {

[[gnu::flatten]] void reduce_avx2(DType t, ReduceOp op, void* d, const void* a, const void* b, std::size_t n,
                                  bool stream) {
  reduce_x86<32>(t, op, d, a, b, n, stream, reduce_half_avx2);
}

}  // namespace collbench::detail
#endif
