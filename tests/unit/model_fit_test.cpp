// model fit's pure part: a p2p result's fit rows into a model's link classes.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "collectives/cost_model/model_file.hpp"
#include "harness/model/model_fit.hpp"

using namespace collbench;

namespace {
nlohmann::json fit_row(const char* link, const char* test, double from, double to, double alpha, nlohmann::json beta) {
  return {{"kind", "fit"}, {"link", link},      {"test", test},     {"from_bytes", from},
          {"bytes", to},   {"alpha_us", alpha}, {"beta_gbps", beta}};
}
}  // namespace

TEST(ModelFit, LinksArePingPongRangesWithTheExchangeTestsCostsBothWays) {
  const nlohmann::json doc = {{"rows",
                               {{{"kind", "measured"}, {"link", "inter-host"}, {"test", "latency"}},
                                fit_row("inter-host", "latency", 1, 256, 7.96, nullptr),
                                fit_row("inter-host", "latency", 1024, 16 << 20, 0, 0.13),
                                fit_row("inter-host", "exchange", 1, 16 << 20, 8, 0.125),  // both ways at once
                                fit_row("intra-host", "latency", 1, 4096, 0.15, 55.9),
                                fit_row("intra-host", "latency", 8192, 16 << 20, 2, 10),
                                fit_row("intra-host", "exchange", 1, 16 << 20, 0.2, 5.2),  // ~2x: takes turns
                                fit_row("intra-host", "bandwidth", 1, 1 << 20, 0.05, 12.8),
                                fit_row("inter-host", "bandwidth", 1, 1 << 20, 4, 0.13)}}};
  const nlohmann::json links = links_from_p2p(doc, "x.json");
  EXPECT_EQ(links["inter_host"]["ranges"].size(), 2u);
  EXPECT_EQ(links["intra_host"]["exchange"]["ranges"].size(), 1u);
  EXPECT_TRUE(links["notes"].empty());
  // What model fit writes parses as a model, each size taking its range's costs.
  const CostModelFile m = parse_model(
      {{"ranks_per_node", 2}, {"intra_host", links["intra_host"]}, {"inter_host", links["inter_host"]}}, "fitted");
  EXPECT_DOUBLE_EQ(m.inter.us(100), 7.96);  // flat range: no bandwidth measurable
  EXPECT_NEAR(m.inter.us(1e6), 1e6 * 1e-3 / 0.13, 1e-9);
  EXPECT_NEAR(m.intra.us(1e6), 2 + 1e6 * 1e-3 / 10, 1e-9);
  EXPECT_NEAR(m.intra.cost(true).us(1e6), 0.2 + 1e6 * 1e-3 / 5.2, 1e-9);
  EXPECT_NEAR(m.intra.cost(false).us(1e6), 2 + 1e6 * 1e-3 / 10, 1e-9);
}

TEST(ModelFit, TheWrittenTestBecomesTheLinksWrittenCost) {
  nlohmann::json doc = {
      {"rows",
       {fit_row("intra-host", "latency", 1, 16 << 20, 0.5, 10), fit_row("intra-host", "exchange", 1, 16 << 20, 0.5, 10),
        fit_row("intra-host", "written", 1, 16 << 20, 0.5, 4)}}};  // modified lines: slower
  const nlohmann::json links = links_from_p2p(doc, "x.json");
  const CostModelFile m = parse_model(
      {{"ranks_per_node", 2}, {"intra_host", links["intra_host"]}, {"inter_host", links["inter_host"]}}, "fitted");
  EXPECT_NEAR(m.intra.cost(true, true).us(1e6), 0.5 + 1e6 * 1e-3 / 4, 1e-9);
  EXPECT_NEAR(m.intra.cost(false, true).us(1e6), 0.5 + 1e6 * 1e-3 / 4, 1e-9);  // one way too
  EXPECT_NEAR(m.intra.cost(true, false).us(1e6), 0.5 + 1e6 * 1e-3 / 10, 1e-9);
  // Without the test, a written message costs as an untouched one.
  doc["rows"].erase(2);
  const nlohmann::json plain = links_from_p2p(doc, "x.json");
  EXPECT_FALSE(plain["intra_host"].contains("written"));
}

