#include "harness/common/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace collbench {

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = p / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

Summary summarize(const std::vector<double>& v) {
  Summary s;
  if (v.empty()) return s;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  s.min = *lo;
  s.max = *hi;
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  s.p50 = percentile(v, 50);
  s.p99 = percentile(v, 99);
  return s;
}

int count_outliers(const std::vector<double>& v, double median) {
  return static_cast<int>(std::count_if(v.begin(), v.end(), [&](double x) { return x > kOutlierFactor * median; }));
}

double algbw_gbps(double bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0; }

}  // namespace collbench
