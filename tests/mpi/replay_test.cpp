// Replay end to end, in process: each sparse strategy at the communicator's size; the
// step never beats its compute, the reported bytes are the ones the buckets imply,
// and a broken allreduce is caught by the checked step.
#include <gtest/gtest.h>
#include <mpi.h>

#include <fstream>
#include <functional>
#include <memory>

#include "algorithms/catalog.hpp"
#include "collectives/transport/mpi/mapped_transport.hpp"
#include "collectives/transport/shm_memory.hpp"
#include "collectives/transport/staged_transport.hpp"
#include "harness/command_line.hpp"
#include "harness/common/default_registry.hpp"
#include "harness/common/session.hpp"
#include "harness/replay/replay.hpp"
#include "harness/replay/replay_rows.hpp"
#include "tests/mpi/broken_ring.hpp"
#include "tests/mpi/deferred_space.hpp"
#include "workloads/workload.hpp"
#include "workloads/zipf.hpp"

using namespace collbench;

namespace {

constexpr int kWarmup = 1, kSteps = 3;

// Dense tensors around two sparse tables of different row widths.
const char* kWorkloadCsv =
    "name,elements,dtype,kind,rows,row_elements,lookups,flops\n"
    "head,3000,f32,dense,,,,4000\n"
    "table,8192,f32,sparse,512,16,300,2000\n"
    "body,70000,f32,dense,,,,9000\n"
    "bias,512,f32,sparse,512,1,300,0\n"
    "stem,5000,f64,dense,,,,3000\n";

// Rank 0 forgets its own block.
Schedule broken_all_to_all(const ScheduleRequest& q) {
  Schedule s = build_linear_all_to_all(q);
  if (q.rank == 0)
    for (Step& step : s.steps) step.ops.clear();
  return s;
}

class Replay : public ::testing::Test {
 protected:
  void SetUp() override {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    registry_.add({Collective::allreduce, "broken", "test only", test::broken_ring, {}});
    registry_.add({Collective::alltoallv, "broken", "test only", broken_all_to_all, {}});
    workload_path_ = testing::TempDir() + "collbench-replay-" + std::to_string(rank_) + ".csv";
    std::ofstream(workload_path_) << kWorkloadCsv;
    json_path_ = testing::TempDir() + "collbench-replay-test.json";
  }
  void TearDown() override { std::remove(workload_path_.c_str()); }

  // Runs `collbench replay ARGS` in process; rank 0 gets the JSON rows. `device` makes
  // the transport that carries the exchanges on device memory (tests emulate one).
  nlohmann::json replay(std::vector<std::string> args, std::int64_t* wrong,
                        const std::function<std::unique_ptr<Transport>(Session&)>& device = {}) {
    // The test's workload file unless the arguments name one.
    if (std::find(args.begin(), args.end(), "--workload") == args.end())
      args.insert(args.begin(), {"--workload", workload_path_});
    args.insert(args.begin(), {"collbench", "replay", "--compute-ms", "2", "--steps", std::to_string(kSteps),
                               "--warmup", std::to_string(kWarmup)});
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    Command cmd = parse_command_line(static_cast<int>(argv.size()), argv.data(), registry_, size_);
    EXPECT_TRUE(std::holds_alternative<ReplayOptions>(cmd));
    if (!std::holds_alternative<ReplayOptions>(cmd)) return {};
    Session session(registry_, MPI_COMM_WORLD, 0);
    ReplayOptions options = std::get<ReplayOptions>(cmd);
    std::unique_ptr<Transport> references;
    if (device) {
      references = device(session);
      options.memory = MemoryKind::device;
    }
    OutputOptions out{testing::TempDir() + "replay-test.csv", json_path_};
    out.overwrite = true;  // each test replays into the same files
    ResultSink sink = ResultSink::open(out, "replay", replay_columns(), nlohmann::json::object(), MPI_COMM_WORLD);
    *wrong = run_replay(options, session, sink, references.get());
    sink.finish();
    if (rank_ != 0) return {};
    return nlohmann::json::parse(std::ifstream(json_path_))["rows"];
  }

  // The most rows any of `workers` ranks touches in `step` of sparse tensor `t`.
  std::size_t most_rows(const Workload& w, std::size_t t, int workers, int step) const {
    const ZipfSampler z(w.tensors[t].rows, w.zipf_exponent);
    std::size_t most = 0;
    for (int r = 0; r < workers; ++r) most = std::max(most, z.touched_rows(w.tensors[t].lookups, 1, r, step, t).size());
    return most;
  }

