#include <gtest/gtest.h>

#include "collectives/mpi/library.hpp"

using namespace collbench;

// The libraries our users run, as MPI_Get_library_version reports them.
TEST(MpiLibrary, ParsesMpich) {
  const MpiLibrary l = parse_mpi_library("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 2022\nMPICH Device:\tch4:ucx\n");
  EXPECT_EQ(l.family, MpiFamily::mpich);
  EXPECT_EQ(l.version_number, 40002);
  EXPECT_EQ(l.summary, "MPICH 4.0.2 (ch4:ucx)");
  EXPECT_TRUE(l.at_least(MpiFamily::mpich, 40000));
  EXPECT_FALSE(l.before(MpiFamily::open_mpi, 99999));
}

TEST(MpiLibrary, ParsesOpenMpi) {
  const MpiLibrary l = parse_mpi_library("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022");
  EXPECT_EQ(l.family, MpiFamily::open_mpi);
  EXPECT_EQ(l.name, "Open MPI");
  EXPECT_EQ(l.version_number, 40104);
  EXPECT_EQ(l.summary, "Open MPI 4.1.4");
  EXPECT_EQ(parse_mpi_library("Open MPI v5.0.3, package: Open MPI builder Distribution").version_number, 50003);
}

TEST(MpiLibrary, OthersKeepTheirFirstLine) {
  const MpiLibrary intel = parse_mpi_library("Intel(R) MPI Library 2021.10 for Linux* OS\n");
  EXPECT_EQ(intel.family, MpiFamily::other);
  EXPECT_EQ(intel.name, "Intel(R) MPI Library");
  EXPECT_EQ(intel.version, "2021.10");
  EXPECT_EQ(intel.summary, "Intel(R) MPI Library 2021.10 for Linux* OS");
  const MpiLibrary mvapich = parse_mpi_library("MVAPICH2 Version      :\t2.3.7\nMVAPICH2 Release date :\tWed March 02 22:00:00 EST 2022\n");
  EXPECT_EQ(mvapich.name, "MVAPICH2");
  EXPECT_EQ(mvapich.version_number, 20307);
  EXPECT_EQ(parse_mpi_library("").version_number, 0);
}
