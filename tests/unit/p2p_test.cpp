// p2p's pure parts: which pairs stand for which link class, and the bandwidth window.
#include <gtest/gtest.h>

#include "harness/p2p/p2p_measure.hpp"

using namespace collbench;

namespace {
std::vector<std::tuple<std::string, int, int>> flat(const std::vector<LinkPair>& pairs) {
  std::vector<std::tuple<std::string, int, int>> out;
  for (const LinkPair& p : pairs) out.emplace_back(p.link, p.first, p.second);
  return out;
}
using T = std::tuple<std::string, int, int>;
}  // namespace

TEST(P2pPairs, RankZeroWithTheLowestRankOfEachLinkClass) {
  EXPECT_EQ(flat(choose_pairs({0, 0})), (std::vector<T>{{"intra-host", 0, 1}}));
  EXPECT_EQ(flat(choose_pairs({0, 1})), (std::vector<T>{{"inter-host", 0, 1}}));
  EXPECT_EQ(flat(choose_pairs({0, 0, 1, 1})), (std::vector<T>{{"intra-host", 0, 1}, {"inter-host", 0, 2}}));
  // Round-robin placement: rank 0's node-mate is rank 2.
  EXPECT_EQ(flat(choose_pairs({0, 1, 0, 1})), (std::vector<T>{{"intra-host", 0, 2}, {"inter-host", 0, 1}}));
  EXPECT_TRUE(choose_pairs({0}).empty());
}

TEST(P2pWindow, OsuWindowUpTo256KiBThenAbout16MiBPerIteration) {
  P2pOptions o;
  EXPECT_EQ(window_at(o, 1), 64);
  EXPECT_EQ(window_at(o, 256 << 10), 64);
  EXPECT_EQ(window_at(o, 512 << 10), 32);
  EXPECT_EQ(window_at(o, 4 << 20), 4);
  EXPECT_EQ(window_at(o, 64 << 20), 2);  // never one: a window keeps a message in flight
  o.window = 7;
  EXPECT_EQ(window_at(o, 64 << 20), 7);
}
