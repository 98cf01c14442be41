#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "collectives/transport/mpi/known_defects.hpp"
#include "collectives/transport/mpi/library_call.hpp"
#include "collectives/transport/mpi/transport.hpp"
#include "harness/common/default_registry.hpp"
#include "harness/common/validation.hpp"
#include "tests/mpi/oversubscribed.hpp"
#include "workloads/traffic.hpp"

using namespace collbench;

namespace {

struct Fixture {
  Fixture() { yield_where_oversubscribed(transport); }
  const Registry& registry = default_registry();
  MpiTransport transport{MPI_COMM_WORLD};
  Workspace workspace;
  // Runs `run_call` once on this rank's inputs and returns the receive buffer's result.
  template <class RunCall>
  std::vector<std::byte> run_with(Collective c, DType t, ReduceOp op, std::size_t count, int root, bool in_place,
                                  RunCall&& run_call, const SharedCounts& counts = nullptr) {
    const int n = transport.size(), rank = transport.rank();
    const std::size_t elem = dtype_size(t);
    const BufferLayout l = buffer_layout(c, count, n, rank, root, in_place, counts.get());
    std::vector<std::byte> send(l.send_count * elem + 1), recv(std::max(l.recv_count, l.send_count) * elem + 1);
    const CollectiveCall call =
        bind_buffers({c, t, op, count, root, nullptr, nullptr, in_place, counts}, l, send.data(), recv.data());
    load_inputs(call, l, rank, n);
    run_call(call);
    recv.resize(l.result_count * elem);
    return recv;
  }
  // Runs algorithm `name` once.
  std::vector<std::byte> run(Collective c, const std::string& name, DType t, ReduceOp op, std::size_t count, int root,
                             bool in_place, const AlgorithmParams& params = {}, const SharedCounts& counts = nullptr) {
    return run_with(
        c, t, op, count, root, in_place,
        [&](const CollectiveCall& call) {
          prepare(*registry.find(c, name), call, transport, workspace, params)->run();
        },
        counts);
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

}  // namespace

// One algorithm against the MPI library (always out of place: MPICH 4.0.2 has an
// in-place reduce defect) and against the exact closed-form result.
void expect_matches_mpi(Fixture& f, const AlgorithmEntry& e, DType t, ReduceOp op, std::size_t count, int root,
                        bool in_place, const AlgorithmParams& params = {}, const SharedCounts& counts = nullptr) {
  const int n = f.transport.size();
  SCOPED_TRACE(testing::Message() << collective_name(e.collective) << "/" << e.name << " " << dtype_name(t) << " "
                                  << reduce_op_name(op) << " count " << count << " root " << root
                                  << (in_place ? " in place" : " out of place") << " segment " << params.segment_bytes
                                  << " nodes " << testing::PrintToString(params.node_of_rank) << " on " << n
                                  << " ranks");
  const auto want = f.run(e.collective, "mpi", t, op, count, root, false, {}, counts);
  const auto got = f.run(e.collective, e.name, t, op, count, root, in_place, params, counts);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(count_mismatches(t, got.data(), want.data(), got.size() / dtype_size(t), 0), 0u);
  const ExpectedResult exact({e.collective, t, op, n}, f.transport.rank(), root, count, counts.get());
  EXPECT_EQ(exact.count_wrong(want.data()), 0u) << "the MPI library itself disagrees with the exact result";
}

std::vector<const AlgorithmEntry*> reference_algorithms(const Registry& r) {
  std::vector<const AlgorithmEntry*> out;
  for (Collective c : kAllCollectives)
    for (const AlgorithmEntry* e : r.for_collective(c))
      if (!e->is_baseline()) out.push_back(e);
  return out;
}

TEST(ReferenceAlgorithms, EqualMpiForEveryDtypeAndOp) {
  Fixture& f = fixture();
  const int n = f.transport.size();
  for (const AlgorithmEntry* e : reference_algorithms(f.registry)) {
    int combo = 0;
    for (DType t : kAllDTypes)
      for (ReduceOp op : kAllReduceOps) {
        if (!uses_reduce_op(e->collective) && op != ReduceOp::sum) continue;
        // A prime count, a root other than 0, in and out of place in turn.
        expect_matches_mpi(f, *e, t, op, 7, n - 1, combo++ % 2 == 1);
      }
  }
}

TEST(ReferenceAlgorithms, EqualMpiForAwkwardCountsAndRoots) {
  Fixture& f = fixture();
  const int n = f.transport.size();
  const std::size_t uneven = 1000 * static_cast<std::size_t>(n) + 1;  // not divisible by the rank count
  for (const AlgorithmEntry* e : reference_algorithms(f.registry))
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, uneven})
      for (int root : {0, n / 2, n - 1})
        for (bool in_place : {false, true}) expect_matches_mpi(f, *e, DType::i32, ReduceOp::sum, count, root, in_place);
}

TEST(ReferenceAlgorithms, EqualMpiAtALargePrimeCount) {
  Fixture& f = fixture();
  for (const AlgorithmEntry* e : reference_algorithms(f.registry))
    expect_matches_mpi(f, *e, DType::f32, ReduceOp::sum, 100003, f.transport.size() - 1, false);
}

TEST(ReferenceAlgorithms, PipelinesWithSmallSegmentsEqualMpi) {
  Fixture& f = fixture();
  for (const AlgorithmEntry* e : reference_algorithms(f.registry))
    if (e->pipelined())
      for (std::size_t segment : {std::size_t{4}, std::size_t{60}, std::size_t{4096}})
        expect_matches_mpi(f, *e, DType::f64, ReduceOp::max, 1001, 0, segment == 60, {segment, {}});
}

