#pragma once
#include <vector>

namespace collbench {

struct Summary {
  double min = 0, mean = 0, p50 = 0, p99 = 0, max = 0;
};

// Percentile p in [0,100] by linear interpolation between order statistics.
double percentile(std::vector<double> values, double p);
Summary summarize(const std::vector<double>& values);

// A sample this many times the median is an outlier (a stalled rank, a preempted core):
// the mean, max and bandwidths of its row then say more about the stall than the call.
inline constexpr double kOutlierFactor = 20;
int count_outliers(const std::vector<double>& values, double median);

// nccl-tests' definitions, in GB/s (1e9 bytes per second).
double algbw_gbps(double bytes, double seconds);

}  // namespace collbench
