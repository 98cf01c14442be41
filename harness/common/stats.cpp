#include "harness/common/stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

bool is_outlier(double us, double median_us) {
  return us > kOutlierFactor * median_us || (us > kStallFactor * median_us && us - median_us >= kStallExtraUs);
}

int count_outliers(const std::vector<double>& v, double median) {
  return static_cast<int>(std::count_if(v.begin(), v.end(), [&](double x) { return is_outlier(x, median); }));
}

std::string outlier_rule() {
  char text[160];
  std::snprintf(text, sizeof text,
                "timed calls over %gx p50, or over %gx p50 and %g s beyond it (a stall: preemption, a "
                "lost link's retransmission)",
                kOutlierFactor, kStallFactor, kStallExtraUs / 1e6);
  return text;
}

double algbw_gbps(double bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0; }

}  // namespace collbench
