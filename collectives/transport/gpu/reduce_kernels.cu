// Element-wise reductions on the GPU, each element as the host kernels reduce it
// (reduce_elements, elementwise.hpp). Each thread handles 16 bytes at a time where all
// three pointers allow it, which is what keeps a reduction near copy bandwidth.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "collectives/transport/gpu/reduce_launch.hpp"

namespace collbench {
namespace {

constexpr int kThreads = 256;
constexpr int kMostBlocks = 4096;  // grid-stride beyond this: enough to fill an H100 many times

// Vectors of 16 bytes, then the tail one element at a time.
template <class T, ReduceOp Op>
__global__ void reduce_vectors(T* d, const T* a, const T* b, std::size_t vectors, std::size_t count) {
  constexpr int k = 16 / sizeof(T);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t v = first; v < vectors; v += stride) {
    union {
      uint4 raw;
      T x[k];
    } x, y;
    x.raw = reinterpret_cast<const uint4*>(a)[v];
    y.raw = reinterpret_cast<const uint4*>(b)[v];
#pragma unroll
    for (int i = 0; i < k; ++i) x.x[i] = reduce_elements<T, Op>(x.x[i], y.x[i]);
    reinterpret_cast<uint4*>(d)[v] = x.raw;
  }
  for (std::size_t i = vectors * k + first; i < count; i += stride) d[i] = reduce_elements<T, Op>(a[i], b[i]);
}

template <class T, ReduceOp Op>
void launch(void* dst, const void* a, const void* b, std::size_t count, cudaStream_t s) {
  if (count == 0) return;
  auto* d = static_cast<T*>(dst);
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  const bool aligned = ((reinterpret_cast<std::uintptr_t>(d) | reinterpret_cast<std::uintptr_t>(x) |
                         reinterpret_cast<std::uintptr_t>(y)) %
                        16) == 0;
  const std::size_t vectors = aligned ? count * sizeof(T) / 16 : 0;
  const std::size_t work = vectors ? vectors : count;
  const int blocks = static_cast<int>(std::min<std::size_t>(kMostBlocks, (work + kThreads - 1) / kThreads));
  reduce_vectors<T, Op><<<blocks, kThreads, 0, s>>>(d, x, y, vectors, count);
}

template <class T>
void by_op(ReduceOp op, void* d, const void* a, const void* b, std::size_t n, cudaStream_t s) {
  switch (op) {
    case ReduceOp::sum: return launch<T, ReduceOp::sum>(d, a, b, n, s);
    case ReduceOp::prod: return launch<T, ReduceOp::prod>(d, a, b, n, s);
    case ReduceOp::min: return launch<T, ReduceOp::min>(d, a, b, n, s);
    case ReduceOp::max: return launch<T, ReduceOp::max>(d, a, b, n, s);
  }
}

}  // namespace

void launch_reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  switch (t) {
    case DType::f32: return by_op<float>(op, dst, a, b, count, s);
    case DType::f64: return by_op<double>(op, dst, a, b, count, s);
    case DType::f16: return by_op<__half>(op, dst, a, b, count, s);
    case DType::bf16: return by_op<__nv_bfloat16>(op, dst, a, b, count, s);
    case DType::i32: return by_op<std::int32_t>(op, dst, a, b, count, s);
    case DType::i64: return by_op<std::int64_t>(op, dst, a, b, count, s);
  }
}

}  // namespace collbench
