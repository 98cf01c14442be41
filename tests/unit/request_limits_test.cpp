// Range checks, request limits and the cross-rank input comparison.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <fstream>

#include "harness/common/numeric_flags.hpp"
#include "harness/common/request_limits.hpp"
#include "harness/common/sizes.hpp"
#include "workloads/bucketing.hpp"
#include "workloads/input_files.hpp"

using namespace collbench;

namespace {
std::string check(const CLI::Validator& v, std::string text) { return v(text); }
}  // namespace

TEST(NumericFlags, WholeNumbersOutsideTheRangeOrNotWholeAreRefusedWithTheRange) {
  const CLI::Validator rows = whole_in(1, 1e12);
  EXPECT_EQ(check(rows, "64"), "");
  EXPECT_EQ(check(rows, "1000000000000"), "");
  EXPECT_EQ(check(rows, "-5"), "must be a whole number from 1 to 1000000000000, not '-5'");
  EXPECT_NE(check(rows, "0"), "");
  EXPECT_NE(check(rows, "1e3"), "");
  EXPECT_NE(check(rows, "99999999999999999999999999999999999"), "");
  EXPECT_NE(check(rows, ""), "");
  EXPECT_NE(check(rows, "-"), "");
  const CLI::Validator seed = whole_in(0, 18446744073709551615.0L);
  EXPECT_EQ(check(seed, "18446744073709551615"), "");
}

TEST(NumericFlags, NumbersMustBeFiniteAndInRange) {
  const CLI::Validator ms = number_in(0, 86400e3);
  EXPECT_EQ(check(ms, "104.5"), "");
  EXPECT_EQ(check(ms, "1e3"), "");
  EXPECT_EQ(check(ms, "1e11"), "must be a number from 0 to 86400000, not '1e11'");
  EXPECT_NE(check(ms, "nan"), "");
  EXPECT_NE(check(ms, "inf"), "");
  EXPECT_NE(check(ms, "-0.5"), "");
  EXPECT_NE(check(ms, "5ms"), "");
}

TEST(RequestLimits, RefusesLongRunsUnlessForcedAndMemoryBeyondTheNodeAlways) {
  Machine m;
  m.memory_total = 16.0L * (1 << 30);
  m.memory_available = 8.0L * (1 << 30);
  m.ranks_here = 2;
  RequestEstimate e;
  e.seconds = 2 * 3600;
  e.work = "test";
  e.memory_flag = "-e 1 GiB";
  EXPECT_THROW(check_request(e, m, false), std::invalid_argument);
  EXPECT_NO_THROW(check_request(e, m, true));
  e.seconds = 10;
  e.bytes_per_rank = 5.0L * (1 << 30);  // 10 GiB on the node: more than available, less than total
  EXPECT_THROW(check_request(e, m, false), std::invalid_argument);
  EXPECT_NO_THROW(check_request(e, m, true));
  e.bytes_per_rank = 9.0L * (1 << 30);  // 18 GiB: more than the node has
  try {
    check_request(e, m, true);
    FAIL() << "forced past the node's memory";
  } catch (const std::invalid_argument& x) {
    EXPECT_NE(std::string(x.what()).find("more than this node's 16.0 GiB"), std::string::npos) << x.what();
  }
}

TEST(RequestLimits, SweepSizesStopCountingPastTheLimit) {
  EXPECT_EQ(sweep_sizes(8, 64 << 20, 1.0000001, 4, 1000).size(), 1001u);
  EXPECT_EQ(sweep_sizes(8, 64 << 20, 2, 4, 1000).size(), 24u);
}

TEST(InputFiles, DifferingCopiesNameTheFileAndTheRanks) {
  const std::string a = ::testing::TempDir() + "/input-a.csv", b = ::testing::TempDir() + "/input-b.csv";
  std::ofstream(a) << "name,elements\nw,10\n";
  std::ofstream(b) << "name,elements\nw,10\nv,20\n";
  EXPECT_EQ(read_input_file(a, "workload"), "name,elements\nw,10\n");
  const std::string one = input_files_summary();
  EXPECT_EQ(input_files_disagreement({one, one, one}), "");
  std::string other = one;
  other.replace(other.find("\t19\t"), 4, "\t25\t");
  const std::string msg = input_files_disagreement({one, one, other});
  EXPECT_NE(msg.find("input file '" + a + "' differs between ranks: rank 0 read 19 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 2 read 25 bytes"), std::string::npos) << msg;
  // A second read is the first one's bytes, whatever the file holds now.
  std::ofstream(a) << "changed";
  EXPECT_EQ(read_input_file(a, "workload"), "name,elements\nw,10\n");
  EXPECT_THROW(read_input_file(::testing::TempDir() + "/no-such.csv", "workload"), std::invalid_argument);
  (void)b;
}

TEST(Bucketing, AFusionCycleLongerThanTheStepNeverTicksBeforeTheGradient) {
  Workload w;
  w.tensors = {{"a", 10}, {"b", 10}};
  BucketingOptions o;
  o.policy = BucketingPolicy::fusion;
  o.cycle_ms = 1e11;
  const std::vector<Bucket> buckets = make_buckets(w, {5.0, 7.0}, o, false);
  ASSERT_EQ(buckets.size(), 1u);
  EXPECT_EQ(buckets[0].ready_ms, 1e11);  // the first tick after 7 ms, not 0
}
