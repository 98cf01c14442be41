// Count matrices and the offsets every all-to-all reads, and the traffic patterns
// that make them (uniform, zipf, hot, CSV files), with their refusals.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "collectives/collective.hpp"
#include "workloads/traffic.hpp"

using namespace collbench;

TEST(CountMatrix, OffsetsArePrefixSumsOfRowsAndColumns) {
  // 0 -> {1, 0, 2}, 1 -> {3, 4, 0}, 2 -> {0, 5, 6}
  const CountMatrix m(3, {1, 0, 2, 3, 4, 0, 0, 5, 6});
  EXPECT_EQ(m.send_offset(1, 2), 7u);
  EXPECT_EQ(m.send_total(2), 11u);
  EXPECT_EQ(m.recv_offset(1, 2), 4u);  // rank 1 receives 0 from 0, 4 from 1, then 2's block
  EXPECT_EQ(m.recv_total(2), 8u);
  EXPECT_EQ(m.total(), 21u);
  EXPECT_FALSE(m.symmetric());
  EXPECT_TRUE(CountMatrix(2, {1, 2, 2, 0}).symmetric());
  EXPECT_THROW(CountMatrix(2, {1, 2, 3}), std::invalid_argument);
}

TEST(PeerBlocks, SourceOfEveryReceivedElementSkipsEmptyBlocks) {
  const CountMatrix m(3, {1, 0, 2, 3, 4, 0, 0, 5, 6});
  const PeerBlocks b(3, 0, &m);
  // Rank 1 receives nothing from 0, 4 elements from 1 (its send offsets 3..6), 5 from 2 (0..4).
  EXPECT_EQ(b.source_of(1, 0), (std::pair<int, std::size_t>{1, 3}));
  EXPECT_EQ(b.source_of(1, 3), (std::pair<int, std::size_t>{1, 6}));
  EXPECT_EQ(b.source_of(1, 4), (std::pair<int, std::size_t>{2, 0}));
  const PeerBlocks uniform(4, 5);
  EXPECT_EQ(uniform.source_of(2, 17), (std::pair<int, std::size_t>{3, 12}));
  EXPECT_EQ(uniform.send_total(0), 20u);
}

TEST(AllToAllLayout, InPlaceNeedsASymmetricMatrix) {
  const CountMatrix skewed(2, {1, 2, 3, 4});
  EXPECT_THROW(buffer_layout(Collective::alltoallv, 1, 2, 0, 0, true, &skewed), std::invalid_argument);
  const BufferLayout l = buffer_layout(Collective::alltoallv, 1, 2, 1, 0, false, &skewed);
  EXPECT_EQ(l.send_count, 7u);
  EXPECT_EQ(l.recv_count, 6u);
  EXPECT_EQ(buffer_layout(Collective::alltoall, 3, 4, 0, 0, true).recv_count, 12u);
}

TEST(TrafficPattern, ScalesToTheExactTotalTheSameWayEveryTime) {
  for (const char* text : {"uniform", "zipf:1.2", "zipf:0.5:7", "hot:2:0.9"}) {
    const TrafficPattern p = parse_traffic_pattern(text, 5);
    const SharedCounts a = scaled_counts(p, 1001), b = scaled_counts(p, 1001);
    EXPECT_EQ(a->total(), 1001u) << text;
    for (int s = 0; s < 5; ++s)
      for (int d = 0; d < 5; ++d) EXPECT_EQ(a->count(s, d), b->count(s, d));
  }
  const SharedCounts hot = scaled_counts(parse_traffic_pattern("hot:0:1", 4), 400);
  EXPECT_EQ(hot->recv_total(0), 400u);
  EXPECT_EQ(summarize_traffic(*hot).busiest, 400u);
  // Eight experts on 4 ranks, expert 5 (rank 2) taking half of every token's routes.
  const SharedCounts moe = scaled_counts(parse_traffic_pattern("moe:8:hot:5:0.5", 4), 4 * 1400);
  EXPECT_EQ(moe->recv_total(2), 4u * (700 + 100));
  const SharedCounts zipf = scaled_counts(parse_traffic_pattern("zipf:2", 8), 6400);
  EXPECT_GT(summarize_traffic(*zipf).max, 4 * summarize_traffic(*zipf).median);
}

TEST(TrafficPattern, SymmetricPatternsStaySymmetric) {
  const SharedCounts c = scaled_counts(parse_traffic_pattern("uniform", 3), 10);
  EXPECT_TRUE(c->symmetric());
  EXPECT_GE(c->total(), 9u);
  EXPECT_FALSE(is_symmetric(parse_traffic_pattern("zipf:1", 3)));
}

namespace {
std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}
void expect_refused(const std::string& text, int n, const std::string& message) {
  try {
    parse_traffic_pattern(text, n);
    ADD_FAILURE() << text << " was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(TrafficPattern, ReadsACsvOfWeights) {
  const std::string path = write_file("traffic_ok.csv", "# sender rows\n0, 1, 2\n3,0,0\n1,1,1 # last\n");
  const SharedCounts c = scaled_counts(parse_traffic_pattern(path, 3), 90);
  EXPECT_EQ(c->count(0, 0), 0u);
  EXPECT_EQ(c->count(1, 0), 30u);
  EXPECT_EQ(c->count(2, 2), 10u);
}

TEST(TrafficPattern, RefusesBadInputWithOneMessage) {
  expect_refused("zipf", 4, "write zipf:S");
  expect_refused("zipf:-1", 4, "must not be negative");
  expect_refused("zipf:x", 4, "is not a number");
  expect_refused("hot:4:0.5", 4, "is not one of the 4 ranks");
  expect_refused("hot:0:1.5", 4, "between 0 and 1");
  expect_refused("gauss", 4, "unknown pattern");
  expect_refused("moe:6", 4, "6 experts cannot be spread evenly over 4 ranks");
  expect_refused("moe:8:zipf", 4, "write zipf:S");
  expect_refused(write_file("traffic_shape.csv", "1,2\n3,4\n"), 3, "needs 3 per row");
  expect_refused(write_file("traffic_rows.csv", "1,2,3\n3,4,5\n"), 3, "has 2 rows");
  expect_refused(write_file("traffic_negative.csv", "1,-2\n3,4\n"), 2, "is negative");
  expect_refused(write_file("traffic_huge.csv", "1,1e300\n3,4\n"), 2, "too large");
  expect_refused(write_file("traffic_overflow.csv", "1,1e999\n3,4\n"), 2, "is not a number");
  expect_refused(write_file("traffic_zero.csv", "0,0\n0,0\n"), 2, "no traffic");
  expect_refused(testing::TempDir() + "traffic_missing.csv", 2, "cannot read");
}
