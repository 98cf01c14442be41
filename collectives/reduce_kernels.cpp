#include "reduce_kernels.hpp"

#include <cstdint>
#include <type_traits>

#include "half.hpp"

namespace collbench {
namespace {

template <class T, ReduceOp Op>
inline T apply(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    // Integer sum/prod wrap around (as MPI libraries do in practice) instead of being UB.
    using U = std::make_unsigned_t<T>;
    if constexpr (Op == ReduceOp::sum) return static_cast<T>(U(x) + U(y));
    if constexpr (Op == ReduceOp::prod) return static_cast<T>(U(x) * U(y));
    if constexpr (Op == ReduceOp::min) return y < x ? y : x;
    if constexpr (Op == ReduceOp::max) return y > x ? y : x;
  } else {
    // 16-bit floats are computed in f32 and rounded once, like MPI and NCCL do.
    using A = std::conditional_t<(sizeof(T) < 4), float, T>;
    const A a = static_cast<A>(x), b = static_cast<A>(y);
    if constexpr (Op == ReduceOp::sum) return static_cast<T>(a + b);
    if constexpr (Op == ReduceOp::prod) return static_cast<T>(a * b);
    if constexpr (Op == ReduceOp::min) return b < a ? y : x;
    if constexpr (Op == ReduceOp::max) return b > a ? y : x;
  }
}

template <class T, ReduceOp Op>
inline void loop(T* __restrict d, const T* __restrict a, const T* __restrict b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) d[i] = apply<T, Op>(a[i], b[i]);
}
template <class T, ReduceOp Op>
inline void loop_inplace(T* __restrict d, const T* __restrict b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) d[i] = apply<T, Op>(d[i], b[i]);
}
template <class T, ReduceOp Op>
inline void loop_inplace_rhs(T* __restrict d, const T* __restrict a, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) d[i] = apply<T, Op>(a[i], d[i]);
}

template <class T, ReduceOp Op>
inline void typed(void* dst, const void* a, const void* b, std::size_t n) {
  auto* d = static_cast<T*>(dst);
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  // Separate loops so the compiler vectorises each without runtime alias checks.
  if (d == x) loop_inplace<T, Op>(d, y, n);
  else if (d == y) loop_inplace_rhs<T, Op>(d, x, n);
  else loop<T, Op>(d, x, y, n);
}

template <class T>
inline void by_op(ReduceOp op, void* d, const void* a, const void* b, std::size_t n) {
  switch (op) {
    case ReduceOp::sum: return typed<T, ReduceOp::sum>(d, a, b, n);
    case ReduceOp::prod: return typed<T, ReduceOp::prod>(d, a, b, n);
    case ReduceOp::min: return typed<T, ReduceOp::min>(d, a, b, n);
    case ReduceOp::max: return typed<T, ReduceOp::max>(d, a, b, n);
  }
}

inline void by_type(DType t, ReduceOp op, void* d, const void* a, const void* b, std::size_t n) {
  switch (t) {
    case DType::f32: return by_op<float>(op, d, a, b, n);
    case DType::f64: return by_op<double>(op, d, a, b, n);
    case DType::f16: return by_op<Float16>(op, d, a, b, n);
    case DType::bf16: return by_op<BFloat16>(op, d, a, b, n);
    case DType::i32: return by_op<std::int32_t>(op, d, a, b, n);
    case DType::i64: return by_op<std::int64_t>(op, d, a, b, n);
  }
}

// The same kernels compiled twice: flatten inlines them into each clone, so the
// AVX2 clone gets 256-bit loops and hardware f16 conversion while the build stays
// portable to any x86-64 (or other) CPU.
#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::target("avx2,f16c"), gnu::flatten]] void by_type_avx2(DType t, ReduceOp op, void* d,
                                                             const void* a, const void* b,
                                                             std::size_t n) {
  by_type(t, op, d, a, b, n);
}
bool cpu_has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return yes;
}
#endif

[[gnu::flatten]] void by_type_baseline(DType t, ReduceOp op, void* d, const void* a,
                                       const void* b, std::size_t n) {
  by_type(t, op, d, a, b, n);
}

}  // namespace

void reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_has_avx2()) return by_type_avx2(t, op, dst, a, b, count);
#endif
  by_type_baseline(t, op, dst, a, b, count);
}

const char* reduce_kernel_isa() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_has_avx2()) return "avx2+f16c";
#endif
  return "baseline";
}

}  // namespace collbench
