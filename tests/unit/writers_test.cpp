#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "harness/common/writers.hpp"

using namespace collbench;

namespace {
std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
ResultRow sample() {
  ResultRow r;
  r.collective = "allreduce";
  r.algorithm = "ring";
  r.transport = "mpi-p2p";
  r.ranks = 2;
  r.bytes = 1024;
  r.count = 256;
  r.dtype = "f32";
  r.op = "sum";
  r.iters = 20;
  r.time_us = {1, 2, 2, 3, 4};
  r.algbw_gbps = 0.5;
  r.busbw_gbps = 0.5;
  r.errors = 0;
  r.timing = "per-call";
  r.round_mean_us = {2};
  return r;
}
}  // namespace

TEST(CsvWriter, WritesTheDocumentedLeadingColumnsInOrder) {
  const std::string path = ::testing::TempDir() + "/w.csv";
  {
    CsvWriter w(path);
    w.write(sample());
  }
  const std::string text = read(path);
  const std::string header = text.substr(0, text.find('\n'));
  EXPECT_EQ(header.rfind("collective,algorithm,transport,ranks,bytes,count,dtype,op,root,iters,min_us,avg_us,"
                         "p50_us,p99_us,max_us,algbw_gbps,busbw_gbps,errors",
                         0),
            0u)
      << header;
  EXPECT_NE(text.find("\nallreduce,ring,mpi-p2p,2,1024,256,f32,sum,0,20,1.0,2.0,2.0,3.0,4.0,0.5,0.5,0,"),
            std::string::npos)
      << text;
}

TEST(CsvWriter, RowsAreOnDiskAsSoonAsWritten) {
  const std::string path = ::testing::TempDir() + "/flush.csv";
  CsvWriter w(path);
  w.write(sample());
  EXPECT_NE(read(path).find("allreduce,ring"), std::string::npos);  // writer still open
}

TEST(CsvWriter, QuotesFieldsThatNeedIt) {
  EXPECT_EQ(csv_escape("plain"), "plain");
  EXPECT_EQ(csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_escape(3), "3");
}

TEST(CsvWriter, ThrowsOnAnUnwritablePath) {
  EXPECT_THROW(CsvWriter("/nonexistent-dir/x.csv"), std::runtime_error);
}

TEST(JsonWriter, KeepsAValidDocumentWithMetadataAndRows) {
  const std::string path = ::testing::TempDir() + "/w.json";
  JsonWriter w(path, {{"mpi", {{"library", "test"}}}});
  EXPECT_EQ(nlohmann::json::parse(read(path))["rows"].size(), 0u);
  w.add(sample());
  w.save();
  const auto doc = nlohmann::json::parse(read(path));
  EXPECT_EQ(doc["metadata"]["mpi"]["library"], "test");
  ASSERT_EQ(doc["rows"].size(), 1u);
  EXPECT_EQ(doc["rows"][0]["algorithm"], "ring");
  EXPECT_EQ(doc["rows"][0]["p99_us"], 3.0);
  EXPECT_EQ(doc["rows"][0]["round_mean_us"][0], 2.0);
}
