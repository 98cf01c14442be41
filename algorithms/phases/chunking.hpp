#pragma once
// Splits a count into near-equal chunks, as the builders share it.
#include <cstddef>

namespace collbench {

// Splits `count` elements into `parts` nearly equal chunks: chunk i starts at
// floor(count * i / parts), so the longer chunks (one element more) are spread evenly
// rather than all first. Sizes then repeat every parts / gcd(count, parts) chunks, which
// keeps a ring's ranks images of each other in blocks of that period (the cost model's
// symmetric path) where count < parts or parts does not divide it.
struct Chunking {
  std::size_t count;
  std::size_t parts;

  std::size_t offset(std::size_t i) const {
    std::size_t product = 0;
    if (!__builtin_mul_overflow(count, i, &product)) return product / parts;  // 64 bits suffice (and are fast)
    return static_cast<std::size_t>(static_cast<unsigned __int128>(count) * i / parts);
  }
  std::size_t size(std::size_t i) const { return offset(i + 1) - offset(i); }
  std::size_t largest() const { return count / parts + (count % parts ? 1 : 0); }
};

}  // namespace collbench
