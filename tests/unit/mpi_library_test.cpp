#include <gtest/gtest.h>

#include "collectives/transport/mpi/clean_finalize.hpp"
#include "collectives/transport/mpi/library.hpp"
#include "collectives/transport/mpi/mpich_switch.hpp"
#include "collectives/transport/mpi/open_mpi_switch.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace collbench;

// The libraries our users run, as MPI_Get_library_version reports them.
TEST(MpiLibrary, ParsesMpich) {
  const MpiLibrary l =
      parse_mpi_library("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 2022\nMPICH Device:\tch4:ucx\n");
  EXPECT_EQ(l.family, MpiFamily::mpich);
  EXPECT_EQ(l.version_number, 40002);
  EXPECT_EQ(l.summary, "MPICH 4.0.2 (ch4:ucx)");
  EXPECT_TRUE(l.at_least(MpiFamily::mpich, 40000));
  EXPECT_FALSE(l.before(MpiFamily::open_mpi, 99999));
}

TEST(MpiLibrary, ParsesOpenMpi) {
  const MpiLibrary l =
      parse_mpi_library("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022");
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
  const MpiLibrary mvapich =
      parse_mpi_library("MVAPICH2 Version      :\t2.3.7\nMVAPICH2 Release date :\tWed March 02 22:00:00 EST 2022\n");
  EXPECT_EQ(mvapich.name, "MVAPICH2");
  EXPECT_EQ(mvapich.version_number, 20307);
  EXPECT_EQ(parse_mpi_library("").version_number, 0);
}

// MPICH before 4.2 on ch4:ucx waits in a PMI barrier after closing its endpoints;
// collbench then quiets every rank before MPI_Finalize (clean_finalize.hpp).
TEST(FinalizePolicy, QuietsMpichBefore42OnUcxOnly) {
  const auto mpich = [](const char* version, const char* device) {
    return parse_mpi_library(std::string("MPICH Version:\t") + version + "\nMPICH Device:\t" + device + "\n");
  };
  EXPECT_EQ(finalize_policy(mpich("4.0.2", "ch4:ucx"), nullptr).quiet_ms, 200);
  EXPECT_TRUE(finalize_policy(mpich("4.0.2", "ch4:ucx"), nullptr).connect_pairs);
  EXPECT_EQ(finalize_policy(mpich("4.1.2", "ch4:ucx"), nullptr).quiet_ms, 200);
  EXPECT_FALSE(finalize_policy(mpich("4.2.0", "ch4:ucx"), nullptr).connect_pairs);
  const FinalizePolicy quiet = finalize_policy(mpich("4.0.2", "ch4:ucx"), nullptr);
  EXPECT_FALSE(connects_pairs(quiet, 1));
  EXPECT_TRUE(connects_pairs(quiet, 2));
  EXPECT_TRUE(connects_pairs(quiet, kMostRanksToConnect));
  EXPECT_FALSE(connects_pairs(quiet, kMostRanksToConnect + 1));
  EXPECT_NE(finalize_policy(mpich("4.0.2", "ch4:ucx"), nullptr).reason.find("openucx/ucx#8738"), std::string::npos);
  EXPECT_EQ(finalize_policy(mpich("4.2.0", "ch4:ucx"), nullptr).quiet_ms, 0);
  EXPECT_EQ(finalize_policy(mpich("4.0.2", "ch4:ofi"), nullptr).quiet_ms, 0);
  EXPECT_EQ(finalize_policy(mpich("3.4.3", "ch3:nemesis"), nullptr).quiet_ms, 0);
  EXPECT_EQ(finalize_policy(parse_mpi_library("Open MPI v4.1.4, package: Debian OpenMPI"), nullptr).quiet_ms, 0);
}

