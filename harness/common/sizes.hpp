#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace collbench {

// Parses a byte count like "8", "64K", "1M", "2G" (binary multiples, as nccl-tests);
// throws std::invalid_argument with a message naming the text on anything else.
std::size_t parse_size(const std::string& text);

// Sizes from min to max (inclusive), multiplying by factor; each rounded down to a
// multiple of `align`. A zero minimum contributes 0 and continues from `align`. Stops
// after `most` + 1 sizes, so a caller can tell "too many" without making them all.
std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor,
                                     std::size_t align, std::size_t most = std::size_t(-1) - 1);

std::string format_bytes(std::size_t bytes);  // "1 KiB", "64 MiB", "8 B"

}  // namespace collbench
