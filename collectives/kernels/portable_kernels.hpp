#pragma once
// The reductions as plain C++ loops, for every dtype and op. Each ISA's translation unit
// includes this after its `#pragma GCC target`, so the compiler vectorises the same loops
// for that ISA. Everything here has internal linkage on purpose: with external linkage
// the linker would keep one instantiation for all of them, possibly an AVX-512 one
// that a CPU without AVX-512 would then run.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "collectives/dtype.hpp"
#include "collectives/kernels/dtype_visit.hpp"
#include "collectives/half.hpp"

namespace collbench {
namespace {

template <class T, ReduceOp Op>
inline void loop(T* __restrict d, const T* __restrict a, const T* __restrict b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) d[i] = reduce_elements<T, Op>(a[i], b[i]);
}
template <class T, ReduceOp Op>
inline void loop_inplace(T* __restrict d, const T* __restrict b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) d[i] = reduce_elements<T, Op>(d[i], b[i]);
}
template <class T, ReduceOp Op>
inline void loop_inplace_rhs(T* __restrict d, const T* __restrict a, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) d[i] = reduce_elements<T, Op>(a[i], d[i]);
}

template <class T, ReduceOp Op>
inline void typed(void* dst, const void* a, const void* b, std::size_t n) {
  auto* d = static_cast<T*>(dst);
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  // Separate loops so the compiler vectorises each without runtime alias checks.
  if (d == x)
    loop_inplace<T, Op>(d, y, n);
  else if (d == y)
    loop_inplace_rhs<T, Op>(d, x, n);
  else
    loop<T, Op>(d, x, y, n);
}

template <class T>
inline void by_op(ReduceOp op, void* d, const void* a, const void* b, std::size_t n) {
  visit_op(op, [&](auto o) { typed<T, o()>(d, a, b, n); });
}

// 16-bit floats go through f32 one L1-sized block at a time: convert both inputs,
// reduce in f32 (vectorised), round back once. Reading a block before writing it
// keeps exact aliasing (in place) safe. The ISA paths handle whole vectors themselves
// and leave only their tails to this.
constexpr std::size_t kHalfBlock = 1024;

template <class H>
inline void by_op_half(ReduceOp op, void* dst, const void* a, const void* b, std::size_t n) {
  alignas(64) float fa[kHalfBlock], fb[kHalfBlock];
  auto* d = static_cast<H*>(dst);
  auto* x = static_cast<const H*>(a);
  auto* y = static_cast<const H*>(b);
  for (std::size_t i = 0; i < n; i += kHalfBlock) {
    const std::size_t m = std::min(kHalfBlock, n - i);
    for (std::size_t j = 0; j < m; ++j) fa[j] = static_cast<float>(x[i + j]), fb[j] = static_cast<float>(y[i + j]);
    by_op<float>(op, fa, fa, fb, m);
    for (std::size_t j = 0; j < m; ++j) d[i + j] = H(fa[j]);
  }
}

inline void by_type(DType t, ReduceOp op, void* d, const void* a, const void* b, std::size_t n) {
  switch (t) {
    case DType::f32: return by_op<float>(op, d, a, b, n);
    case DType::f64: return by_op<double>(op, d, a, b, n);
    case DType::f16: return by_op_half<Float16>(op, d, a, b, n);
    case DType::bf16: return by_op_half<BFloat16>(op, d, a, b, n);
    case DType::i32: return by_op<std::int32_t>(op, d, a, b, n);
    case DType::i64: return by_op<std::int64_t>(op, d, a, b, n);
  }
}

}  // namespace
}  // namespace collbench
