#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <cstring>
#include <random>
#include <vector>

#include "collectives/kernels/dtype_visit.hpp"
#include "collectives/kernels/reduce_kernels.hpp"

using namespace collbench;

namespace {

template <class T>
double as_double(T v) {
  if constexpr (std::is_same_v<T, BFloat16>)
    return static_cast<float>(v);
  else
    return static_cast<double>(v);
}

// The expected element, computed the slow, obvious way (in double, rounded once).
template <class T>
T expected(ReduceOp op, T a, T b) {
  const double x = as_double(a), y = as_double(b);
  double r = 0;
  switch (op) {
    case ReduceOp::sum: r = x + y; break;
    case ReduceOp::prod: r = x * y; break;
    case ReduceOp::min: r = std::min(x, y); break;
    case ReduceOp::max: r = std::max(x, y); break;
  }
  if constexpr (std::is_same_v<T, BFloat16>)
    return BFloat16(static_cast<float>(r));
  else
    return static_cast<T>(r);
}

enum class Alias { none, dst_is_a, dst_is_b };

void check(DType t, ReduceOp op, std::size_t n, Alias alias) {
  visit_dtype(t, [&](auto zero) {
    using T = decltype(zero);
    std::mt19937 gen(static_cast<unsigned>(n * 31 + static_cast<unsigned>(op)));
    std::uniform_int_distribution<int> dist(-40, 40);
    auto make = [&] {
      if constexpr (std::is_same_v<T, BFloat16>)
        return BFloat16(static_cast<float>(dist(gen)) / 8);
      else if constexpr (std::is_integral_v<T>)
        return static_cast<T>(dist(gen));
      else
        return static_cast<T>(static_cast<double>(dist(gen)) / 8);
    };
    std::vector<T> a(n), b(n), d(n);
    for (std::size_t i = 0; i < n; ++i) a[i] = make(), b[i] = make();
    std::vector<T> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = expected(op, a[i], b[i]);
    T* dst = alias == Alias::dst_is_a ? a.data() : alias == Alias::dst_is_b ? b.data() : d.data();
    reduce(t, op, dst, a.data(), b.data(), n);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(as_double(dst[i]), as_double(want[i])) << dtype_name(t) << " " << reduce_op_name(op) << " i=" << i;
  });
}

}  // namespace

TEST(ReduceKernels, EveryDtypeAndOpMatchesScalarReference) {
  for (DType t : kAllDTypes)
    for (ReduceOp op : kAllReduceOps)
      for (std::size_t n : {0u, 1u, 7u, 33u, 1000u, 4099u})
        for (Alias alias : {Alias::none, Alias::dst_is_a, Alias::dst_is_b}) check(t, op, n, alias);
}

TEST(ReduceKernels, HalfPrecisionRoundsOnceToNearestEven) {
  // f16: 2048 + 1 is a tie between 2048 and 2050; even mantissa wins.
  Float16 a = static_cast<Float16>(2048.0f), b = static_cast<Float16>(1.0f), d{};
  reduce(DType::f16, ReduceOp::sum, &d, &a, &b, 1);
  EXPECT_EQ(static_cast<float>(d), 2048.0f);
  b = static_cast<Float16>(3.0f);
  reduce(DType::f16, ReduceOp::sum, &d, &a, &b, 1);
  EXPECT_EQ(static_cast<float>(d), 2052.0f);
  // bf16 has 8 significant bits: 256 + 1 ties to 256, 256 + 3 rounds to 260.
  BFloat16 x(256.0f), y(1.0f), z{};
  reduce(DType::bf16, ReduceOp::sum, &z, &x, &y, 1);
  EXPECT_EQ(static_cast<float>(z), 256.0f);
  y = BFloat16(3.0f);
  reduce(DType::bf16, ReduceOp::sum, &z, &x, &y, 1);
  EXPECT_EQ(static_cast<float>(z), 260.0f);
  // A bf16 product is computed in f32 and rounded once: 1.0078125^2 = 1.01568... -> 1.015625.
  x = BFloat16(1.0078125f);
  reduce(DType::bf16, ReduceOp::prod, &z, &x, &x, 1);
  EXPECT_EQ(static_cast<float>(z), 1.015625f);
}

TEST(ReduceKernels, IntegerSumWrapsInsteadOfTrapping) {
  std::int32_t a = 2147483647, b = 1, d = 0;
  reduce(DType::i32, ReduceOp::sum, &d, &a, &b, 1);
  EXPECT_EQ(d, -2147483647 - 1);
}

TEST(ReduceKernels, BFloat16ConversionKeepsNaN) {
  BFloat16 n(std::nanf(""));
  EXPECT_TRUE(std::isnan(static_cast<float>(n)));
}

