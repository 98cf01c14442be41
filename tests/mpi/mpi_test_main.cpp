// GoogleTest main for tests run under mpiexec: every rank runs every test; only rank
// 0 prints. Tests use non-fatal EXPECTs inside collective loops so that a failure on
// one rank never leaves the others waiting in a collective.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>

#include "harness/common/timing.hpp"
#include "tests/mpi/oversubscribed.hpp"

namespace {
// Other ranks print only their failures, so a failure on one of them is never silent.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestStart(const ::testing::TestInfo& test) override {
    name_ = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s failed at %s:%d\n%s\n", rank_, name_.c_str(),
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.message());
  }

 private:
  int rank_;
  std::string name_;
};
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  collbench::set_barrier_yields(collbench::ranks_exceed_cores());  // the sweeps' barriers (oversubscribed.hpp)
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  int failed = RUN_ALL_TESTS() != 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
