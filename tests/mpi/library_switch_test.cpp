// MPICH's and Open MPI's algorithms switched inside one process. Open MPI
// (open_mpi_switch.hpp): a communicator duplicated while coll_tuned_allgather_algorithm
// names two_proc runs two_proc, which Open MPI refuses on any communicator of other than
// 2 ranks, while the original communicator keeps the library's own choice. Runs under
// OMPI_MCA_coll_tuned_use_dynamic_rules=1 (mpi.np3_open_mpi_switch); skipped where the
// library cannot switch.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "collectives/transport/mpi/library.hpp"
#include "collectives/transport/mpi/mpich_switch.hpp"
#include "collectives/transport/mpi/open_mpi_switch.hpp"

using namespace collbench;

namespace {

int allgather_on(MPI_Comm comm, std::vector<int>& out) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  out.assign(static_cast<std::size_t>(size), -1);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  return MPI_Allgather(&rank, 1, MPI_INT, out.data(), 1, MPI_INT, comm);
}

}  // namespace

TEST(LibrarySwitch, OpenMpiDuplicateRunsTheAlgorithmTheOriginalKeepsItsOwn) {
  const std::string why = open_mpi_switch_unavailable(Collective::allgather);
  if (!why.empty()) GTEST_SKIP() << why;
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 3) GTEST_SKIP() << "needs 3 ranks (two_proc fails there)";
  const auto two_proc = open_mpi_algorithm_value(Collective::allgather, "two_proc");
  const auto ring = open_mpi_algorithm_value(Collective::allgather, "ring");
  ASSERT_TRUE(two_proc && ring);
  MPI_Comm original = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &original);
  const MPI_Comm forced = open_mpi_switched_comm(Collective::allgather, *two_proc, std::nullopt, original);
  EXPECT_EQ(open_mpi_switched_comm(Collective::allgather, *two_proc, std::nullopt, original), forced) << "made once";
  const MPI_Comm ringed = open_mpi_switched_comm(Collective::allgather, *ring, std::nullopt, original);
  std::vector<int> got;
  EXPECT_NE(allgather_on(forced, got), MPI_SUCCESS) << "the duplicate did not run two_proc";
  for (MPI_Comm comm : {original, ringed}) {
    ASSERT_EQ(allgather_on(comm, got), MPI_SUCCESS);
    EXPECT_EQ(got, (std::vector<int>{0, 1, 2}));
  }
  MPI_Comm_free(&original);
}

// Every collective either switches or says why not, and MPICH 4 switches allreduce.
TEST(LibrarySwitch, MpichSwitchesOrSaysWhyNot) {
  for (const CollectiveTraits& t : kCollectiveTraits) {
    const std::string why = mpich_switch_unavailable(t.id);
    EXPECT_NE(why.empty(), mpich_switchable_algorithms(t.id).empty()) << collective_name(t.id) << ": " << why;
  }
  if (mpi_library().family != MpiFamily::mpich)
    EXPECT_EQ(mpich_switch_unavailable(Collective::allreduce), "not MPICH");
  else
    EXPECT_EQ(mpich_switch_unavailable(Collective::allreduce), "");
}
