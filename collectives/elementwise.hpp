#pragma once
// The element types and reduction ops as plain enums, and what a reduction does to one
// pair of elements: shared by the host kernels and the device kernels, so nvcc compiles
// this header (and nothing with the project's constexpr name tables).
#include <type_traits>

#if defined(__CUDACC__)
#define COLLBENCH_HOST_DEVICE __host__ __device__
#else
#define COLLBENCH_HOST_DEVICE
#endif

namespace collbench {

enum class DType { f32, f64, f16, bf16, i32, i64 };
enum class ReduceOp { sum, prod, min, max };

// x op y. Integer sum and product wrap around (as MPI libraries do in practice) instead
// of being undefined; 16-bit floats are computed in f32 and rounded once, like MPI and
// NCCL; min and max return one of the two elements unchanged.
template <class T, ReduceOp Op>
COLLBENCH_HOST_DEVICE inline T reduce_elements(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    if constexpr (Op == ReduceOp::sum) return static_cast<T>(U(x) + U(y));
    if constexpr (Op == ReduceOp::prod) return static_cast<T>(U(x) * U(y));
    if constexpr (Op == ReduceOp::min) return y < x ? y : x;
    if constexpr (Op == ReduceOp::max) return y > x ? y : x;
  } else {
    using A = std::conditional_t<(sizeof(T) < 4), float, T>;
    const A a = static_cast<A>(x), b = static_cast<A>(y);
    if constexpr (Op == ReduceOp::sum) return static_cast<T>(a + b);
    if constexpr (Op == ReduceOp::prod) return static_cast<T>(a * b);
    if constexpr (Op == ReduceOp::min) return b < a ? y : x;
    if constexpr (Op == ReduceOp::max) return b > a ? y : x;
  }
}

}  // namespace collbench