TEST(ModelFit, TheRewriteTestIsKeptWhereTheWrittenCostIs) {
  // Shared memory: written 1.4x the exchange, and storing over bytes just sent 3x a
  // plain store. Where the written test measures the exchange (the peer never reads the
  // sender's memory), the rewrite test's sum is an ordinary reduction: not kept. Nor
  // between hosts.
  auto rows_with = [](const char* link, double written_factor) {
    nlohmann::json rows = nlohmann::json::array();
    for (double b : {65536.0, 262144.0, 1048576.0, 4194304.0}) {
      const double t = 1 + b * 1e-4;
      for (auto [test, f] : {std::pair{"latency", 1.0}, std::pair{"exchange", 1.0},
                             std::pair{"written", written_factor}, std::pair{"rewrite", 3.0}})
        rows.push_back(
            {{"kind", "measured"}, {"link", link}, {"test", test}, {"bytes", b}, {"p50_us", f * t}, {"avg_us", f * t}});
    }
    return nlohmann::json{{"rows", rows}};
  };
  const nlohmann::json shm = links_from_p2p(rows_with("intra-host", 1.4), "x.json");
  ASSERT_TRUE(shm["intra_host"].contains("rewrite"));
  const CostModelFile m = parse_model(
      {{"ranks_per_node", 2}, {"intra_host", shm["intra_host"]}, {"inter_host", shm["inter_host"]}}, "fitted");
  EXPECT_NEAR(m.intra.rewrite.us(1048576), 3 * (1 + 1048576 * 1e-4), 1e-6);
  EXPECT_FALSE(links_from_p2p(rows_with("intra-host", 1.02), "x.json")["intra_host"].contains("rewrite"));
  EXPECT_FALSE(links_from_p2p(rows_with("inter-host", 1.4), "x.json")["inter_host"].contains("rewrite"));
}

TEST(ModelFit, BothWaysCostsAtTheirMeansStandInForTheMedians) {
  // An exchange on a FIFO link that sometimes takes turns: median 1 us + 1 ns/byte, mean
  // half again as much; ping-pong has no such second mode.
  auto measured = [](const char* test, double bytes, double p50, double avg) {
    return nlohmann::json{{"kind", "measured"}, {"link", "inter-host"}, {"test", test},
                          {"bytes", bytes},     {"p50_us", p50},        {"avg_us", avg}};
  };
  nlohmann::json rows = nlohmann::json::array();
  for (double b : {1e3, 1e4, 1e5, 1e6}) {
    rows.push_back(measured("latency", b, 1 + b * 1e-3, 1 + b * 1e-3));
    rows.push_back(measured("exchange", b, 1 + b * 1e-3, 1.5 * (1 + b * 1e-3)));
    rows.push_back(measured("written", b, 2 + b * 1e-3, 1.5 * (2 + b * 1e-3)));
  }
  const nlohmann::json links = links_from_p2p({{"rows", rows}}, "x.json");
  auto model = [](const nlohmann::json& link) {
    return parse_model({{"ranks_per_node", 1}, {"intra_host", link}, {"inter_host", link}}, "fitted");
  };
  const CostModelFile m = model(links["inter_host"]);
  EXPECT_NEAR(m.inter.us(1e5), 101, 1e-6);
  EXPECT_NEAR(m.inter.cost(true).us(1e5), 151.5, 1e-6);
  EXPECT_NEAR(m.inter.cost(false, true).us(1e5), 153, 1e-6);
  // Without them (validate_model.sh's comparison), the medians.
  nlohmann::json medians = links["inter_host"];
  medians.erase("exchange_means");
  EXPECT_NEAR(model(medians).inter.cost(true).us(1e5), 101, 1e-6);
  EXPECT_NEAR(model(medians).inter.cost(false, true).us(1e5), 102, 1e-6);
  // Leaving the written cost out leaves its mean out too: a written message costs as any.
  nlohmann::json unwritten = links["inter_host"];
  unwritten.erase("written");
  EXPECT_NEAR(model(unwritten).inter.cost(false, true).us(1e5), 101, 1e-6);
  EXPECT_NEAR(model(unwritten).inter.cost(true, true).us(1e5), 151.5, 1e-6);
}

