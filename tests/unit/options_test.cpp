#include <gtest/gtest.h>

#include <vector>

#include "collectives/mpi/baselines.hpp"
#include "harness/command_line.hpp"
#include "algorithms/parameter_server/protocol.hpp"
#include "algorithms/catalog.hpp"

using namespace collbench;

namespace {
Command parse(std::vector<const char*> args, int nranks = 2) {
  static Registry registry = [] {
    Registry r;
    register_mpi_baselines(r);
    register_reference_algorithms(r);
    register_parameter_server(r);
    return r;
  }();
  args.insert(args.begin(), "collbench");
  return parse_command_line(static_cast<int>(args.size()), args.data(), registry, nranks);
}
void expect_error(std::vector<const char*> args, const std::string& message, int nranks = 2) {
  const Command c = parse(args, nranks);
  EXPECT_EQ(c.kind, Command::Kind::error);
  EXPECT_NE(c.text.find(message), std::string::npos) << "got: " << c.text;
}
}  // namespace

TEST(Options, DefaultsRunEveryAllreduceAlgorithm) {
  const Command c = parse({"run"});
  ASSERT_EQ(c.kind, Command::Kind::run);
  ASSERT_EQ(c.run.algorithms.size(), 9u);  // mpi and the eight reference allreduces
  EXPECT_EQ(c.run.algorithms[0]->name, "mpi");
  EXPECT_EQ(c.run.algorithms[1]->name, "ring");
  EXPECT_TRUE(c.run.check);
  EXPECT_EQ(c.run.min_bytes, 8u);
}

TEST(Options, ParsesNcclTestsStyleFlags) {
  const Command c = parse({"run", "-b", "1K", "-e", "1M", "-f", "4", "-w", "2", "-n", "7", "-d", "f64", "-o", "max",
                           "--algorithms", "ring", "--no-check", "--in-place", "--timing", "loop"});
  ASSERT_EQ(c.kind, Command::Kind::run) << c.text;
  EXPECT_EQ(c.run.min_bytes, 1024u);
  EXPECT_EQ(c.run.max_bytes, 1u << 20);
  EXPECT_EQ(c.run.step_factor, 4);
  EXPECT_EQ(c.run.warmup, 2);
  EXPECT_EQ(c.run.iters, 7);
  EXPECT_EQ(c.run.dtype, DType::f64);
  EXPECT_EQ(c.run.op, ReduceOp::max);
  ASSERT_EQ(c.run.algorithms.size(), 1u);
  EXPECT_FALSE(c.run.check);
  EXPECT_TRUE(c.run.in_place);
  EXPECT_EQ(c.run.timing, TimingPolicy::loop);
}

TEST(Options, ListAndHelp) {
  EXPECT_EQ(parse({"list"}).kind, Command::Kind::list);
  EXPECT_EQ(parse({"--help"}).kind, Command::Kind::help);
  const Command h = parse({"run", "--help"});
  EXPECT_EQ(h.kind, Command::Kind::help);
  EXPECT_NE(h.text.find("--minbytes"), std::string::npos);
}

TEST(Options, BadInputNamesTheProblemAndTheValidChoices) {
  expect_error({"run", "--collective", "alltoall"}, "unknown collective 'alltoall'; valid: allreduce, broadcast, reduce, gather");
  expect_error({"run", "--algorithms", "ring,nope"}, "unknown algorithm 'nope' for allreduce; valid: mpi, ring");
  expect_error({"run", "--dtype", "f8"}, "unknown dtype 'f8'; valid: f32, f64, f16, bf16, i32, i64");
  expect_error({"run", "--op", "avg"}, "unknown op 'avg'; valid: sum, prod, min, max");
  expect_error({"run", "-b", "12Q"}, "invalid size '12Q'");
  expect_error({"run", "--minbytes=-8"}, "invalid size '-8'");
  expect_error({"run", "-b", "1M", "-e", "1K"}, "--minbytes (1M) is larger than --maxbytes (1K)");
  expect_error({"run", "-d", "f64", "-b", "12", "-e", "64"}, "--minbytes 12 is not a multiple of the f64 element size (8 bytes)");
  expect_error({"run", "-c", "broadcast", "-r", "2"}, "--root 2 is out of range for 2 rank(s)");
  expect_error({"run", "-r", "-1"}, "--root -1 is out of range");
  expect_error({"run", "-n", "0"}, "--iters must be at least 1");
  expect_error({"run", "-f", "1"}, "--stepfactor must be greater than 1");
  expect_error({"run", "--timing", "fast"}, "unknown timing policy 'fast'");
  expect_error({"run", "--bogus"}, "--bogus");
  expect_error({}, "subcommand");
}

