#pragma once
// Summaries of timings (min, mean, p50, p99, max), outliers, bandwidth.
#include <string>
#include <vector>

namespace collbench {

struct Summary {
  double min = 0, mean = 0, p50 = 0, p99 = 0, max = 0;
};

// Percentile p in [0,100] by linear interpolation between order statistics.
double percentile(std::vector<double> values, double p);
Summary summarize(const std::vector<double>& values);

// A timed call (in microseconds) is an outlier when it took over kOutlierFactor x the
// median (a stalled rank, a preempted core), or over kStallFactor x the median and at
// least kStallExtraUs beyond it: a call that waited out a TCP retransmission (Linux
// retransmits after 200 ms at the soonest: a link down for a moment, a lost packet),
// which at large sizes is only a few times a call. The mean, max and bandwidths of its
// row then say more about the stall than the call.
inline constexpr double kOutlierFactor = 20;
inline constexpr double kStallFactor = 3;
inline constexpr double kStallExtraUs = 200000;
bool is_outlier(double us, double median_us);
int count_outliers(const std::vector<double>& values_us, double median_us);
// The rule in words, for table headers and the JSON's definitions.
std::string outlier_rule();

// nccl-tests' definitions, in GB/s (1e9 bytes per second).
double algbw_gbps(double bytes, double seconds);

}  // namespace collbench
