#include <gtest/gtest.h>

#include <vector>

#include "harness/command_line.hpp"
#include "harness/common/default_registry.hpp"

using namespace collbench;

namespace {
Command parse(std::vector<const char*> args, int nranks = 2) {
  args.insert(args.begin(), "collbench");
  return parse_command_line(static_cast<int>(args.size()), args.data(), default_registry(), nranks);
}
std::string text_of(const Command& c) {
  if (auto* e = std::get_if<CommandError>(&c)) return e->text;
  if (auto* h = std::get_if<HelpText>(&c)) return h->text;
  return "";
}
void expect_error(std::vector<const char*> args, const std::string& message, int nranks = 2) {
  const Command c = parse(args, nranks);
  EXPECT_TRUE(std::holds_alternative<CommandError>(c));
  EXPECT_NE(text_of(c).find(message), std::string::npos) << "got: " << text_of(c);
}
}  // namespace

TEST(Options, DefaultsRunEveryAllreduceAlgorithm) {
  const Command c = parse({"run"});
  ASSERT_TRUE(std::holds_alternative<RunOptions>(c));
  const SweepSpec& s = std::get<RunOptions>(c).sweep;
  // Every registered allreduce that runs on host memory: the mpi baseline, then the
  // reference algorithms (not NCCL's, which needs device memory).
  std::vector<const AlgorithmEntry*> host;
  for (const AlgorithmEntry* a : default_registry().for_collective(Collective::allreduce))
    if (a->runs_on_host()) host.push_back(a);
  ASSERT_EQ(s.algorithms, host);
  EXPECT_EQ(s.algorithms[0]->name, "mpi");
  EXPECT_EQ(s.algorithms[1]->name, "ring");
  EXPECT_TRUE(s.check);
  EXPECT_EQ(s.sizes.min_bytes, 8u);
  EXPECT_EQ(s.reps.warmup, Repetitions::kAuto);
  EXPECT_EQ(s.reps.iters, Repetitions::kAuto);
  EXPECT_EQ(s.aggregate, RankAggregate::max);
  EXPECT_EQ(s.check_every, 0);
}

TEST(Options, ParsesNcclTestsStyleFlags) {
  const Command c = parse({"run",        "-b",
                           "1K",         "-e",
                           "1M",         "-f",
                           "4",          "-w",
                           "2",          "-n",
                           "7",          "-d",
                           "f64",        "-o",
                           "max",        "--algorithms",
                           "ring",       "--no-check",
                           "--in-place", "--timing",
                           "loop",       "--aggregate",
                           "mean",       "--check-every",
                           "5",          "--time-budget",
                           "0.5",        "--min-iters",
                           "3"});
  ASSERT_TRUE(std::holds_alternative<RunOptions>(c)) << text_of(c);
  const SweepSpec& s = std::get<RunOptions>(c).sweep;
  EXPECT_EQ(s.sizes.min_bytes, 1024u);
  EXPECT_EQ(s.sizes.max_bytes, 1u << 20);
  EXPECT_EQ(s.sizes.step_factor, 4);
  EXPECT_EQ(s.reps.warmup, 2);
  EXPECT_EQ(s.reps.iters, 7);
  EXPECT_EQ(s.dtype, DType::f64);
  EXPECT_EQ(s.op, ReduceOp::max);
  ASSERT_EQ(s.algorithms.size(), 1u);
  EXPECT_FALSE(s.check);
  EXPECT_TRUE(s.in_place);
  EXPECT_EQ(s.timing, TimingPolicy::loop);
  EXPECT_EQ(s.aggregate, RankAggregate::mean);
  EXPECT_EQ(s.check_every, 5);
  EXPECT_EQ(s.reps.budget_s, 0.5);
  EXPECT_EQ(s.reps.min_iters, 3);
}

TEST(Options, ListAndHelp) {
  EXPECT_TRUE(std::holds_alternative<ListOptions>(parse({"list"})));
  EXPECT_TRUE(std::holds_alternative<HelpText>(parse({"--help"})));
  const Command h = parse({"run", "--help"});
  EXPECT_TRUE(std::holds_alternative<HelpText>(h));
  EXPECT_NE(text_of(h).find("--minbytes"), std::string::npos);
}

