#pragma once
// 16-bit floating types. f16 is the compiler's _Float16 (hardware conversion where
// F16C is available); bf16 is stored as raw bits and converted with round-to-nearest-even.
#include <bit>
#include <cstdint>

namespace collbench {

using Float16 = _Float16;

struct BFloat16 {
  std::uint16_t bits;

  BFloat16() = default;
  explicit BFloat16(float f) : bits(from_float(f)) {}
  explicit operator float() const { return std::bit_cast<float>(std::uint32_t(bits) << 16); }

  // Round to nearest even; NaN stays a (quiet) NaN. Branch-free so loops vectorise.
  static std::uint16_t from_float(float f) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    const std::uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const std::uint32_t quiet_nan = (u >> 16) | 0x40u;
    return static_cast<std::uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  }
};

}  // namespace collbench
