#pragma once
// What the x86 clones share, included by each after its `#pragma GCC target`: the head
// that aligns the destination for streaming stores, 32/64-bit types streamed one
// W-byte vector at a time, 16-bit types handed to the clone's own half kernel, and the
// tail left to the portable loops (compiled for the same ISA). Internal linkage, as
// portable_kernels.hpp explains.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "collectives/kernels/portable_kernels.hpp"
#include "collectives/kernels/x86_kernels.hpp"

namespace collbench {
namespace {

// Integer sum/prod use unsigned lanes so they wrap like reduce_elements.
template <class T, bool = std::is_integral_v<T>>
struct WrappingLane {
  using type = T;
};
template <class T>
struct WrappingLane<T, true> {
  using type = std::make_unsigned_t<T>;
};

// One W-byte vector at a time, in registers (GCC vector extensions), stored past the
// cache with the vector's non-temporal store.
template <class T, ReduceOp Op, std::size_t W>
void stream_vectors(std::byte* d, const std::byte* a, const std::byte* b, std::size_t vectors) {
  using U = typename WrappingLane<T>::type;
  typedef T V __attribute__((vector_size(W)));
  typedef U VU __attribute__((vector_size(W)));
  constexpr std::size_t kPerLine = 64 / W;
  for (std::size_t v = 0; v < vectors; ++v) {
    if (v % kPerLine == 0) {  // one prefetch per 64-byte line
      _mm_prefetch(reinterpret_cast<const char*>(a + v * W + detail::kStreamPrefetchBytes), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(b + v * W + detail::kStreamPrefetchBytes), _MM_HINT_T0);
    }
    V x, y, r;
    std::memcpy(&x, a + v * W, W);
    std::memcpy(&y, b + v * W, W);
    if constexpr (Op == ReduceOp::sum) r = reinterpret_cast<V>(reinterpret_cast<VU>(x) + reinterpret_cast<VU>(y));
    if constexpr (Op == ReduceOp::prod) r = reinterpret_cast<V>(reinterpret_cast<VU>(x) * reinterpret_cast<VU>(y));
    if constexpr (Op == ReduceOp::min) r = y < x ? y : x;
    if constexpr (Op == ReduceOp::max) r = y > x ? y : x;
    if constexpr (W == 64)
      _mm512_stream_si512(reinterpret_cast<__m512i*>(d + v * W), reinterpret_cast<__m512i>(r));
    else
      _mm256_stream_si256(reinterpret_cast<__m256i*>(d + v * W), reinterpret_cast<__m256i>(r));
  }
}

template <class T, std::size_t W>
void stream_by_op(ReduceOp op, std::byte* d, const std::byte* a, const std::byte* b, std::size_t vectors) {
  visit_op(op, [&](auto o) { stream_vectors<T, o(), W>(d, a, b, vectors); });
}

// 32/64-bit types: whole vectors, streamed; returns the elements done.
template <std::size_t W>
std::size_t body_streaming(DType t, ReduceOp op, std::byte* d, const std::byte* a, const std::byte* b, std::size_t n) {
  const std::size_t vectors = n * dtype_size(t) / W;
  switch (t) {
    case DType::f32: stream_by_op<float, W>(op, d, a, b, vectors); break;
    case DType::f64: stream_by_op<double, W>(op, d, a, b, vectors); break;
    case DType::i32: stream_by_op<std::int32_t, W>(op, d, a, b, vectors); break;
    case DType::i64: stream_by_op<std::int64_t, W>(op, d, a, b, vectors); break;
    case DType::f16:
    case DType::bf16: return 0;
  }
  _mm_sfence();
  return vectors * W / dtype_size(t);
}

// `half(t, op, d, a, b, n, stream)` reduces whole vectors of 16-bit elements and returns
// how many it did.
template <std::size_t W, class HalfKernel>
void reduce_x86(DType t, ReduceOp op, void* dst, const void* src_a, const void* src_b, std::size_t n, bool stream,
                HalfKernel half) {
  auto* d = static_cast<std::byte*>(dst);
  auto* a = static_cast<const std::byte*>(src_a);
  auto* b = static_cast<const std::byte*>(src_b);
  const std::size_t elem = dtype_size(t);
  std::size_t head = 0;
  if (stream) {
    // Ordinary stores until the destination is W-byte aligned (or for all of it, if it never will be).
    head = (W - reinterpret_cast<std::uintptr_t>(d) % W) % W;
    stream = head % elem == 0;
    head = stream ? std::min(n, head / elem) : 0;
    by_type(t, op, d, a, b, head);
  }
  const std::size_t off = head * elem;
  std::size_t done = head;
  if (elem == 2)
    done += half(t, op, d + off, a + off, b + off, n - head, stream);
  else if (stream)
    done += body_streaming<W>(t, op, d + off, a + off, b + off, n - head);
  by_type(t, op, d + done * elem, a + done * elem, b + done * elem, n - done);
}

}  // namespace
}  // namespace collbench