TEST(ModelFit, AWrittenTestThatMeasuresTheExchangeIsPooledWithIt) {
  // A FIFO link: both tests' medians within 3% of each other, their means apart by the
  // luck of which mode 10 calls hit (exchange 1.5x, written 1.1x the median).
  auto measured = [](const char* test, double bytes, double p50, double avg, double iters) {
    return nlohmann::json{{"kind", "measured"}, {"link", "inter-host"}, {"test", test},  {"bytes", bytes},
                          {"p50_us", p50},      {"avg_us", avg},        {"iters", iters}};
  };
  auto rows_with = [&](double written_factor) {
    nlohmann::json rows = nlohmann::json::array();
    for (double b : {65536.0, 262144.0, 1048576.0, 4194304.0}) {
      const double t = 10 + b * 1e-2;
      rows.push_back(measured("latency", b, t, t, 10));
      rows.push_back(measured("exchange", b, t, 1.5 * t, 10));
      rows.push_back(measured("written", b, written_factor * t, 1.1 * written_factor * t, 30));
    }
    return rows;
  };
  const nlohmann::json same = links_from_p2p({{"rows", rows_with(1.03)}}, "x.json");
  EXPECT_FALSE(same["inter_host"].contains("written"));
  EXPECT_FALSE(same["inter_host"]["exchange_means"].contains("written"));
  const CostModelFile m = parse_model(
      {{"ranks_per_node", 1}, {"intra_host", same["inter_host"]}, {"inter_host", same["inter_host"]}}, "fitted");
  const double t = 10 + 1048576.0 * 1e-2;
  EXPECT_NEAR(m.inter.cost(true).us(1048576), (10 * 1.5 + 30 * 1.1 * 1.03) / 40 * t, 1e-3 * t);  // pooled
  EXPECT_NEAR(m.inter.cost(true, true).us(1048576), m.inter.cost(true).us(1048576), 1e-9);
  EXPECT_NE(same["notes"].dump().find("the same transfer"), std::string::npos);
  // 1.4x (shared memory's modified lines): a cost of its own, each test's means its own.
  const nlohmann::json differs = links_from_p2p({{"rows", rows_with(1.4)}}, "x.json");
  ASSERT_TRUE(differs["inter_host"].contains("written"));
  const CostModelFile d = parse_model(
      {{"ranks_per_node", 1}, {"intra_host", differs["inter_host"]}, {"inter_host", differs["inter_host"]}}, "fitted");
  EXPECT_NEAR(d.inter.cost(true).us(1048576), 1.5 * t, 1e-3 * t);
  EXPECT_NEAR(d.inter.cost(false, true).us(1048576), 1.1 * 1.4 * t, 1e-3 * t);
}

TEST(ModelFit, RecoversKnownCostsFromSyntheticTimes) {
  // Two protocols (eager to 8 KiB, rendezvous above) and a reduction that leaves the
  // cache at 4 MiB: each recovered within 1% at every size.
  auto link = [](double m) { return m <= 8192 ? 1.2 + m / 6000.0 : 9.0 + m / 11000.0; };
  auto gamma = [](double m) { return m < 4e6 ? 0.05 + m / 60000.0 : 0.0 + m / 9000.0; };
  std::vector<SizeTime> lat, red;
  for (double m = 64; m <= 64 << 20; m *= 2) lat.push_back({m, link(m)}), red.push_back({m, gamma(m)});
  nlohmann::json rows = nlohmann::json::array();
  for (const AlphaBetaRange& r : fit_alpha_beta(lat).ranges)
    rows.push_back(fit_row("intra-host", "latency", r.from_bytes, r.to_bytes, r.alpha_us,
                           r.us_per_byte > 0 ? nlohmann::json(r.beta_gbps()) : nlohmann::json(nullptr)));
  const nlohmann::json links = links_from_p2p({{"rows", rows}}, "synthetic");
  const CostModelFile m = parse_model({{"ranks_per_node", 1},
                                       {"intra_host", links["intra_host"]},
                                       {"inter_host", links["inter_host"]},
                                       {"reduce_gbps", {{"default", fitted_ranges(red)}}}},
                                      "synthetic");
  const CostParams p = cost_params(m, DType::f32, ReduceOp::sum);
  for (const SizeTime& x : lat) EXPECT_NEAR(p.intra.us(x.bytes), x.us, 0.01 * x.us) << x.bytes;
  for (const SizeTime& x : red) EXPECT_NEAR(p.reduce.us(x.bytes), x.us, 0.01 * x.us) << x.bytes;
}

