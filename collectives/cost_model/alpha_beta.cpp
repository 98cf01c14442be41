#include "collectives/cost_model/alpha_beta.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace collbench {
namespace {

using Points = std::vector<SizeTime>;

// Weighted least squares with weights 1/t^2: minimises the squared *relative*
// residuals, so 1 us at 8 B counts as much as 1 ms at 4 MiB. Both coefficients are
// kept non-negative (a negative latency or bandwidth means nothing); the constrained
// optimum then lies on the boundary, fitted with the other coefficient alone.
AlphaBetaRange fit_span(const Points& p, std::size_t first, std::size_t last) {
  double sw = 0, swm = 0, swmm = 0, swt = 0, swmt = 0;
  for (std::size_t i = first; i < last; ++i) {
    const double w = 1 / (p[i].us * p[i].us), m = p[i].bytes, t = p[i].us;
    sw += w, swm += w * m, swmm += w * m * m, swt += w * t, swmt += w * m * t;
  }
  AlphaBetaRange r;
  r.from_bytes = p[first].bytes;
  r.to_bytes = p[last - 1].bytes;
  r.points = static_cast<int>(last - first);
  const double det = sw * swmm - swm * swm;
  double a = swt / sw, s = 0;  // a flat line: the fallback for one size or a falling range
  if (last - first >= 2 && det > 0) {
    a = (swmm * swt - swm * swmt) / det;
    s = (sw * swmt - swm * swt) / det;
    if (s < 0)
      a = swt / sw, s = 0;
    else if (a < 0)
      a = 0, s = swmt / swmm;
  }
  r.alpha_us = a;
  r.us_per_byte = s;
  double sq = 0;
  for (std::size_t i = first; i < last; ++i) {
    const double e = std::abs(r.predict_us(p[i].bytes) - p[i].us) / p[i].us;
    sq += e * e;
    r.max_rel_err = std::max(r.max_rel_err, e);
  }
  r.rms_rel_err = std::sqrt(sq / r.points);
  return r;
}

double squared_error(const AlphaBetaRange& r) { return r.rms_rel_err * r.rms_rel_err * r.points; }

void check_points(const Points& p) {
  for (const SizeTime& x : p)
    if (!(x.us > 0) || !std::isfinite(x.us) || !(x.bytes >= 0) || !std::isfinite(x.bytes))
      throw std::invalid_argument("alpha-beta fit: times must be positive and sizes non-negative");
}

}  // namespace

AlphaBetaRange fit_one_range(const std::vector<SizeTime>& points) {
  if (points.empty()) throw std::invalid_argument("alpha-beta fit: no points");
  check_points(points);
  Points p = points;
  std::sort(p.begin(), p.end(), [](const SizeTime& a, const SizeTime& b) { return a.bytes < b.bytes; });
  return fit_span(p, 0, p.size());
}

AlphaBetaFit fit_alpha_beta(std::vector<SizeTime> p, const FitSettings& settings) {
  if (p.size() < 2)
    throw std::invalid_argument("alpha-beta fit: needs at least 2 sizes, got " + std::to_string(p.size()));
  if (settings.max_ranges < 1 || settings.min_points < 2 || !(settings.tolerance >= 0))
    throw std::invalid_argument("alpha-beta fit: max_ranges >= 1, min_points >= 2 and tolerance >= 0 required");
  check_points(p);
  std::sort(p.begin(), p.end(), [](const SizeTime& a, const SizeTime& b) { return a.bytes < b.bytes; });
  for (std::size_t i = 1; i < p.size(); ++i)
    if (p[i].bytes == p[i - 1].bytes) throw std::invalid_argument("alpha-beta fit: a size appears twice");

  const std::size_t n = p.size();
  const std::size_t least = std::min<std::size_t>(static_cast<std::size_t>(settings.min_points), n);
  const std::size_t most = std::min<std::size_t>(static_cast<std::size_t>(settings.max_ranges), n / least);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // cost[k][j]: least squared error of the first j points in k ranges; cut[k][j]: where the last begins.
  std::vector<std::vector<double>> cost(most + 1, std::vector<double>(n + 1, kInf));
  std::vector<std::vector<std::size_t>> cut(most + 1, std::vector<std::size_t>(n + 1, 0));
  cost[0][0] = 0;
  AlphaBetaFit best;
  for (std::size_t k = 1; k <= most; ++k) {
    for (std::size_t j = k * least; j <= n; ++j)
      for (std::size_t i = (k - 1) * least; i + least <= j; ++i) {
        if (cost[k - 1][i] == kInf) continue;
        const double c = cost[k - 1][i] + squared_error(fit_span(p, i, j));
        if (c < cost[k][j]) cost[k][j] = c, cut[k][j] = i;
      }
    if (cost[k][n] == kInf) continue;
    AlphaBetaFit fit;
    fit.rms_rel_err = std::sqrt(cost[k][n] / static_cast<double>(n));
    for (std::size_t j = n, r = k; r > 0; j = cut[r][j], --r)
      fit.ranges.insert(fit.ranges.begin(), fit_span(p, cut[r][j], j));
    if (best.ranges.empty() || fit.rms_rel_err < best.rms_rel_err) best = fit;
    if (fit.rms_rel_err <= settings.tolerance) return fit;
  }
  return best;
}

}  // namespace collbench