TEST(ReferenceAlgorithms, HierarchicalOnEmulatedNodesEqualMpi) {
  Fixture& f = fixture();
  const int n = f.transport.size();
  for (const AlgorithmEntry* e : reference_algorithms(f.registry))
    if (e->topology_aware)
      for (int per_node : {1, 2, 3}) {
        AlgorithmParams p;
        for (int r = 0; r < n; ++r) p.node_of_rank.push_back(r / per_node);
        for (std::size_t count : {std::size_t{1}, std::size_t{4099}})
          expect_matches_mpi(f, *e, DType::f32, ReduceOp::sum, count, 0, per_node == 2, p);
      }
}

// alltoallv with skewed, empty, one-receiver and odd counts, every dtype, and in place
// where the counts are symmetric (as MPI_IN_PLACE needs); hierarchical on emulated nodes.
TEST(ReferenceAlgorithms, AlltoallvEqualsMpiForEveryCountPattern) {
  Fixture& f = fixture();
  const int n = f.transport.size();
  for (const std::string& pattern : {std::string("uniform"), std::string("zipf:1.5"), std::string("hot:0:1"),
                                     "hot:" + std::to_string(n - 1) + ":0.7"}) {
    const TrafficPattern p = parse_traffic_pattern(pattern, n);
    for (std::size_t per_peer : {std::size_t{0}, std::size_t{1}, std::size_t{333}}) {
      const SharedCounts counts = scaled_counts(p, per_peer * static_cast<std::size_t>(n * n) + 1);
      for (const AlgorithmEntry* e : f.registry.for_collective(Collective::alltoallv)) {
        if (e->is_baseline()) continue;
        int combo = 0;
        for (DType t : kAllDTypes) {
          const bool in_place = counts->symmetric() && combo++ % 2 == 1;
          AlgorithmParams nodes;
          for (int r = 0; r < n; ++r) nodes.node_of_rank.push_back(r / 2);
          expect_matches_mpi(f, *e, t, ReduceOp::sum, per_peer, 0, in_place,
                             e->topology_aware ? nodes : AlgorithmParams{}, counts);
        }
      }
    }
  }
}

TEST(MpiBaselines, GiveTheExactResult) {
  Fixture& f = fixture();
  const int n = f.transport.size(), rank = f.transport.rank();
  for (Collective c : kAllCollectives)
    for (DType t : {DType::f32, DType::bf16, DType::i64})
      for (std::size_t count : {std::size_t{0}, std::size_t{7}, std::size_t{1000}})
        for (int root : {0, n - 1})
          for (bool in_place : {false, true}) {
            SCOPED_TRACE(testing::Message() << collective_name(c) << " " << dtype_name(t) << " count " << count
                                            << " root " << root << (in_place ? " in place" : ""));
            // Covered by the mpi.*_device_collectives_none runs, which set the workaround.
            if (known_mpi_defect(c, in_place, root)) continue;
            const auto got = f.run(c, "mpi", t, ReduceOp::max, count, root, in_place);
            EXPECT_EQ(count_wrong_results({c, t, ReduceOp::max, n}, rank, root, count, got.data()), 0u);
          }
}

// The path an MPI-3.1 library (no _c collectives) takes above INT_MAX elements, forced
// here at a limit of a few elements so it runs with any library: every collective, in
// and out of place, must give the same result as one plain call.
TEST(MpiBaselines, SplitCallsEqualOneCall) {
  Fixture& f = fixture();
  const int n = f.transport.size(), rank = f.transport.rank();
  for (Collective c : kAllCollectives)
    for (DType t : {DType::f32, DType::bf16})
      for (MPI_Count limit : {MPI_Count{1}, MPI_Count{7}, MPI_Count{64}})
        for (bool in_place : {false, true}) {
          const std::size_t count = 100;
          const int root = n - 1;
          if (c == Collective::alltoallv) continue;  // no split path: refused below
          SCOPED_TRACE(testing::Message() << collective_name(c) << " " << dtype_name(t) << " limit " << limit
                                          << (in_place ? " in place" : ""));
          if (known_mpi_defect(c, in_place, root)) continue;
          const auto got = f.run_with(c, t, ReduceOp::sum, count, root, in_place, [&](const CollectiveCall& call) {
            MpiLibraryCall(c, mpi_call_args(call, f.transport.comm(), rank), LargeCounts::split, limit).run();
          });
          EXPECT_EQ(count_wrong_results({c, t, ReduceOp::sum, n}, rank, root, count, got.data()), 0u);
        }
}

// alltoallv has no split path: without MPI_Alltoallv_c, counts past the limit are refused.
TEST(MpiBaselines, AlltoallvPastTheIntLimitIsRefusedWithoutLargeCounts) {
  Fixture& f = fixture();
  const int rank = f.transport.rank();
  std::vector<std::byte> buf(100 * 4 * static_cast<std::size_t>(f.transport.size()));
  const CollectiveCall call{Collective::alltoallv, DType::f32, ReduceOp::sum, 100, 0, buf.data(), buf.data(), false};
  EXPECT_THROW(
      MpiLibraryCall(Collective::alltoallv, mpi_call_args(call, f.transport.comm(), rank), LargeCounts::split, 7),
      std::length_error);
}
