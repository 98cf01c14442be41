#pragma once
// Calls a template with the C++ type of a DType, or with a ReduceOp as a constant.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "collectives/dtype.hpp"
#include "collectives/half.hpp"

namespace collbench {

// Calls f with a value-initialised object of the C++ type of `t`.
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    case DType::f16: return f(Float16{});
    case DType::bf16: return f(BFloat16{});
    case DType::i32: return f(std::int32_t{});
    case DType::i64: break;
  }
  return f(std::int64_t{});
}

// Calls f with std::integral_constant<ReduceOp, op>, so kernels switch on the op once.
template <class F>
decltype(auto) visit_op(ReduceOp op, F&& f) {
  switch (op) {
    case ReduceOp::sum: return f(std::integral_constant<ReduceOp, ReduceOp::sum>{});
    case ReduceOp::prod: return f(std::integral_constant<ReduceOp, ReduceOp::prod>{});
    case ReduceOp::min: return f(std::integral_constant<ReduceOp, ReduceOp::min>{});
    case ReduceOp::max: break;
  }
  return f(std::integral_constant<ReduceOp, ReduceOp::max>{});
}

// Fills `bytes` with ones of type `t`: sums, products, minima and maxima of them stay
// normal numbers in every dtype, so no denormal or overflow handling is timed instead of
// a kernel; and not zeros, which memory moved faster here than real data (1.3x at 16 MiB).
inline void fill_ones(DType t, void* buf, std::size_t bytes) {
  visit_dtype(t, [&](auto zero) {
    using T = decltype(zero);
    const T one = T(1.0f);
    for (std::size_t i = 0; i + sizeof(T) <= bytes; i += sizeof(T))
      std::memcpy(static_cast<unsigned char*>(buf) + i, &one, sizeof(T));
  });
}

}  // namespace collbench