TEST(FinalizePolicy, TheVariableDecidesAndBadValuesAreRefused) {
  const MpiLibrary lib = parse_mpi_library("MPICH Version:\t4.0.2\nMPICH Device:\tch4:ucx\n");
  EXPECT_EQ(finalize_policy(lib, "0").quiet_ms, 0);
  EXPECT_EQ(finalize_policy(lib, "1500").quiet_ms, 1500);
  EXPECT_EQ(finalize_policy(parse_mpi_library("Open MPI v4.1.4"), "50").quiet_ms, 50);
  EXPECT_EQ(finalize_policy(lib, "50").reason, "set by COLLBENCH_FINALIZE_QUIET_MS");
  EXPECT_FALSE(finalize_policy(lib, "0").connect_pairs);
  EXPECT_TRUE(finalize_policy(lib, "50").connect_pairs);
  EXPECT_FALSE(finalize_policy(lib, nullptr, "0").connect_pairs);
  EXPECT_EQ(finalize_policy(lib, nullptr, "0").quiet_ms, 200);
  EXPECT_TRUE(finalize_policy(parse_mpi_library("Open MPI v4.1.4"), "0", "1").connect_pairs);
  EXPECT_NE(finalize_policy(lib, "10", "0").reason.find("pairs off by COLLBENCH_FINALIZE_CONNECT"), std::string::npos);
  for (const char* bad : {"", "2", "yes", " 1"}) {
    try {
      finalize_policy(lib, nullptr, bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), std::string("COLLBENCH_FINALIZE_CONNECT must be 0 or 1, not '") + bad + "'");
    }
  }
  for (const char* bad : {"", "-1", "10001", "2s", "1e3", " 5"}) {
    try {
      finalize_policy(lib, bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("COLLBENCH_FINALIZE_QUIET_MS must be a whole number of milliseconds from 0 to "
                            "10000, not '") +
                    bad + "'");
    }
  }
}

// MPICH 4.0.2's own description of MPIR_CVAR_BCAST_INTRA_ALGORITHM, lines joined as
// MPI_T gives them: the names' order is the order of their values.
constexpr const char* kBcastDescription =
    "Variable to select bcast algorithmauto - Internal algorithm selection (can be overridden with "
    "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)binomial                                - Force Binomial Treenb      "
    "                                - Force nonblocking algorithmsmp                                     - Force smp "
    "algorithmscatter_recursive_doubling_allgather    - Force Scatter Recursive-Doubling "
    "Allgatherscatter_ring_allgather                  - Force Scatter Ring";

TEST(MpichSwitch, ReadsTheOrderOfValuesFromTheDescription) {
  const std::vector<std::string> listed{
      "auto", "binomial", "scatter_recursive_doubling_allgather", "scatter_ring_allgather", "smp", "nb"};
  EXPECT_EQ(mpich_enum_order(kBcastDescription, listed),
            (std::vector<std::string>{"auto", "binomial", "nb", "smp", "scatter_recursive_doubling_allgather",
                                      "scatter_ring_allgather"}));
  const std::string fallback =
      "Variable to control what the MPI library should do if theuser-specified collective algorithm does not work "
      "for thearguments passed in by the user.error   - throw an errorprint   - print an error message and fallback "
      "to the internally selected algorithmsilent  - silently fallback to the internally selected algorithm";
  EXPECT_EQ(mpich_enum_order(fallback, {"silent", "print", "error"}),
            (std::vector<std::string>{"error", "print", "silent"}));
}

TEST(MpichSwitch, RefusesADescriptionItCannotReadWhole) {
  // A name it does not list, a listed name missing, a name twice: no order at all.
  EXPECT_TRUE(mpich_enum_order(kBcastDescription, {"auto", "binomial", "nb", "smp", "scatter_ring_allgather"}).empty());
  EXPECT_TRUE(
      mpich_enum_order(kBcastDescription, {"auto", "binomial", "nb", "smp", "scatter_recursive_doubling_allgather",
                                           "scatter_ring_allgather", "pipelined"})
          .empty());
  EXPECT_TRUE(mpich_enum_order("auto - x nb - y nb - z", {"auto", "nb"}).empty());
}

