#pragma once
// FNV-1a, 64 bits: a stable hash for telling inputs apart and spreading keys (not
// against an adversary). Chain calls by passing the previous result as `h`.
#include <cstdint>
#include <string_view>

namespace collbench {

inline constexpr std::uint64_t kFnv1aBasis = 1469598103934665603ULL;

inline std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h = kFnv1aBasis) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace collbench
