#include "harness/common/sizes.hpp"

#include "harness/common/request_limits.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace collbench {

std::size_t parse_size(const std::string& text) {
  const std::string bad =
      "invalid size '" + text + "': expected a non-negative whole number of bytes with an optional K, M or G suffix";
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) throw std::invalid_argument(bad);
  std::size_t pos = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &pos);
  } catch (const std::exception&) {
    throw std::invalid_argument(bad);
  }
  unsigned shift = 0;
  if (pos < text.size()) {
    switch (std::toupper(static_cast<unsigned char>(text[pos]))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      default: throw std::invalid_argument(bad);
    }
    ++pos;
    if (pos < text.size() && (text[pos] == 'B' || text[pos] == 'b')) ++pos;  // "64KB"
  }
  if (pos != text.size()) throw std::invalid_argument(bad);
  if (value > (std::numeric_limits<std::size_t>::max() >> shift))
    throw std::invalid_argument("size '" + text + "' is too large");
  return static_cast<std::size_t>(value) << shift;
}

std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor, std::size_t align,
                                     std::size_t most) {
  std::vector<std::size_t> out;
  if (min_bytes > max_bytes || align == 0) return out;
  std::size_t s = min_bytes;
  if (s == 0) {
    out.push_back(0);
    s = align;
  }
  while (s <= max_bytes && out.size() <= most) {
    const std::size_t aligned = s / align * align;
    if (out.empty() || aligned > out.back()) out.push_back(aligned);
    if (factor <= 1.0) break;
    const double next = std::floor(static_cast<double>(s) * factor);
    if (next >= static_cast<double>(std::numeric_limits<std::size_t>::max())) break;
    s = std::max(s + 1, static_cast<std::size_t>(next));
  }
  return out;
}

std::string format_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024 && u < 4 && std::fmod(v, 1024) == 0) {
    v /= 1024;
    ++u;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  return buf;
}

void parse_size_range(SizeRange& r, const std::string& min_text, const std::string& max_text) {
  r.min_bytes = parse_size(min_text);
  r.max_bytes = parse_size(max_text);
  if (r.min_bytes > r.max_bytes)
    throw std::invalid_argument("--minbytes (" + min_text + ") is larger than --maxbytes (" + max_text + ")");
  if (!(r.step_factor > 1) && r.min_bytes != r.max_bytes)
    throw std::invalid_argument("--stepfactor must be greater than 1 when --minbytes and --maxbytes differ");
}

std::vector<std::size_t> checked_sweep_sizes(const SizeRange& r, std::size_t unit, bool force) {
  const std::vector<std::size_t> sizes =
      sweep_sizes(r.min_bytes, r.max_bytes, r.step_factor, unit, force ? kHardMaxSizes : kMaxSizes);
  char what[160];
  std::snprintf(what, sizeof what, "-f %.10g from %s to %s gives more than %zu sizes", r.step_factor,
                format_bytes(r.min_bytes).c_str(), format_bytes(r.max_bytes).c_str(), sizes.size() - 1);
  if (sizes.size() > kHardMaxSizes)
    throw std::invalid_argument(std::string(what) + "; at most " + std::to_string(kHardMaxSizes));
  check_count(static_cast<long double>(sizes.size()), kMaxSizes, what, "use a larger --stepfactor", force);
  return sizes;
}

}  // namespace collbench