  int rank_ = 0, size_ = 1;
  Registry registry_ = default_registry();
  std::string workload_path_, json_path_;
};

void expect_steps_not_below_compute(const nlohmann::json& rows) {
  for (const auto& row : rows) {
    EXPECT_GE(row["step_ms"].get<double>(), row["compute_ms"].get<double>() - 1e-9) << row.dump();
    EXPECT_GE(row["comm_ms"].get<double>(), 0);
    EXPECT_LE(row["efficiency"].get<double>(), 1 + 1e-12);
    EXPECT_NEAR(row["exposed_ms"].get<double>(), row["step_ms"].get<double>() - row["compute_ms"].get<double>(), 1e-9);
  }
}

}  // namespace

TEST_F(Replay, DenseAndAllgatherReportTheBucketsBytesAndNeverBeatCompute) {
  std::int64_t wrong = -1;
  const nlohmann::json rows =
      replay({"-a", "ring,mpi", "--bucketing", "none,ddp,fusion", "--sparse-strategy", "dense,allgather"}, &wrong);
  EXPECT_EQ(wrong, 0);
  if (rank_ != 0) return;
  const Workload w = load_workload(workload_path_);
  ASSERT_EQ(rows.size(), 2u * 3 * 2 * (kSteps + 1));
  expect_steps_not_below_compute(rows);
  const std::size_t dense_bytes = 3000 * 4 + 70000 * 4 + 5000 * 8;
  for (const auto& row : rows) {
    EXPECT_EQ(row["errors"], 0);
    EXPECT_EQ(row["ranks"], size_);
    if (row["step"] == "mean") continue;
    const int step = kWarmup + row["step"].get<int>();
    std::size_t want = w.bytes();
    if (row["sparse_strategy"] == "allgather") {
      want = dense_bytes;
      for (std::size_t t : {std::size_t{1}, std::size_t{3}}) {
        const std::size_t stride = (4 + w.tensors[t].row_elements * 4 + 3) / 4 * 4;
        want += static_cast<std::size_t>(size_) * most_rows(w, t, size_, step) * stride;
      }
    }
    EXPECT_EQ(row["comm_bytes"].get<std::size_t>(), want) << row.dump();
  }
}

TEST_F(Replay, ParameterServerMovesTheTouchedRowsBothWays) {
  if (size_ < 2) GTEST_SKIP() << "the parameter server needs a server and a worker";
  std::int64_t wrong = -1;
  const nlohmann::json rows = replay({"-a", "ring", "--sparse-strategy", "ps", "--servers", "1"}, &wrong);
  EXPECT_EQ(wrong, 0);
  if (rank_ != 0) return;
  const Workload w = load_workload(workload_path_);
  const int workers = size_ - 1;
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(kSteps + 1));
  expect_steps_not_below_compute(rows);
  for (const auto& row : rows) {
    EXPECT_EQ(row["workers"], workers);
    EXPECT_EQ(row["servers"], 1);
    if (row["step"] == "mean") continue;
    const int step = kWarmup + row["step"].get<int>();
    // Rank 0 pushes each touched row's index and values and pulls the values back
    // (indices once more with the pull); headers come on top.
    std::size_t payload = 0;
    for (std::size_t t : {std::size_t{1}, std::size_t{3}}) {
      const ZipfSampler z(w.tensors[t].rows, w.zipf_exponent);
      payload +=
          z.touched_rows(w.tensors[t].lookups, 1, 0, step, t).size() * (2 * 8 + 2 * w.tensors[t].row_elements * 4);
    }
    const std::size_t dense = 3000 * 4 + 70000 * 4 + 5000 * 8;
    const std::size_t got = row["comm_bytes"].get<std::size_t>() - dense;
    EXPECT_GE(got, payload) << row.dump();
    EXPECT_LE(got, payload + 1024) << row.dump();
  }
}

TEST_F(Replay, ABrokenAllreduceIsCaughtByTheCheckedStep) {
  if (size_ < 2) GTEST_SKIP() << "one rank has nothing to reduce";
  std::int64_t wrong = -1;
  const nlohmann::json rows = replay({"-a", "broken", "--sparse-strategy", "allgather"}, &wrong);
  EXPECT_GT(wrong, 0);
  if (rank_ == 0) {
    EXPECT_GT(rows.back()["errors"].get<std::int64_t>(), 0);
  }
}

