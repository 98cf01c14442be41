#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "mpi_baseline.hpp"
#include "mpi_known_defects.hpp"
#include "mpi_transport.hpp"
#include "reference_algorithms.hpp"
#include "validation.hpp"

using namespace collbench;

namespace {

struct Fixture {
  Registry registry;
  MpiTransport transport{MPI_COMM_WORLD};
  Workspace workspace;
  Fixture() {
    register_mpi_baselines(registry);
    register_reference_algorithms(registry);
  }
  // Runs `name` once on this rank's inputs and returns its receive buffer.
  std::vector<std::byte> run(Collective c, const std::string& name, DType t, ReduceOp op, std::size_t count, int root,
                             bool in_place) {
    const int n = transport.size(), rank = transport.rank();
    const std::size_t elem = dtype_size(t);
    const BufferLayout l = buffer_layout(c, count, n, rank, root, in_place);
    std::vector<std::byte> send(l.send_count * elem + 1), recv(std::max(l.recv_count, l.send_count) * elem + 1);
    const CollectiveCall call = bind_buffers({c, t, op, count, root, nullptr, nullptr, in_place}, l, send.data(), recv.data());
    load_inputs(call, l, rank, n);
    prepare(*registry.find(c, name), call, transport, workspace)->run();
    recv.resize(l.recv_count * elem);
    return recv;
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

}  // namespace

TEST(RingAllreduce, EqualsMpiAllreduceForEveryDtypeOpAndCount) {
  Fixture& f = fixture();
  const int n = f.transport.size();
  for (DType t : kAllDTypes)
    for (ReduceOp op : kAllReduceOps)
      for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{100003}})
        for (bool in_place : {false, true}) {
          SCOPED_TRACE(testing::Message() << dtype_name(t) << " " << reduce_op_name(op) << " count " << count
                                          << (in_place ? " in place" : " out of place") << " on " << n << " ranks");
          const auto want = f.run(Collective::allreduce, "mpi", t, op, count, 0, false);
          const auto got = f.run(Collective::allreduce, "ring", t, op, count, 0, in_place);
          EXPECT_EQ(count_mismatches(t, got.data(), want.data(), count, 0), 0u);
          EXPECT_EQ(count_wrong_results({Collective::allreduce, t, op, n}, f.transport.rank(), 0, count, want.data()), 0u)
              << "MPI_Allreduce itself disagrees with the exact result";
        }
}

TEST(MpiBaselines, RootedCollectivesGiveTheExactResult) {
  Fixture& f = fixture();
  const int n = f.transport.size(), rank = f.transport.rank();
  for (Collective c : {Collective::broadcast, Collective::reduce, Collective::gather})
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
