#pragma once
// Splits a count into near-equal chunks, as the builders share it.
#include <cstddef>

namespace collbench {

// Splits `count` elements into `parts` nearly equal chunks; the first count % parts
// chunks get one element more.
struct Chunking {
  std::size_t count;
  std::size_t parts;

  std::size_t size(std::size_t i) const { return count / parts + (i < count % parts ? 1 : 0); }
  std::size_t offset(std::size_t i) const {
    const std::size_t extra = count % parts;
    return i * (count / parts) + (i < extra ? i : extra);
  }
  std::size_t largest() const { return count / parts + (count % parts ? 1 : 0); }
};

}  // namespace collbench