TEST(MpichSwitch, RefusesWhatMpichCannotRunForTheCalls) {
  EXPECT_NE(mpich_restriction_refusal(Collective::allreduce, "smp", 4, 1, 4).find("node hierarchy"), std::string::npos);
  EXPECT_EQ(mpich_restriction_refusal(Collective::allreduce, "smp", 4, 2, 2), "");
  // One rank on each node: no node communicators, so no hierarchy (tried on 2 emulated hosts).
  EXPECT_NE(mpich_restriction_refusal(Collective::allreduce, "smp", 2, 2, 1), "");
  EXPECT_NE(mpich_restriction_refusal(Collective::broadcast, "scatter_recursive_doubling_allgather", 3, 1, 3)
                .find("power-of-two"),
            std::string::npos);
  // A count restriction refuses no run: the sweep skips the sizes below (mpich_smallest_count).
  EXPECT_EQ(mpich_restriction_refusal(Collective::allreduce, "reduce_scatter_allgather", 6, 1, 6), "");
  EXPECT_EQ(mpich_restriction_refusal(Collective::allreduce, "recursive_doubling", 3, 1, 3), "");
  // MPICH's pairwise_sendrecv_replace runs only in place, its other alltoall(v)s never.
  EXPECT_NE(
      mpich_restriction_refusal(Collective::alltoallv, "pairwise_sendrecv_replace", 2, 1, 2).find("only in place"),
      std::string::npos);
  EXPECT_EQ(mpich_restriction_refusal(Collective::alltoallv, "pairwise_sendrecv_replace", 2, 1, 2, true), "");
  EXPECT_NE(mpich_restriction_refusal(Collective::alltoall, "brucks", 2, 1, 2, true), "");
  EXPECT_EQ(mpich_restriction_refusal(Collective::alltoall, "nb", 2, 1, 2, true), "");
}

TEST(MpichSwitch, SmallestCountIsThePowerOfTwoBelowTheRanksForCountRestrictedAlgorithms) {
  // count >= the largest power of two <= ranks: 4 on 6 ranks, 4 on 4, 1 on 1.
  EXPECT_EQ(mpich_smallest_count(Collective::allreduce, "reduce_scatter_allgather", 6), 4u);
  EXPECT_EQ(mpich_smallest_count(Collective::allreduce, "reduce_scatter_allgather", 4), 4u);
  EXPECT_EQ(mpich_smallest_count(Collective::reduce, "reduce_scatter_gather", 9), 8u);
  EXPECT_EQ(mpich_smallest_count(Collective::reduce, "reduce_scatter_gather", 1), 1u);
  EXPECT_EQ(mpich_smallest_count(Collective::allreduce, "recursive_doubling", 6), 1u);
  EXPECT_EQ(mpich_smallest_count(Collective::broadcast, "scatter_recursive_doubling_allgather", 4), 1u);
}

// Open MPI 4.1's coll/base falls back by itself below these counts (coll_base_<coll>.c).
TEST(OpenMpiSwitch, FallbackCountsAreWhereCollBaseRunsTheForcedAlgorithm) {
  auto smallest = [](Collective c, const char* a, int ranks, std::size_t segment = 0) {
    return open_mpi_fallback(c, a, ranks, 4, segment).smallest_count;
  };
  EXPECT_EQ(open_mpi_fallback(Collective::allreduce, "ring", 3, 4, 0).runs, "recursive_doubling");
  EXPECT_EQ(smallest(Collective::allreduce, "ring", 3), 3u);          // count < size
  EXPECT_EQ(smallest(Collective::allreduce, "rabenseifner", 6), 4u);  // count < flp2(size)
  EXPECT_EQ(smallest(Collective::reduce, "rabenseifner", 6), 4u);
  // count < size * segcount, segcount the segment's floats rounded to the nearer: 1 KiB on 4 ranks.
  EXPECT_EQ(smallest(Collective::allreduce, "segmented_ring", 4, 1024), 1024u);
  EXPECT_EQ(smallest(Collective::allreduce, "segmented_ring", 4, 1026), 1024u);
  EXPECT_EQ(smallest(Collective::allreduce, "segmented_ring", 4, 1027), 1028u);
  EXPECT_EQ(smallest(Collective::broadcast, "scatter_allgather_ring", 4), 4u);
  EXPECT_EQ(open_mpi_fallback(Collective::broadcast, "scatter_allgather", 4, 4, 0).runs, "basic_linear");
  // Each half must hold a segment: 2 elements unsegmented, 2 x 3 floats with 9-byte segments.
  EXPECT_EQ(smallest(Collective::broadcast, "split_binary_tree", 4), 2u);
  EXPECT_EQ(smallest(Collective::broadcast, "split_binary_tree", 4, 9), 6u);
  EXPECT_EQ(smallest(Collective::allreduce, "recursive_doubling", 5), 1u);
  EXPECT_EQ(open_mpi_fallback(Collective::broadcast, "binomial", 5, 4, 0).runs, "");
}