TEST(ModelFit, AClassNotMeasuredTakesTheOthersValuesWithANote) {
  const nlohmann::json doc = {
      {"rows",
       {fit_row("intra-host", "latency", 1, 4096, 0.5, 20), fit_row("intra-host", "bandwidth", 1, 4096, 0.2, 10)}}};
  const nlohmann::json links = links_from_p2p(doc, "x.json");
  EXPECT_EQ(links["inter_host"], links["intra_host"]);
  ASSERT_EQ(links["notes"].size(), 2u);  // no exchange test, and no inter-host pair
  EXPECT_NE(links["notes"][1].get<std::string>().find("inter_host copied from intra_host"), std::string::npos);
}

TEST(ModelFit, RefusesWhatIsNotAP2pResult) {
  EXPECT_THROW(links_from_p2p(nlohmann::json::object(), "x.json"), std::invalid_argument);
  EXPECT_THROW(links_from_p2p({{"rows", nlohmann::json::array()}}, "x.json"), std::invalid_argument);
  EXPECT_THROW(links_from_p2p({{"rows",
                                {fit_row("intra-host", "latency", 1, 8, 1, nullptr),
                                 fit_row("intra-host", "bandwidth", 1, 8, 1, nullptr)}}},
                              "x.json"),
               std::invalid_argument);
}

// Two busy-polling ranks on one core: every ping-pong one scheduler tick, whatever its
// size (measured so, the cause of cli.model's failures beside other tests). No bandwidth
// to fit, and the refusal says why.
TEST(ModelFit, FlatPingPongTimesAreRefusedWithTheirCause) {
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < 10; ++i)
    rows.push_back({{"kind", "measured"},
                    {"link", "intra-host"},
                    {"test", "latency"},
                    {"bytes", 1 << (2 * i)},
                    {"p50_us", 3999.0 + (i % 3)}});
  try {
    links_from_p2p({{"rows", rows}}, "x.json");
    FAIL() << "a flat p2p run was fitted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("every ping-pong took 3999.0-4001.0 us from 1 to 262144 bytes"),
              std::string::npos)
        << e.what();
  }
}

TEST(ModelFile, SharedPortsIsTrueOrFalseAndOffUnlessAsked) {
  const nlohmann::json link = {{"alpha_us", 1}, {"beta_gbps", 10}};
  nlohmann::json j = {{"ranks_per_node", 1}, {"intra_host", link}, {"inter_host", link}};
  EXPECT_FALSE(cost_params(parse_model(j, "m.json"), DType::f32, ReduceOp::sum).shared_ports);
  j["shared_ports"] = true;
  EXPECT_TRUE(cost_params(parse_model(j, "m.json"), DType::f32, ReduceOp::sum).shared_ports);
  j["shared_ports"] = 1;
  EXPECT_THROW(parse_model(j, "m.json"), std::invalid_argument);
}

