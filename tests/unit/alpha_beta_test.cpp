// The piecewise alpha-beta fit on synthetic sweeps with known latency and bandwidth.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "collectives/cost_model/alpha_beta.hpp"

using namespace collbench;

namespace {

// t(m) = alpha + m / beta per range, at 1 B .. 4 MiB in powers of two.
std::vector<SizeTime> sweep(const std::vector<std::pair<double, AlphaBetaRange>>& below, double noise = 0,
                            unsigned seed = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> jitter(-noise, noise);
  std::vector<SizeTime> out;
  for (double m = 1; m <= 4 << 20; m *= 2)
    for (const auto& [limit, r] : below)
      if (m <= limit) {
        out.push_back({m, r.predict_us(m) * (1 + jitter(gen))});
        break;
      }
  return out;
}

AlphaBetaRange line(double alpha_us, double beta_gbps) {
  AlphaBetaRange r;
  r.alpha_us = alpha_us;
  r.us_per_byte = beta_gbps > 0 ? 1e-3 / beta_gbps : 0;
  return r;
}

}  // namespace

TEST(AlphaBetaFit, RecoversOneLineExactly) {
  const AlphaBetaFit f = fit_alpha_beta(sweep({{1e30, line(25, 0.117)}}));
  ASSERT_EQ(f.ranges.size(), 1u);
  EXPECT_NEAR(f.ranges[0].alpha_us, 25, 25 * 1e-9);
  EXPECT_NEAR(f.ranges[0].beta_gbps(), 0.117, 0.117 * 1e-9);
  EXPECT_EQ(f.ranges[0].points, 23);
  EXPECT_EQ(f.ranges[0].from_bytes, 1);
  EXPECT_EQ(f.ranges[0].to_bytes, 4 << 20);
  EXPECT_LT(f.rms_rel_err, 1e-12);
}

TEST(AlphaBetaFit, FindsAProtocolSwitchAndBothLines) {
  // Eager up to 8 KiB (low latency, slow copy), rendezvous above (a handshake, then fast).
  const AlphaBetaFit f = fit_alpha_beta(sweep({{8192, line(2, 3)}, {1e30, line(15, 10)}}));
  ASSERT_EQ(f.ranges.size(), 2u);
  EXPECT_EQ(f.ranges[0].to_bytes, 8192);
  EXPECT_EQ(f.ranges[1].from_bytes, 16384);
  EXPECT_NEAR(f.ranges[0].alpha_us, 2, 2e-9);
  EXPECT_NEAR(f.ranges[0].beta_gbps(), 3, 3e-9);
  EXPECT_NEAR(f.ranges[1].alpha_us, 15, 15e-9);
  EXPECT_NEAR(f.ranges[1].beta_gbps(), 10, 10e-9);
}

TEST(AlphaBetaFit, RecoversWithinOnePercentUnderNoise) {
  // +-1% jitter on every time, as a quiet machine gives.
  const AlphaBetaFit f = fit_alpha_beta(sweep({{65536, line(30, 0.5)}, {1e30, line(120, 0.117)}}, 0.01, 7));
  ASSERT_EQ(f.ranges.size(), 2u);
  EXPECT_EQ(f.ranges[0].to_bytes, 65536);
  EXPECT_NEAR(f.ranges[0].alpha_us, 30, 0.3);
  EXPECT_NEAR(f.ranges[1].beta_gbps(), 0.117, 0.00117);
  EXPECT_LT(f.rms_rel_err, 0.01);
}

TEST(AlphaBetaFit, FlatTimesHaveNoMeasurableBandwidth) {
  std::vector<SizeTime> flat;
  for (double m = 1; m <= 1024; m *= 2) flat.push_back({m, m == 64 ? 5.1 : 5.0});
  const AlphaBetaRange r = fit_one_range(flat);
  EXPECT_EQ(r.us_per_byte, 0);
  EXPECT_EQ(r.beta_gbps(), 0);
  EXPECT_NEAR(r.alpha_us, 5.0, 0.02);
}

TEST(AlphaBetaFit, LatencyIsNeverNegative) {
  // Times that grow faster than linearly from zero would give a negative intercept.
  const AlphaBetaRange r = fit_one_range({{1000, 1}, {2000, 2.5}, {4000, 6}});
  EXPECT_EQ(r.alpha_us, 0);
  EXPECT_GT(r.us_per_byte, 0);
}

TEST(AlphaBetaFit, UsesNoMoreRangesThanTheToleranceNeeds) {
  FitSettings loose;
  loose.tolerance = 10;  // anything goes: one range
  EXPECT_EQ(fit_alpha_beta(sweep({{8192, line(2, 3)}, {1e30, line(15, 10)}}), loose).ranges.size(), 1u);
  FitSettings one;
  one.max_ranges = 1;
  one.tolerance = 0;
  EXPECT_EQ(fit_alpha_beta(sweep({{8192, line(2, 3)}, {1e30, line(15, 10)}}), one).ranges.size(), 1u);
}

TEST(AlphaBetaFit, RefusesWhatCannotBeFitted) {
  EXPECT_THROW(fit_alpha_beta({{8, 1}}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta({{8, 1}, {16, 0}}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta({{8, 1}, {8, 2}}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta({{8, 1}, {16, NAN}}), std::invalid_argument);
  FitSettings bad;
  bad.max_ranges = 0;
  EXPECT_THROW(fit_alpha_beta({{8, 1}, {16, 2}}, bad), std::invalid_argument);
  EXPECT_THROW(fit_one_range({}), std::invalid_argument);
}
