// model fit's pure part: a p2p result's fit rows into a model's link classes.
#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/model/model_file.hpp"
#include "harness/model/model_fit.hpp"

using namespace collbench;

namespace {
nlohmann::json fit_row(const char* link, const char* test, double from, double to, double alpha, nlohmann::json beta) {
  return {{"kind", "fit"}, {"link", link}, {"test", test}, {"from_bytes", from}, {"bytes", to},
          {"alpha_us", alpha}, {"beta_gbps", beta}};
}
}  // namespace

TEST(ModelFit, LatencyFromTheSmallestRangeBandwidthFromTheLargestStreamingRange) {
  const nlohmann::json doc = {{"rows",
                               {{{"kind", "measured"}, {"link", "inter-host"}, {"test", "latency"}},
                                fit_row("inter-host", "latency", 1, 256, 7.96, nullptr),
                                fit_row("inter-host", "latency", 1024, 16 << 20, 0, 0.13),
                                fit_row("inter-host", "bandwidth", 1, 256, 8.06, 0.173),
                                fit_row("inter-host", "bandwidth", 1024, 16 << 20, 1.08, 0.1198),
                                fit_row("intra-host", "latency", 1, 4096, 0.15, 55.9),
                                fit_row("intra-host", "bandwidth", 1, 1 << 20, 0.05, 12.8),
                                fit_row("intra-host", "bandwidth", 2 << 20, 16 << 20, 0, nullptr)}}};
  const nlohmann::json links = links_from_p2p(doc, "x.json");
  EXPECT_DOUBLE_EQ(links["inter_host"]["alpha_us"].get<double>(), 7.96);
  EXPECT_DOUBLE_EQ(links["inter_host"]["beta_gbps"].get<double>(), 0.1198);
  EXPECT_DOUBLE_EQ(links["intra_host"]["alpha_us"].get<double>(), 0.15);
  EXPECT_DOUBLE_EQ(links["intra_host"]["beta_gbps"].get<double>(), 12.8);  // the last range with a bandwidth
  EXPECT_TRUE(links["notes"].empty());
  // What model fit writes parses as a model.
  const CostModelFile m = parse_model({{"ranks_per_node", 2}, {"intra_host", links["intra_host"]},
                                       {"inter_host", links["inter_host"]}}, "fitted");
  EXPECT_NEAR(1e-3 / m.inter.us_per_byte, 0.1198, 1e-12);
}

TEST(ModelFit, AClassNotMeasuredTakesTheOthersValuesWithANote) {
  const nlohmann::json doc = {{"rows",
                               {fit_row("intra-host", "latency", 1, 4096, 0.5, 20),
                                fit_row("intra-host", "bandwidth", 1, 4096, 0.2, 10)}}};
  const nlohmann::json links = links_from_p2p(doc, "x.json");
  EXPECT_EQ(links["inter_host"]["beta_gbps"], links["intra_host"]["beta_gbps"]);
  ASSERT_EQ(links["notes"].size(), 1u);
  EXPECT_NE(links["notes"][0].get<std::string>().find("inter_host copied from intra_host"), std::string::npos);
}

TEST(ModelFit, RefusesWhatIsNotAP2pResult) {
  EXPECT_THROW(links_from_p2p(nlohmann::json::object(), "x.json"), std::invalid_argument);
  EXPECT_THROW(links_from_p2p({{"rows", nlohmann::json::array()}}, "x.json"), std::invalid_argument);
  EXPECT_THROW(links_from_p2p({{"rows", {fit_row("intra-host", "latency", 1, 8, 1, nullptr),
                                         fit_row("intra-host", "bandwidth", 1, 8, 1, nullptr)}}}, "x.json"),
               std::invalid_argument);
}
