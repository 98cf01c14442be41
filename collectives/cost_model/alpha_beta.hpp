#pragma once
// Hockney's model t(m) = alpha + m / beta fitted to a size sweep, piecewise: MPI
// libraries switch protocols with the message size (eager, rendezvous, pipelined
// copies), so one line through 1 B .. 4 MiB describes no size well. The sizes are cut
// into at most `max_ranges` contiguous ranges, each with its own alpha and beta, at
// the cuts that minimise the squared relative error; the fewest ranges whose RMS
// relative error is within `tolerance` win.
#include <cstddef>
#include <vector>

namespace collbench {

struct SizeTime {
  double bytes = 0;
  double us = 0;  // > 0
};

struct AlphaBetaRange {
  double from_bytes = 0, to_bytes = 0;  // the range's smallest and largest measured size
  int points = 0;
  double alpha_us = 0;
  // Microseconds per byte (1 / beta); 0 where the range's times do not grow with the
  // size (latency-bound: no bandwidth measurable there).
  double us_per_byte = 0;
  double rms_rel_err = 0, max_rel_err = 0;
  // beta in GB/s (1e9 bytes per second); 0 for "not measurable" (us_per_byte 0).
  double beta_gbps() const { return us_per_byte > 0 ? 1e-3 / us_per_byte : 0; }
  double predict_us(double bytes) const { return alpha_us + bytes * us_per_byte; }
};

struct AlphaBetaFit {
  std::vector<AlphaBetaRange> ranges;  // in size order, covering every point
  double rms_rel_err = 0;              // over all points
};

struct FitSettings {
  int max_ranges = 4;
  int min_points = 3;       // per range (2 where there are fewer points in all)
  double tolerance = 0.05;  // RMS relative error that stops adding ranges
};

// One range through all `points` (alpha >= 0, beta > 0 or unmeasurable); throws
// std::invalid_argument on an empty set or a non-positive time.
AlphaBetaRange fit_one_range(const std::vector<SizeTime>& points);
// Points in any order; sizes must be distinct. Throws std::invalid_argument on fewer
// than 2 points, a non-positive time, a repeated size or bad settings.
AlphaBetaFit fit_alpha_beta(std::vector<SizeTime> points, const FitSettings& settings = {});

}  // namespace collbench