TEST(Options, BadInputNamesTheProblemAndTheValidChoices) {
  expect_error({"run", "--collective", "alltoallw"},
               "unknown collective 'alltoallw'; valid: allreduce, broadcast, reduce, gather");
  expect_error({"run", "--algorithms", "ring,nope"},
               "unknown algorithm 'nope' for allreduce; valid: " + default_registry().names(Collective::allreduce));
  expect_error({"run", "--dtype", "f8"}, "unknown dtype 'f8'; valid: f32, f64, f16, bf16, i32, i64");
  expect_error({"run", "--op", "avg"}, "unknown op 'avg'; valid: sum, prod, min, max");
  expect_error({"run", "-b", "12Q"}, "invalid size '12Q'");
  expect_error({"run", "--minbytes=-8"}, "invalid size '-8'");
  expect_error({"run", "-b", "1M", "-e", "1K"}, "--minbytes (1M) is larger than --maxbytes (1K)");
  expect_error({"run", "-d", "f64", "-b", "12", "-e", "64"},
               "--minbytes 12 is not a multiple of the f64 element size (8 bytes)");
  expect_error({"run", "-c", "broadcast", "-r", "2"}, "--root 2 is out of range for 2 rank(s)");
  expect_error({"run", "-r", "-1"}, "--root: must be a whole number from 0 to 2147483647, not '-1'");
  expect_error({"run", "-n", "0"}, "--iters must be auto or a whole number from 1 to 1000000000, not '0'");
  expect_error({"run", "-w", "many"}, "--warmup must be auto or a whole number from 0 to 1000000000, not 'many'");
  expect_error({"run", "-n", "2e9"}, "--iters must be auto or a whole number from 1 to 1000000000, not '2e9'");
  expect_error({"run", "--aggregate", "median"}, "unknown --aggregate 'median'; valid: max, mean, min, rank0");
  expect_error({"run", "--time-budget", "-1"}, "--time-budget: must be a number from 0 to 86400, not '-1'");
  expect_error({"run", "--min-iters", "0"}, "--min-iters: must be a whole number from 1 to 1000, not '0'");
  expect_error({"run", "--check-every", "-2"}, "--check-every: must be a whole number from 0 to 2147483647, not '-2'");
  expect_error({"run", "-f", "1"}, "--stepfactor must be greater than 1");
  expect_error({"run", "--timing", "fast"}, "unknown timing policy 'fast'");
  expect_error({"run", "--bogus"}, "--bogus");
  expect_error({}, "subcommand");
}

TEST(Options, ParameterServerDefaultsAndSettings) {
  Command c = parse({"run", "-c", "ps"}, 3);
  ASSERT_TRUE(std::holds_alternative<PsOptions>(c)) << text_of(c);
  const PsOptions* ps = &std::get<PsOptions>(c);
  EXPECT_EQ(ps->servers, 1);
  ASSERT_EQ(ps->modes.size(), 1u);
  EXPECT_EQ(ps->modes[0]->name, "ps-sync");
  ASSERT_EQ(ps->compare.size(), 1u);
  EXPECT_EQ(ps->compare[0]->name, "ring");
  EXPECT_EQ(ps->partition_bytes, 4096000u);
  EXPECT_FALSE(ps->sparse());

  c = parse({"run",
             "-c",
             "ps",
             "--servers",
             "2",
             "--ps-mode",
             "async,bounded,async",
             "--staleness",
             "3",
             "--sparse-rows",
             "64",
             "--row-bytes",
             "1K",
             "-b",
             "64K",
             "--assignment",
             "hash",
             "--slow-ranks",
             "0,1",
             "--slow-us",
             "50",
             "--compare",
             "none",
             "--partition-size",
             "64K"},
            4);
  ASSERT_TRUE(std::holds_alternative<PsOptions>(c)) << text_of(c);
  ps = &std::get<PsOptions>(c);
  ASSERT_EQ(ps->modes.size(), 2u);
  EXPECT_EQ(ps->modes[1]->name, "ps-bounded");
  EXPECT_EQ(ps->staleness, 3);
  EXPECT_EQ(ps->row_bytes, 1024u);
  EXPECT_EQ(ps->assignment, PsAssignment::hash);
  EXPECT_EQ(ps->slow_ranks, (std::vector<int>{0, 1}));
  EXPECT_TRUE(ps->compare.empty());
  EXPECT_EQ(ps->partition_bytes, 65536u);
}

TEST(Options, ParameterServerRefusesBadConfigurations) {
  expect_error({"run", "-c", "ps", "--servers", "0"}, "--servers 0 is invalid for 3 rank(s)", 3);
  expect_error({"run", "-c", "ps", "--servers", "3"}, "--servers 3 is invalid for 3 rank(s)", 3);
  expect_error({"run", "-c", "ps"}, "--servers 1 is invalid for 1 rank(s)", 1);
  expect_error({"run", "-c", "ps", "--staleness", "-1"},
               "--staleness: must be a whole number from 0 to 1000000, not '-1'", 3);
  expect_error({"run", "-c", "ps", "--assignment", "range"}, "unknown --assignment 'range'", 3);
  expect_error({"run", "-c", "ps", "--slow-ranks", "x"}, "--slow-ranks expects comma-separated ranks", 3);
  expect_error({"run", "-c", "ps", "--compare", "bogus"}, "unknown --compare allreduce algorithm 'bogus'", 3);
  expect_error({"run", "-c", "ps", "--partition-size", "2"},
               "--partition-size 2 is not a positive multiple of the f32 element size", 3);
  expect_error({"run", "-c", "ps", "--row-bytes", "64"}, "--sparse-rows and --row-bytes go together", 3);
}