TEST(Options, ParameterServerDefaultsAndSettings) {
  Command c = parse({"run", "-c", "ps"}, 3);
  ASSERT_EQ(c.kind, Command::Kind::run) << c.text;
  EXPECT_TRUE(c.run.parameter_server);
  EXPECT_EQ(c.run.ps.servers, 1);
  ASSERT_EQ(c.run.ps.modes.size(), 1u);
  EXPECT_EQ(c.run.ps.modes[0]->name, "ps-sync");
  ASSERT_EQ(c.run.ps.compare.size(), 1u);
  EXPECT_EQ(c.run.ps.compare[0]->name, "ring");
  EXPECT_EQ(c.run.ps.partition_bytes, 4096000u);
  EXPECT_FALSE(c.run.ps.sparse());

  c = parse({"run", "-c", "ps", "--servers", "2", "--ps-mode", "async,bounded,async", "--staleness", "3", "--sparse-rows",
             "64", "--row-bytes", "1K", "-b", "4K", "--assignment", "hash", "--slow-ranks", "0,1", "--slow-us", "50",
             "--compare", "none", "--partition-size", "64K"},
            4);
  ASSERT_EQ(c.kind, Command::Kind::run) << c.text;
  ASSERT_EQ(c.run.ps.modes.size(), 2u);
  EXPECT_EQ(c.run.ps.modes[1]->name, "ps-bounded");
  EXPECT_EQ(c.run.ps.staleness, 3);
  EXPECT_EQ(c.run.ps.row_bytes, 1024u);
  EXPECT_EQ(c.run.ps.assignment, PsAssignment::hash);
  EXPECT_EQ(c.run.ps.slow_ranks, (std::vector<int>{0, 1}));
  EXPECT_TRUE(c.run.ps.compare.empty());
  EXPECT_EQ(c.run.ps.partition_bytes, 65536u);
}

TEST(Options, ParameterServerRefusesBadConfigurations) {
  expect_error({"run", "-c", "ps", "--servers", "0"}, "--servers 0 is invalid for 3 rank(s)", 3);
  expect_error({"run", "-c", "ps", "--servers", "3"}, "--servers 3 is invalid for 3 rank(s)", 3);
  expect_error({"run", "-c", "ps"}, "--servers 1 is invalid for 1 rank(s)", 1);
  expect_error({"run", "-c", "ps", "--staleness", "-1"}, "--staleness must not be negative", 3);
  expect_error({"run", "-c", "ps", "--assignment", "range"}, "unknown --assignment 'range'", 3);
  expect_error({"run", "-c", "ps", "--slow-ranks", "x"}, "--slow-ranks expects comma-separated ranks", 3);
  expect_error({"run", "-c", "ps", "--compare", "bogus"}, "unknown --compare allreduce algorithm 'bogus'", 3);
  expect_error({"run", "-c", "ps", "--partition-size", "2"}, "--partition-size 2 is smaller than one element", 3);
  expect_error({"run", "-c", "ps", "--row-bytes", "64"}, "--sparse-rows and --row-bytes go together", 3);
}
