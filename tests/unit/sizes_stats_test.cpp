#include <gtest/gtest.h>

#include <stdexcept>

#include "collectives/collective.hpp"
#include "harness/common/sizes.hpp"
#include "harness/common/stats.hpp"

using namespace collbench;

TEST(ParseSize, AcceptsPlainAndSuffixedSizes) {
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("1K"), 1024u);
  EXPECT_EQ(parse_size("64k"), 65536u);
  EXPECT_EQ(parse_size("16M"), 16u << 20);
  EXPECT_EQ(parse_size("2G"), std::size_t{2} << 30);
  EXPECT_EQ(parse_size("4KB"), 4096u);
}

TEST(ParseSize, RejectsMalformedNegativeAndHugeSizes) {
  for (const char* bad : {"", "-8", "1X", "abc", "1.5K", "K", "8 ", " 8", "1KK", "+8", "0x10"})
    EXPECT_THROW(parse_size(bad), std::invalid_argument) << "'" << bad << "'";
  EXPECT_THROW(parse_size("99999999999999G"), std::invalid_argument);
  try {
    parse_size("12Q");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'12Q'"), std::string::npos);
  }
}

TEST(SweepSizes, MultipliesByFactorAndAligns) {
  EXPECT_EQ(sweep_sizes(8, 64, 2, 4), (std::vector<std::size_t>{8, 16, 32, 64}));
  EXPECT_EQ(sweep_sizes(8, 100, 2, 4), (std::vector<std::size_t>{8, 16, 32, 64}));
  EXPECT_EQ(sweep_sizes(0, 16, 2, 4), (std::vector<std::size_t>{0, 4, 8, 16}));
  EXPECT_EQ(sweep_sizes(64, 64, 1, 8), (std::vector<std::size_t>{64}));
  EXPECT_EQ(sweep_sizes(12, 40, 1.5, 4), (std::vector<std::size_t>{12, 16, 24, 40}));
  EXPECT_TRUE(sweep_sizes(64, 8, 2, 4).empty());
}

TEST(Stats, PercentilesInterpolateBetweenOrderStatistics) {
  const std::vector<double> v = {5, 1, 4, 2, 3};
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 50), 3);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 5);
  EXPECT_DOUBLE_EQ(percentile(v, 99), 4.96);
  const Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.p50, 3);
}

TEST(Bandwidth, FollowsNcclTestsDefinitions) {
  EXPECT_DOUBLE_EQ(algbw_gbps(1e9, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(algbw_gbps(2e6, 1e-3), 2.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::allreduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::allreduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::allreduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::gather, 4), 0.75);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::allgather, 4), 0.75);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::reduce_scatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::broadcast, 4), 1);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::reduce, 4), 1);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::reduce, 8), 1.0);
  EXPECT_EQ(traits(Collective::allreduce).busbw_factor_text, "2(n-1)/n");
}