TEST(ModelFit, PairSharingFromTheSizeThePairTestTakesTwoMessagesTimeOn) {
  // p2p's pair test: two messages at once, until the first arrives, after a go message
  // (the smallest ping-pong). One after another it takes about one ping-pong of the
  // size; interleaved, about two, here from 64 KiB (a rendezvous threshold) on.
  auto rows_with = [](double interleaved_from) {
    nlohmann::json rows = nlohmann::json::array();
    for (double b = 1; b <= 16 << 20; b *= 4) {
      const double t = 5 + b * 1e-3, pair = 5 + (b >= interleaved_from ? 2 : 1) * (t - 0.2);
      for (auto [test, us] : {std::pair{"latency", t}, std::pair{"pair", pair}})
        rows.push_back({{"kind", "measured"}, {"link", "intra-host"}, {"test", test}, {"bytes", b}, {"p50_us", us}});
    }
    return rows;
  };
  const nlohmann::json shares = links_from_p2p({{"rows", rows_with(65536)}}, "x.json");
  ASSERT_TRUE(shares["intra_host"].contains("pair_shares"));
  EXPECT_EQ(shares["intra_host"]["pair_shares"]["from_bytes"], 65536);
  const CostModelFile m = parse_model(
      {{"ranks_per_node", 1}, {"intra_host", shares["intra_host"]}, {"inter_host", shares["inter_host"]}}, "fitted");
  EXPECT_TRUE(m.intra.pair_shares(65536));
  EXPECT_FALSE(m.intra.pair_shares(65535));
  EXPECT_NE(shares["notes"].dump().find("a pair's messages share its bandwidth"), std::string::npos);
  // One after another at every size; and interleaved only at the largest size, which
  // one size cannot tell from noise.
  for (double from : {1e30, double(16 << 20)}) {
    const nlohmann::json turns = links_from_p2p({{"rows", rows_with(from)}}, "x.json");
    EXPECT_FALSE(turns["intra_host"].contains("pair_shares")) << from;
    EXPECT_FALSE(
        parse_model({{"ranks_per_node", 1}, {"intra_host", turns["intra_host"]}, {"inter_host", turns["inter_host"]}},
                    "fitted")
            .intra.pair_shares(16 << 20));
  }
  nlohmann::json bad = {{"ranks_per_node", 1},
                        {"intra_host", {{"alpha_us", 1}, {"beta_gbps", 1}, {"pair_shares", {{"from_bytes", -1}}}}},
                        {"inter_host", {{"alpha_us", 1}, {"beta_gbps", 1}}}};
  EXPECT_THROW(parse_model(bad, "m.json"), std::invalid_argument);
  bad["intra_host"]["pair_shares"] = 65536;
  EXPECT_THROW(parse_model(bad, "m.json"), std::invalid_argument);
}

TEST(ModelFit, TheBandwidthTestBecomesTheLinksStreamCost) {
  // A ping-pong of 5 us + 1 ns/byte; a window of messages in flight takes 3 us + 1 ns/byte
  // each: 3 of the 5 us are each message's own (they hold the ports), 2 overlap.
  nlohmann::json rows = nlohmann::json::array();
  for (double b = 1; b <= 1 << 20; b *= 4)
    for (auto [test, us] : {std::pair{"latency", 5 + b * 1e-3}, std::pair{"bandwidth", 3 + b * 1e-3}})
      rows.push_back({{"kind", "measured"}, {"link", "intra-host"}, {"test", test}, {"bytes", b}, {"p50_us", us}});
  const nlohmann::json links = links_from_p2p({{"rows", rows}}, "x.json");
  ASSERT_TRUE(links["intra_host"].contains("stream"));
  const CostModelFile m = parse_model(
      {{"ranks_per_node", 1}, {"intra_host", links["intra_host"]}, {"inter_host", links["inter_host"]}}, "fitted");
  const CostParams p = cost_params(m, DType::f32, ReduceOp::sum);
  const MessageCost c = message_cost(p, {}, true, 4096, false, false);
  EXPECT_NEAR(c.alpha_us, 2, 1e-6);
  EXPECT_NEAR(c.port_us, 3 + 4096 * 1e-3, 1e-6);
  // Without the test: no stream cost, and a note says what that means.
  rows.erase(std::remove_if(rows.begin(), rows.end(), [](const nlohmann::json& r) { return r["test"] == "bandwidth"; }),
             rows.end());
  const nlohmann::json plain = links_from_p2p({{"rows", rows}}, "x.json");
  EXPECT_FALSE(plain["intra_host"].contains("stream"));
  EXPECT_NE(plain["notes"].dump().find("no bandwidth test"), std::string::npos);
}
