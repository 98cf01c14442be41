#include "collectives/kernels/reduce_kernels.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <unistd.h>
#endif

#include "collectives/half.hpp"
#include "collectives/kernels/half_kernels_x86.hpp"

namespace collbench {
namespace {

template <class T, ReduceOp Op>
inline T apply(T x, T y) {
  return reduce_elements<T, Op>(x, y);
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
  if (d == x)
    loop_inplace<T, Op>(d, y, n);
  else if (d == y)
    loop_inplace_rhs<T, Op>(d, x, n);
  else
    loop<T, Op>(d, x, y, n);
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

// 16-bit floats go through f32 one L1-sized block at a time: convert both inputs,
// reduce in f32 (vectorised), round back once. Reading a block before writing it
// keeps exact aliasing (in place) safe.
constexpr std::size_t kBlock = 1024;

inline void bf16_to_f32(const BFloat16* in, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::bit_cast<float>(std::uint32_t(in[i].bits) << 16);
}
inline void f32_to_bf16(const float* in, BFloat16* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i].bits = BFloat16::from_float(in[i]);
}
inline void f16_to_f32(const Float16* in, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]);
}
inline void f32_to_f16(const float* in, Float16* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<Float16>(in[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12 does not vectorise _Float16 conversions, so the AVX2 path uses F16C directly.
[[gnu::target("avx2,f16c")]] void f16_to_f32_f16c(const Float16* in, float* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}
[[gnu::target("avx2,f16c")]] void f32_to_f16_f16c(const float* in, Float16* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  for (; i < n; ++i) out[i] = static_cast<Float16>(in[i]);
}
#endif

template <class H, bool kF16C>
void by_op_half(ReduceOp op, void* dst, const void* a, const void* b, std::size_t n) {
  alignas(64) float fa[kBlock], fb[kBlock];
  auto* d = static_cast<H*>(dst);
  auto* x = static_cast<const H*>(a);
  auto* y = static_cast<const H*>(b);
  auto widen = [](const H* in, float* out, std::size_t m) {
    if constexpr (std::is_same_v<H, BFloat16>)
      bf16_to_f32(in, out, m);
#if defined(__x86_64__) && defined(__GNUC__)
    else if constexpr (kF16C)
      f16_to_f32_f16c(in, out, m);
#endif
    else
      f16_to_f32(in, out, m);
  };
  auto narrow = [](const float* in, H* out, std::size_t m) {
    if constexpr (std::is_same_v<H, BFloat16>)
      f32_to_bf16(in, out, m);
#if defined(__x86_64__) && defined(__GNUC__)
    else if constexpr (kF16C)
      f32_to_f16_f16c(in, out, m);
#endif
    else
      f32_to_f16(in, out, m);
  };
  for (std::size_t i = 0; i < n; i += kBlock) {
    const std::size_t m = std::min(kBlock, n - i);
    widen(x + i, fa, m);
    widen(y + i, fb, m);
    by_op<float>(op, fa, fa, fb, m);
    narrow(fa, d + i, m);
  }
}

template <bool kF16C>
inline void by_type(DType t, ReduceOp op, void* d, const void* a, const void* b, std::size_t n) {
  switch (t) {
    case DType::f32: return by_op<float>(op, d, a, b, n);
    case DType::f64: return by_op<double>(op, d, a, b, n);
    case DType::f16: return by_op_half<Float16, kF16C>(op, d, a, b, n);
    case DType::bf16: return by_op_half<BFloat16, kF16C>(op, d, a, b, n);
    case DType::i32: return by_op<std::int32_t>(op, d, a, b, n);
    case DType::i64: return by_op<std::int64_t>(op, d, a, b, n);
  }
}

// The same kernels compiled twice: flatten inlines them into each clone, so the
// AVX2 clone gets 256-bit loops while the build stays portable to any CPU.
#if defined(__x86_64__) && defined(__GNUC__)
// When a, b and dst together exceed the last-level cache, outputs are written with
// non-temporal stores, as glibc's memcpy does past its threshold: this saves the
// read-for-ownership of every destination line. The cache size comes from sysfs:
// sysconf's figure can be far off in virtual machines (384 MiB for a 32 MiB L3 here).
std::size_t llc_bytes() {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level(dir + "level"), size(dir + "size");
    int l = 0;
    std::size_t kib = 0;
    char unit = 0;
    if (level >> l && l == 3 && size >> kib >> unit && unit == 'K') return kib << 10;
  }
  const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return static_cast<std::size_t>(llc > 0 ? llc : 32L << 20);
}
std::size_t streaming_threshold_bytes() {
  static const std::size_t bytes = llc_bytes();
  return bytes;
}

// One 32-byte vector at a time, in registers (GCC vector extensions), then stored
// past the cache. Integer sum/prod use unsigned lanes so they wrap like apply().
template <class T, bool = std::is_integral_v<T>>
struct WrappingLane {
  using type = T;
};
template <class T>
struct WrappingLane<T, true> {
  using type = std::make_unsigned_t<T>;
};

template <class T, ReduceOp Op>
[[gnu::target("avx2,f16c")]] void stream_vectors(std::byte* d, const std::byte* a, const std::byte* b,
                                                 std::size_t vectors) {
  using U = typename WrappingLane<T>::type;
  typedef T V __attribute__((vector_size(32)));
  typedef U VU __attribute__((vector_size(32)));
  for (std::size_t v = 0; v < vectors; ++v) {
    if (v % 2 == 0) {  // one prefetch per 64-byte line
      _mm_prefetch(reinterpret_cast<const char*>(a + v * 32 + detail::kStreamPrefetchBytes), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(b + v * 32 + detail::kStreamPrefetchBytes), _MM_HINT_T0);
    }
    V x, y, r;
    std::memcpy(&x, a + v * 32, 32);
    std::memcpy(&y, b + v * 32, 32);
    if constexpr (Op == ReduceOp::sum) r = reinterpret_cast<V>(reinterpret_cast<VU>(x) + reinterpret_cast<VU>(y));
    if constexpr (Op == ReduceOp::prod) r = reinterpret_cast<V>(reinterpret_cast<VU>(x) * reinterpret_cast<VU>(y));
    if constexpr (Op == ReduceOp::min) r = y < x ? y : x;
    if constexpr (Op == ReduceOp::max) r = y > x ? y : x;
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + v * 32), reinterpret_cast<__m256i>(r));
  }
}