TEST(OpenMpiSwitch, RefusesWhereOpenMpiRunsAnotherAlgorithmAtEveryCount) {
  auto why = [](Collective c, const char* a, int ranks, std::size_t segment = 0) {
    return open_mpi_restriction_refusal(c, a, ranks, 4, segment);
  };
  EXPECT_NE(why(Collective::allgather, "recursive_doubling", 3).find("runs bruck"), std::string::npos);
  EXPECT_EQ(why(Collective::allgather, "recursive_doubling", 4), "");
  EXPECT_NE(why(Collective::allgather, "neighbor", 3).find("runs ring"), std::string::npos);
  EXPECT_EQ(why(Collective::allgather, "neighbor", 6), "");
  // A segment below one float: Open MPI's ring at every count.
  EXPECT_NE(why(Collective::allreduce, "segmented_ring", 4).find("OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize"),
            std::string::npos);
  EXPECT_NE(why(Collective::allreduce, "segmented_ring", 4, 3), "");
  EXPECT_EQ(why(Collective::allreduce, "segmented_ring", 4, 4), "");
  EXPECT_NE(why(Collective::alltoall, "two_proc", 3), "");
}

// Which algorithms take a segment is read off coll/tuned's do_this (4.1.4); a segmented
// name round-trips and a malformed one is refused rather than run unsegmented.
TEST(OpenMpiSwitch, SegmentedNamesRoundTripAndOnlySegmentedAlgorithmsTakeThem) {
  EXPECT_TRUE(open_mpi_takes_segments(Collective::broadcast, "pipeline"));
  EXPECT_TRUE(open_mpi_takes_segments(Collective::allreduce, "segmented_ring"));
  EXPECT_TRUE(open_mpi_takes_segments(Collective::reduce, "in-order_binary"));  // as MPI_T names it
  EXPECT_FALSE(open_mpi_takes_segments(Collective::allreduce, "ring"));
  EXPECT_FALSE(open_mpi_takes_segments(Collective::broadcast, "scatter_allgather"));  // passed, unused
  EXPECT_FALSE(open_mpi_takes_segments(Collective::allgather, "ring"));
  const SegmentedAlgorithm a = split_segmented_name(segmented_name("pipeline", 65536));
  EXPECT_EQ(segmented_name("pipeline", 65536), "pipeline:seg=65536");
  EXPECT_EQ(a.algorithm, "pipeline");
  EXPECT_EQ(a.segment_bytes, std::optional<std::size_t>(65536));
  EXPECT_EQ(split_segmented_name("binomial").algorithm, "binomial");
  EXPECT_FALSE(split_segmented_name("binomial").segment_bytes);
  for (const char* bad : {"pipeline:seg=", "pipeline:seg=0", "pipeline:seg=64K", "pipeline:seg=4294967296"})
    EXPECT_THROW(split_segmented_name(bad), std::invalid_argument) << bad;
}