// Device memory as replay moves it (buckets and gathered rows in the transport's memory,
// inputs copied in, results copied back to be checked), on an emulated device over the
// staged and the mapped transport: the same bytes as on the host, nothing wrong; and the
// broken allreduce is still caught there.
TEST_F(Replay, OnDeviceMemoryTheExchangesAreCheckedAsOnTheHost) {
  DeferredSpace space;
  auto staged = [&](Session& s) -> std::unique_ptr<Transport> {
    return std::make_unique<StagedTransport>(s.transport, space);
  };
  auto mapped = [&](Session&) -> std::unique_ptr<Transport> {
    return std::make_unique<MappedTransport>(MPI_COMM_WORLD, make_shm_memory(space));
  };
  for (const auto& device : {std::function<std::unique_ptr<Transport>(Session&)>(staged),
                             std::function<std::unique_ptr<Transport>(Session&)>(mapped)}) {
    std::int64_t wrong = -1, host_wrong = -1;
    const nlohmann::json rows =
        replay({"-a", "ring,rabenseifner", "--sparse-strategy", "dense,allgather"}, &wrong, device);
    const nlohmann::json host =
        replay({"-a", "ring,rabenseifner", "--sparse-strategy", "dense,allgather"}, &host_wrong);
    EXPECT_EQ(wrong, 0);
    if (rank_ == 0) {
      ASSERT_EQ(rows.size(), host.size());
      expect_steps_not_below_compute(rows);
      for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i]["errors"], 0);
        EXPECT_EQ(rows[i]["comm_bytes"], host[i]["comm_bytes"]) << rows[i].dump();
      }
    }
    if (size_ < 2) continue;
    const nlohmann::json broken = replay({"-a", "broken", "--sparse-strategy", "dense"}, &wrong, device);
    EXPECT_GT(wrong, 0);
  }
  EXPECT_GT(space.done(), 0u) << "the reductions went through the device's queue";
}

// A mixture-of-experts model (one small Mixtral layer) in both styles and under skew:
// every all-to-all checked, its time on the critical path, and the step never below
// compute plus that; a broken alltoallv is caught.
TEST_F(Replay, MixtureOfExpertsAllToAllsAreCheckedAndExposed) {
  if (8 % size_) GTEST_SKIP() << "Mixtral's 8 experts do not divide over " << size_ << " ranks";
  for (const std::string style : {"dropless", "padded"})
    for (const std::string routing : {"uniform", "zipf:1.5"}) {
      std::int64_t wrong = -1;
      const nlohmann::json rows = replay({"--workload", "mixtral-8x7b", "--layers", "1", "--seq-len", "16", "--vocab",
                                          "64", "--moe-style", style, "--routing", routing, "-a", "ring"},
                                         &wrong);
      EXPECT_EQ(wrong, 0) << style << " " << routing;
      if (rank_ != 0) continue;
      expect_steps_not_below_compute(rows);
      for (const auto& row : rows) {
        EXPECT_GT(row["alltoall_ms"].get<double>(), 0) << row.dump();
        EXPECT_NEAR(row["alltoall_exposed_ms"].get<double>(), row["alltoall_ms"].get<double>(), 1e-9);
        EXPECT_GE(row["step_ms"].get<double>(),
                  row["compute_ms"].get<double>() + row["alltoall_exposed_ms"].get<double>() - 1e-9);
      }
    }
  std::int64_t wrong = -1;
  replay({"--workload", "mixtral-8x7b", "--layers", "1", "--seq-len", "16", "--vocab", "64", "-a", "ring",
          "--alltoall-algorithm", "broken"},
         &wrong);
  EXPECT_GT(wrong, 0);
}

TEST_F(Replay, DlrmExchangesItsTablesPooledEmbeddings) {
  std::int64_t wrong = -1;
  const nlohmann::json rows =
      replay({"--workload", "dlrm-dcnv2", "--batch", "16", "-a", "mpi", "--alltoall-algorithm", "pairwise"}, &wrong);
  EXPECT_EQ(wrong, 0);
  if (rank_ != 0) return;
  for (const auto& row : rows) EXPECT_GT(row["alltoall_ms"].get<double>(), 0);
}