template <class T>
[[gnu::target("avx2,f16c"), gnu::flatten]] void stream_by_op(ReduceOp op, std::byte* d, const std::byte* a,
                                                             const std::byte* b, std::size_t vectors) {
  switch (op) {
    case ReduceOp::sum: return stream_vectors<T, ReduceOp::sum>(d, a, b, vectors);
    case ReduceOp::prod: return stream_vectors<T, ReduceOp::prod>(d, a, b, vectors);
    case ReduceOp::min: return stream_vectors<T, ReduceOp::min>(d, a, b, vectors);
    case ReduceOp::max: return stream_vectors<T, ReduceOp::max>(d, a, b, vectors);
  }
}

// 32/64-bit types past the cache: whole 32-byte vectors, streamed.
[[gnu::target("avx2,f16c"), gnu::flatten]] std::size_t body_streaming(DType t, ReduceOp op, std::byte* d,
                                                                      const std::byte* a, const std::byte* b,
                                                                      std::size_t n) {
  const std::size_t vectors = n * dtype_size(t) / 32;
  switch (t) {
    case DType::f32: stream_by_op<float>(op, d, a, b, vectors); break;
    case DType::f64: stream_by_op<double>(op, d, a, b, vectors); break;
    case DType::i32: stream_by_op<std::int32_t>(op, d, a, b, vectors); break;
    case DType::i64: stream_by_op<std::int64_t>(op, d, a, b, vectors); break;
    case DType::f16:
    case DType::bf16: return 0;
  }
  _mm_sfence();
  return vectors * 32 / dtype_size(t);
}

[[gnu::target("avx2,f16c"), gnu::flatten]] void by_type_avx2(DType t, ReduceOp op, void* dst, const void* src_a,
                                                             const void* src_b, std::size_t n) {
  auto* d = static_cast<std::byte*>(dst);
  auto* a = static_cast<const std::byte*>(src_a);
  auto* b = static_cast<const std::byte*>(src_b);
  const std::size_t elem = dtype_size(t);
  const bool half = elem == 2;
  std::size_t head = 0;
  bool stream = n * elem >= reduce_streaming_min_bytes();
  if (stream) {
    // Ordinary stores until the destination is 32-byte aligned (or for all of it, if it never will be).
    head = (32 - reinterpret_cast<std::uintptr_t>(d) % 32) % 32;
    stream = head % elem == 0;
    head = stream ? std::min(n, head / elem) : 0;
    by_type<true>(t, op, d, a, b, head);
  }
  const std::size_t off = head * elem;
  std::size_t done = head;
  // 16-bit types: whole groups of 16 elements in registers (half_kernels_x86.cpp).
  if (half)
    done += detail::reduce_half_avx2(t, op, d + off, a + off, b + off, n - head, stream);
  else if (stream)
    done += body_streaming(t, op, d + off, a + off, b + off, n - head);
  by_type<true>(t, op, d + done * elem, a + done * elem, b + done * elem, n - done);
}
bool cpu_has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return yes;
}
#endif

[[gnu::flatten]] void by_type_baseline(DType t, ReduceOp op, void* d, const void* a, const void* b, std::size_t n) {
  by_type<false>(t, op, d, a, b, n);
}

}  // namespace

void reduce_portable(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count) {
  by_type_baseline(t, op, dst, a, b, count);
}

void reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_has_avx2()) return by_type_avx2(t, op, dst, a, b, count);
#endif
  by_type_baseline(t, op, dst, a, b, count);
}

std::size_t reduce_streaming_min_bytes() {
#if defined(__x86_64__) && defined(__GNUC__)
  return streaming_threshold_bytes() / 3 + 1;  // a, b and dst together exceed the LLC
#else
  return SIZE_MAX;
#endif
}

const char* reduce_kernel_isa() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_has_avx2()) return "avx2+f16c";
#endif
  return "baseline";
}

}  // namespace collbench
