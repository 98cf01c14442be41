#pragma once
// Sizes as every command takes them: parsing "64K", a sweep's sizes, and the -b/-e/-f range.
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
std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor, std::size_t align,
                                     std::size_t most = std::size_t(-1) - 1);

std::string format_bytes(std::size_t bytes);  // "1 KiB", "64 MiB", "8 B"

struct SizeRange {
  std::size_t min_bytes = 8;
  std::size_t max_bytes = std::size_t{64} << 20;
  double step_factor = 2;
};

// -b/-e into `r` (its step factor already parsed); throws std::invalid_argument on a
// malformed size, a minimum above the maximum, or a step factor of 1 for a range.
void parse_size_range(SizeRange& r, const std::string& min_text, const std::string& max_text);
// The sweep's sizes in steps of `unit`; refuses too many (kMaxSizes, or kHardMaxSizes with force).
std::vector<std::size_t> checked_sweep_sizes(const SizeRange& r, std::size_t unit, bool force);

}  // namespace collbench