TEST(ReduceKernels, StreamingPathForOutputsLargerThanTheCache) {
  // Past the threshold the kernel streams its output with non-temporal stores; an
  // odd element offset exercises the unaligned head and the partial tail.
  for (DType t : kAllDTypes)
    for (ReduceOp op : kAllReduceOps)
      visit_dtype(t, [&](auto zero) {
        using T = decltype(zero);
        const std::size_t n = reduce_streaming_min_bytes() / sizeof(T) + 1003;
        std::vector<T> a(n + 1), b(n + 1), d(n + 1);
        for (std::size_t i = 0; i <= n; ++i) {
          a[i] = T(static_cast<float>(static_cast<int>(i % 97) - 40));
          b[i] = T(static_cast<float>(static_cast<int>(i % 13) - 6));
        }
        reduce(t, op, d.data() + 1, a.data() + 1, b.data() + 1, n);
        std::size_t bad = 0;
        for (std::size_t i = 1; i <= n; ++i) bad += as_double(d[i]) != as_double(expected(op, a[i], b[i]));
        EXPECT_EQ(bad, 0u) << dtype_name(t) << " " << reduce_op_name(op);
        const T a0 = a[0];
        reduce(t, op, a.data(), a.data(), b.data(), n + 1);  // in place, aligned
        EXPECT_EQ(as_double(a[0]), as_double(expected(op, a0, b[0]))) << dtype_name(t) << " " << reduce_op_name(op);
      });
}

TEST(ReduceKernels, EveryIsaPathEqualsThePortablePathBitForBit) {
  // Every 16-bit pattern as `a` (NaNs, infinities, subnormals, both zeros), each against
  // varied `b` patterns, on every path this CPU runs, streaming and not, with a, b and
  // dst at different misalignments and an odd length (so heads and tails run too).
  std::mt19937 gen(7);
  const std::size_t bytes = std::size_t{1} << 17;
  std::vector<unsigned char> a(bytes + 64), b(bytes + 64);
  for (std::size_t i = 0; i < bytes; i += 2) {
    const auto pattern = static_cast<std::uint16_t>(i / 2);
    std::memcpy(&a[i], &pattern, 2);
    const auto other = static_cast<std::uint16_t>(gen());
    std::memcpy(&b[i], &other, 2);
  }
  struct Offsets {
    std::size_t a, b, d;  // in elements
  };
  std::size_t paths = 0;
  for (KernelIsa isa : kernel_isas_available())
    for (Streaming streaming : {Streaming::never, Streaming::always})
      for (Offsets off : {Offsets{0, 0, 0}, Offsets{1, 2, 3}, Offsets{3, 0, 1}})
        for (DType t : kAllDTypes)
          for (ReduceOp op : kAllReduceOps) {
            const std::size_t elem = dtype_size(t), n = bytes / elem - 5;
            std::vector<unsigned char> fast(bytes + 64), portable(bytes + 64);
            const unsigned char* x = a.data() + off.a * elem;
            const unsigned char* y = b.data() + off.b * elem;
            reduce_with(isa, streaming, t, op, fast.data() + off.d * elem, x, y, n);
            reduce_portable(t, op, portable.data() + off.d * elem, x, y, n);
            // Results must match exactly, NaN payloads included (a quieted signalling NaN
            // too), except where both inputs are NaN, or for f32/f64 any NaN result: which
            // operand's NaN survives there depends on the operand order the compiler picks.
            std::size_t differ = 0;
            visit_dtype(t, [&](auto zero) {
              using T = decltype(zero);
              auto at = [&](const unsigned char* v, std::size_t i) {
                T e;
                std::memcpy(&e, v + i * sizeof(T), sizeof(T));
                return e;
              };
              const unsigned char* f = fast.data() + off.d * elem;
              const unsigned char* p = portable.data() + off.d * elem;
              for (std::size_t i = 0; i < n; ++i) {
                const T u = at(f, i), v = at(p, i);
                if constexpr (!std::is_integral_v<T>) {
                  auto nan = [](T e) { return std::isnan(as_double(e)); };
                  const bool payload_free = sizeof(T) >= 4 || (nan(at(x, i)) && nan(at(y, i)));
                  if (payload_free && nan(u) && nan(v)) continue;
                }
                differ += std::memcmp(&u, &v, sizeof(T)) != 0;
              }
            });
            EXPECT_EQ(differ, 0u) << dtype_name(t) << " " << reduce_op_name(op) << " on " << kernel_isa_name(isa)
                                  << (streaming == Streaming::always ? ", streaming" : "") << ", offsets " << off.a
                                  << "/" << off.b << "/" << off.d;
            ++paths;
          }
  EXPECT_GE(paths, 2u * 3 * 6 * 4);  // the portable path against itself at least
}

TEST(ReduceKernels, KernelIsaOverrideNamesTheChoices) {
  // reduce() takes the last available path unless COLLBENCH_KERNEL_ISA names another.
  const char* forced = std::getenv("COLLBENCH_KERNEL_ISA");
  const KernelIsa want = forced && *forced ? reduce_kernel_path() : kernel_isas_available().back();
  EXPECT_EQ(reduce_kernel_path(), want);
  EXPECT_EQ(std::string(reduce_kernel_isa()), kernel_isa_name(want));
  EXPECT_EQ(kernel_isas_available().front(), KernelIsa::portable);
}
