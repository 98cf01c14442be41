// collbench tune's pure parts: the choice rule, MPICH's selection file (written, then
// read back the way csel.c selects), and Open MPI's dynamic rules (written, then read).
#include <gtest/gtest.h>

#include <array>
#include <numeric>

#include <nlohmann/json.hpp>

#include "collectives/transport/mpi/selection_defaults.hpp"
#include "harness/tune/mpich_selection.hpp"
#include "harness/tune/open_mpi_rules.hpp"
#include "harness/tune/tune_choice.hpp"

using namespace collbench;
using Json = nlohmann::ordered_json;

namespace {

TuneMeasurement row(std::size_t bytes, const std::string& label, std::vector<double> rounds, int ranks = 2,
                    long long errors = 0, Collective c = Collective::allreduce) {
  std::vector<double> sorted = rounds;
  std::sort(sorted.begin(), sorted.end());
  const double mean = rounds.empty() ? 0 : std::accumulate(rounds.begin(), rounds.end(), 0.0) / rounds.size();
  return {c, ranks, bytes, label, sorted.empty() ? 0 : sorted[sorted.size() / 2], rounds, errors, 0, 1, 1, mean};
}

// The row as measured in launch (input file) l.
TuneMeasurement launch(TuneMeasurement m, int l) {
  m.launch = l;
  return m;
}

const SizeChoice& at(const std::vector<CollectiveChoices>& c, std::size_t bytes, std::size_t comm = 0) {
  for (const SizeChoice& s : c.at(0).communicators.at(comm).sizes)
    if (s.bytes == bytes) return s;
  throw std::out_of_range("no size");
}

}  // namespace

TEST(TuneChoice, AForcedAlgorithmWinsOnlyWhereEveryRoundBeatsTheDefaultsFastest) {
  const auto c = choose_algorithms({
      row(8, "mpi", {10, 11, 12}), row(8, "mpi[ring]", {5, 6, 9.9}),       // 9.9 < 10: chosen
      row(16, "mpi", {10, 11, 12}), row(16, "mpi[ring]", {5, 6, 10.5}),    // one round overlaps
      row(32, "mpi", {10, 11, 12}), row(32, "mpi[ring]", {12.5, 13, 14}),  // slower
  });
  EXPECT_EQ(at(c, 8).algorithm, "ring");
  EXPECT_EQ(at(c, 16).algorithm, "");
  EXPECT_EQ(at(c, 16).fastest, "ring");
  EXPECT_EQ(at(c, 32).algorithm, "");
}

TEST(TuneChoice, OverSeveralLaunchesTheAlgorithmMustWinInMostOfThemSideBySide) {
  // Whole launches run fast or slow (a VM's CPU placement): pooled, ring's slowest launch
  // (12) is slower than the default's fastest (5), yet it won beside it in every launch.
  std::vector<TuneMeasurement> rows;
  const std::vector<std::array<double, 2>> times = {{10, 5}, {5, 4}, {20, 12}};
  for (int l = 0; l < 3; ++l) {
    rows.push_back(launch(row(8, "mpi", {times[l][0]}), l));
    rows.push_back(launch(row(8, "mpi[ring]", {times[l][1]}), l));
  }
  // At 16 bytes ring is faster in the median but wins only 2 of 4 launches.
  const std::vector<std::array<double, 2>> split = {{10, 1}, {10, 2}, {10, 11}, {10, 12}};
  for (int l = 0; l < 4; ++l) {
    rows.push_back(launch(row(16, "mpi", {split[l][0]}), l));
    rows.push_back(launch(row(16, "mpi[ring]", {split[l][1]}), l));
  }
  // At 32 bytes the winner had wrong results in one launch.
  for (int l = 0; l < 3; ++l) {
    rows.push_back(launch(row(32, "mpi", {10}), l));
    rows.push_back(launch(row(32, "mpi[ring]", {1}, 2, l == 1 ? 4 : 0), l));
    rows.push_back(launch(row(32, "mpi[tree]", {8}), l));
  }
  const auto c = choose_algorithms(rows);
  EXPECT_EQ(at(c, 8).algorithm, "ring");
  EXPECT_EQ(at(c, 8).reason, "faster than the default in 3 of 3 launches");
  EXPECT_DOUBLE_EQ(at(c, 8).default_us, 10);  // medians over launches
  EXPECT_EQ(at(c, 16).algorithm, "");
  EXPECT_EQ(at(c, 16).reason, "faster in only 2 of 4 launches");
  EXPECT_EQ(at(c, 32).algorithm, "tree");
}

TEST(TuneChoice, CallsInTwoModesTieOnP50AndGoToTheSteadierByTheMean) {
  // As Open MPI's allreduce at 16 MiB on 2 emulated hosts: the default's calls take
  // 143-145 or 210-213 ms, rd's 144-147 always. Which mode a p50 lands on is chance (the
  // rounds scatter by 70 ms): rd's p50 1 ms slower in one launch is within that, and the
  // means decide.
  const auto with_mean = [](TuneMeasurement m, double mean) {
    m.mean_us = mean;
    return m;
  };
  const std::vector<TuneMeasurement> rows = {
      launch(row(8, "mpi", {143, 145, 210, 144, 212, 143}), 0),      // p50 145, mean 166
      launch(row(8, "mpi[rd]", {146, 146, 147, 145, 146, 147}), 0),  // p50 146
      launch(row(8, "mpi", {210, 212, 143, 213, 211, 144}), 1),      // p50 211
      launch(row(8, "mpi[rd]", {145, 144, 146, 145, 147, 144}), 1),
      // At 16 bytes rd's mean is lower, but its p50 is slower and one round has no spread.
      launch(row(16, "mpi", {100}), 0), launch(with_mean(row(16, "mpi[rd]", {103}), 90), 0),
      launch(row(16, "mpi", {100}), 1), launch(with_mean(row(16, "mpi[rd]", {103}), 90), 1)};
  const auto c = choose_algorithms(rows);
  EXPECT_EQ(at(c, 8).algorithm, "rd");
  EXPECT_EQ(at(c, 8).reason,
            "faster than the default in 2 of 2 launches (1 by the mean, the p50s within the rounds' spread)");
  EXPECT_EQ(at(c, 16).algorithm, "");
}

TEST(TuneChoice, OneRoundHasNoSpreadSoTheDefaultStays) {
  const auto c = choose_algorithms({row(8, "mpi", {10}), row(8, "mpi[ring]", {1})});
  EXPECT_EQ(at(c, 8).algorithm, "");
  EXPECT_NE(at(c, 8).reason.find("rounds"), std::string::npos);
}

TEST(TuneChoice, WrongOrUncheckedResultsAreNeverChosen) {
  const auto c = choose_algorithms({row(8, "mpi", {10, 10}), row(8, "mpi[ring]", {1, 1}, 2, 3),
                                    row(8, "mpi[tree]", {2, 2}, 2, -1), row(8, "mpi[rd]", {5, 5})});
  EXPECT_EQ(at(c, 8).algorithm, "rd");
}

TEST(TuneChoice, TiesGoToTheLowerMedianThenTheName) {
  const auto c = choose_algorithms({row(8, "mpi", {10, 10, 10}), row(8, "mpi[b]", {1, 2, 3}),
                                    row(8, "mpi[a]", {1, 2, 3}), row(8, "mpi[c]", {1, 1.5, 3})});
  EXPECT_EQ(at(c, 8).algorithm, "c");  // median 1.5
  const auto tie = choose_algorithms({row(8, "mpi", {10, 10}), row(8, "mpi[b]", {1, 2}), row(8, "mpi[a]", {1, 2})});
  EXPECT_EQ(at(tie, 8).algorithm, "a");
}

TEST(TuneChoice, EachSegmentOfAnAlgorithmIsACandidateOfItsOwn) {
  const auto c = choose_algorithms({row(1 << 20, "mpi", {10, 10}), row(1 << 20, "mpi[pipeline]", {9, 9}),
                                    row(1 << 20, "mpi[pipeline:seg=65536]", {4, 4}),
                                    row(1 << 20, "mpi[pipeline:seg=8192]", {6, 6})});
  EXPECT_EQ(at(c, 1 << 20).algorithm, "pipeline:seg=65536");
}

TEST(TuneChoice, SizesWithoutACorrectDefaultAreLeftOutAndOtherRowsIgnored) {
  const auto c =
      choose_algorithms({row(8, "mpi[ring]", {1, 1}), row(16, "mpi", {5, 5}, 2, 1), row(16, "mpi[ring]", {1, 1}),
                         row(32, "mpi", {5, 5}), row(32, "ring", {1, 1}), row(32, "mpi[tuned]", {1, 1})});
  ASSERT_EQ(c.at(0).communicators.at(0).sizes.size(), 1u);
  EXPECT_EQ(at(c, 32).algorithm, "");
  EXPECT_EQ(at(c, 32).fastest, "");
}

TEST(TuneChoice, EachCommunicatorSizeAndCollectiveIsChosenApart) {
  const auto c =
      choose_algorithms({row(8, "mpi", {10, 10}, 2), row(8, "mpi[ring]", {1, 1}, 2), row(8, "mpi", {10, 10}, 4),
                         row(8, "mpi[ring]", {20, 20}, 4), row(8, "mpi", {10, 10}, 2, 0, Collective::broadcast),
                         row(8, "mpi[ring]", {20, 20}, 2, 0, Collective::broadcast)});
  ASSERT_EQ(c.size(), 2u);
  ASSERT_EQ(c[0].communicators.size(), 2u);
  EXPECT_EQ(at(c, 8, 0).algorithm, "ring");
  EXPECT_EQ(at(c, 8, 1).algorithm, "");
  EXPECT_EQ(c[1].communicators[0].sizes[0].algorithm, "");
}

TEST(TuneChoice, AComposedChoiceIsLeftOutWhereTheFileChangesItsParts) {
  // Open MPI's allreduce nonoverlapping at 8 KiB ran the file's broadcast inside at
  // 87-95 us against 54-61 us forced (results/tune/openmpi-2x1-1gbe).
  const auto allreduce = [](int ranks) {
    return CommunicatorChoices{ranks, {{8, ""}, {8192, "nonoverlapping"}, {16384, "ring"}, {65536, "nonoverlapping"}}};
  };
  std::vector<CollectiveChoices> choices = {
      {Collective::allreduce, {allreduce(2), allreduce(4)}},
      // The file's broadcast: at 2 ranks from 12 KiB (inside 8 KiB's reach, below 16 KiB);
      // at 4 ranks only at 32 KiB, which no nonoverlapping choice covers.
      {Collective::broadcast, {{2, {{8, ""}, {12288, "binomial"}, {16384, ""}}}, {4, {{8, ""}, {32768, "chain"}}}}}};
  keep_compositions_as_measured(choices, open_mpi_compositions());
  const std::vector<SizeChoice>& two = choices[0].communicators[0].sizes;
  EXPECT_EQ(two[1].algorithm, "");
  EXPECT_NE(two[1].reason.find("nonoverlapping runs broadcast through the library's selection, which this file "
                               "changes at 12288 B"),
            std::string::npos)
      << two[1].reason;
  EXPECT_EQ(two[2].algorithm, "ring");            // not a composition
  EXPECT_EQ(two[3].algorithm, "nonoverlapping");  // the last measured size: 64 KiB alone, broadcast's own there
  const std::vector<SizeChoice>& four = choices[0].communicators[1].sizes;
  EXPECT_EQ(four[1].algorithm, "nonoverlapping");  // the file's broadcast at 32 KiB is beyond 8-16 KiB
  EXPECT_EQ(four[3].algorithm, "nonoverlapping");
  EXPECT_EQ(choices[1].communicators[0].sizes[1].algorithm, "binomial");  // the parts stay as chosen
}

TEST(TuneChoice, ASizeTakesTheNearestMeasuredBelowAndTheDefaultOutsideTheRange) {
  CommunicatorChoices comm{2, {{8, "a"}, {32, ""}, {128, "b"}, {512, "b"}}};
  EXPECT_EQ(choice_at(comm, 7), "");
  EXPECT_EQ(choice_at(comm, 8), "a");
  EXPECT_EQ(choice_at(comm, 31), "a");
  EXPECT_EQ(choice_at(comm, 32), "");
  EXPECT_EQ(choice_at(comm, 200), "b");
  EXPECT_EQ(choice_at(comm, 512), "b");
  EXPECT_EQ(choice_at(comm, 513), "");
  // The bands say the same at every size, neighbours with one choice merged.
  const std::vector<SizeBand> bands = size_bands(comm);
  ASSERT_EQ(bands.size(), 5u);
  EXPECT_EQ(bands[3].from, 128u);
  EXPECT_EQ(*bands[3].below, 513u);
  EXPECT_FALSE(bands[4].below.has_value());
  for (std::size_t bytes = 0; bytes < 600; ++bytes) {
    std::string in_band;
    for (const SizeBand& b : bands)
      if (bytes >= b.from && (!b.below || bytes < *b.below)) in_band = b.algorithm;
    EXPECT_EQ(in_band, choice_at(comm, bytes)) << bytes;
  }
}

namespace {

// A library tree shaped as MPICH's own (our own small one, not MPICH's file).
Json library_tree() {
  return Json::parse(R"({
    "collective=bcast": {"comm_type=intra": {"comm_size<8": {"comm_hierarchy=parent": {"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_smp": {}}},
                                                            "comm_hierarchy=any": {"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}},
                                             "comm_size=any": {"avg_msg_size<=12288": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                                                               "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}}},
                         "comm_type=inter": {"algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {}}},
    "collective=allreduce": {"comm_type=intra": {"avg_msg_size<=8": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
                                                 "avg_msg_size=any": {"is_op_built_in=no": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
                                                                      "is_op_built_in=yes": {"count<pow2": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
                                                                                             "count=any": {"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}}}},
                             "comm_type=inter": {"algorithm=MPIR_Allreduce_inter_reduce_exchange_bcast": {}}},
    "collective=gather": {"comm_type=intra": {"algorithm=MPIR_Gather_intra_binomial": {}},
                          "comm_type=inter": {"algorithm=MPIR_Gather_inter_linear": {}}},
    "collective=alltoall": {"comm_type=intra": {"is_sendbuf_inplace=yes": {"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": {}},
                                                "is_sendbuf_inplace=no": {"avg_msg_size<=256": {"algorithm=MPIR_Alltoall_intra_brucks": {}},
                                                                          "avg_msg_size=any": {"algorithm=MPIR_Alltoall_intra_pairwise": {}}}},
                            "comm_type=inter": {"algorithm=MPIR_Alltoall_inter_pairwise_exchange": {}}},
    "collective=barrier": {"comm_type=intra": {"algorithm=MPIR_Barrier_intra_dissemination": {}},
                           "comm_type=inter": {"algorithm=MPIR_Barrier_inter_bcast": {}}}
  })");
}

// One call as csel.c sees it.
struct Call {
  std::string coll;
  int comm_size = 2;
  long long avg = 0, total = 0, count = 0;
  bool hierarchical = false, commutative = true, built_in = true, in_place = false;
};

long long pof2_below(int n) {
  long long p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

bool holds(const std::string& key, const Call& c) {
  const auto value = [&](const char* prefix) { return std::stoll(key.substr(std::string(prefix).size())); };
  const auto starts = [&](const char* p) { return key.rfind(p, 0) == 0; };
  if (key.size() > 4 && key.compare(key.size() - 4, 4, "=any") == 0) return true;
  if (key == "comm_type=intra") return true;
  if (key == "comm_type=inter") return false;
  if (key == "comm_hierarchy=parent") return c.hierarchical;
  if (starts("comm_hierarchy=")) return !c.hierarchical;
  if (key == "comm_size=pow2") return (c.comm_size & (c.comm_size - 1)) == 0;
  if (starts("comm_size<=")) return c.comm_size <= value("comm_size<=");
  if (starts("comm_size<")) return c.comm_size < value("comm_size<");
  if (starts("avg_msg_size<=")) return c.avg <= value("avg_msg_size<=");
  if (starts("avg_msg_size<")) return c.avg < value("avg_msg_size<");
  if (starts("total_msg_size<=")) return c.total <= value("total_msg_size<=");
  if (starts("total_msg_size<")) return c.total < value("total_msg_size<");
  if (key == "count<pow2") return c.count < pof2_below(c.comm_size);
  if (starts("is_commutative=")) return c.commutative == (key == "is_commutative=yes");
  if (starts("is_op_built_in=")) return c.built_in == (key == "is_op_built_in=yes");
  if (starts("is_sendbuf_inplace=")) return c.in_place == (key == "is_sendbuf_inplace=yes");
  ADD_FAILURE() << "unknown key " << key;
  return false;
}

// The first matching key at each level, descending without coming back (csel.c).
std::string select(const Json& tree, const Call& c) {
  const Json* node = &tree.at("collective=" + c.coll);
  while (true) {
    const Json* next = nullptr;
    for (auto it = node->begin(); it != node->end() && !next; ++it) {
      if (it.key().rfind("algorithm=", 0) == 0) return it.key().substr(10);
      if (holds(it.key(), c)) next = &it.value();
    }
    if (!next) return "none";
    node = next;
  }
}

Json written(const std::vector<CollectiveChoices>& choices, std::size_t element_bytes = 4) {
  const std::string text = write_mpich_selection(library_tree(), choices, element_bytes, {"a note"});
  EXPECT_EQ(text.rfind("/*\n * a note\n */\n", 0), 0u);
  EXPECT_EQ(check_mpich_selection(text, library_tree(), mpich_known_containers(library_tree())),
            std::vector<std::string>{});
  return Json::parse(text, nullptr, true, true);
}

}  // namespace

TEST(MpichSelection, EachMeasuredSizeRunsItsChoiceAndEverythingElseTheLibrarysOwn) {
  const CollectiveChoices allreduce{
      Collective::allreduce,
      {{8, {{8, "recursive_doubling"}, {16, ""}, {32, "reduce_scatter_allgather"}, {64, "reduce_scatter_allgather"}}}}};
  const Json tuned = written({allreduce});
  const Json own = library_tree();
  const auto both = [&](Call c) { return std::pair{select(tuned, c), select(own, c)}; };
  const std::string rd = "MPIR_Allreduce_intra_recursive_doubling",
                    rsa = "MPIR_Allreduce_intra_reduce_scatter_allgather";
  for (long long bytes : {4, 8, 12, 16, 24, 32, 40, 64, 65, 1000}) {
    Call c{"allreduce", 8, bytes, bytes * 8, bytes / 4};
    const auto [mine, library] = both(c);
    const std::string expected = bytes >= 8 && bytes < 16 ? rd : bytes >= 32 && bytes <= 64 ? rsa : library;
    EXPECT_EQ(mine, expected) << bytes << " bytes";
  }
  // Other communicator sizes, operations the measurement did not run, and counts the
  // algorithm cannot take keep the library's choice.
  for (Call c : {Call{"allreduce", 4, 32, 128, 8}, Call{"allreduce", 9, 32, 288, 8},
                 Call{"allreduce", 8, 32, 256, 8, false, false}, Call{"allreduce", 8, 32, 256, 8, false, true, false}})
    EXPECT_EQ(select(tuned, c), select(own, c)) << c.comm_size;
  // reduce_scatter_allgather needs count >= the power of two at or below the size:
  // 16 ranks, 32 bytes of f32 (8 elements) is measured as chosen, but cannot run it.
  const Json sixteen = written({{Collective::allreduce, {{16, {{32, "reduce_scatter_allgather"}}}}}});
  EXPECT_EQ(select(sixteen, Call{"allreduce", 16, 32, 512, 8}), rd);
  // Untuned collectives, and the other side of every collective, are the library's.
  EXPECT_EQ(tuned["collective=barrier"], own["collective=barrier"]);
  EXPECT_EQ(tuned["collective=allreduce"]["comm_type=inter"], own["collective=allreduce"]["comm_type=inter"]);
}

TEST(MpichSelection, WhereTheFileKeepsTheLibrarysChoiceItAddsNoTests) {
  // Every test csel.c walks costs every call: a communicator size (or a whole collective)
  // whose choices all keep the library's gets the library's tree as it is.
  const Json own = library_tree();
  const Json kept = written({{Collective::gather, {{2, {{8, ""}, {1024, ""}}}}},
                             {Collective::allreduce, {{2, {{8, ""}}}, {4, {{8, "recursive_doubling"}}}}}});
  EXPECT_EQ(kept["collective=gather"], own["collective=gather"]);
  const Json& intra = kept["collective=allreduce"]["comm_type=intra"];
  EXPECT_FALSE(intra.contains("comm_size<=2"));
  EXPECT_TRUE(intra.contains("comm_size<=4"));
  EXPECT_EQ(select(kept, Call{"allreduce", 2, 8, 16, 2}), select(own, Call{"allreduce", 2, 8, 16, 2}));
  EXPECT_EQ(select(kept, Call{"allreduce", 4, 8, 32, 2}), "MPIR_Allreduce_intra_recursive_doubling");
}

TEST(MpichSelection, TheLibrarysCommunicatorConditionsStayAboveTheSizeLadder) {
  // bcast's own tree tests the communicator first (comm_size<8, comm_hierarchy): the
  // ladder goes below them, so a hierarchical 4-rank communicator still gets smp where
  // the default stays, and the choice where it does not.
  const Json tuned = written({{Collective::broadcast, {{4, {{1024, "binomial"}, {4096, "scatter_ring_allgather"}}}}}});
  const Json own = library_tree();
  EXPECT_EQ(select(tuned, Call{"bcast", 4, 512, 2048, 128, true}), "MPIR_Bcast_intra_smp");
  EXPECT_EQ(select(tuned, Call{"bcast", 4, 2048, 8192, 512, true}), "MPIR_Bcast_intra_binomial");
  EXPECT_EQ(select(tuned, Call{"bcast", 4, 4096, 16384, 1024, false}), "MPIR_Bcast_intra_scatter_ring_allgather");
  EXPECT_EQ(select(tuned, Call{"bcast", 4, 5000, 20000, 1250, false}), select(own, Call{"bcast", 4, 5000}));
  const std::vector<std::string> problems =
      check_mpich_selection(write_mpich_selection(own, {{Collective::broadcast, {{4, {{1024, "smp"}}}}}}, 4, {}), own,
                            mpich_known_containers(own));
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST(MpichSelection, SizesAreWhatMpichComparesPerCollective) {
  // alltoall: avg_msg_size is one peer's block (run's bytes are all n blocks);
  // gather: total_msg_size counts elements.
  const Json tuned = written({{Collective::alltoall, {{4, {{4096, "scattered"}, {8192, ""}}}}},
                              {Collective::gather, {{4, {{4096, "nb"}, {8192, ""}}}}}},
                             4);
  EXPECT_EQ(select(tuned, Call{"alltoall", 4, 1024}), "MPIR_Alltoall_intra_scattered");
  EXPECT_EQ(select(tuned, Call{"alltoall", 4, 2048}), "MPIR_Alltoall_intra_pairwise");
  EXPECT_EQ(select(tuned, Call{"alltoall", 4, 1024, 0, 0, false, true, true, true}),
            "MPIR_Alltoall_intra_pairwise_sendrecv_replace");  // in place: not measured
  EXPECT_EQ(select(tuned, Call{"gather", 4, 0, 1024}), "MPIR_Gather_allcomm_nb");
  EXPECT_EQ(select(tuned, Call{"gather", 4, 0, 2048}), "MPIR_Gather_intra_binomial");
}

TEST(MpichSelection, ChoicesMpichCannotTakeAreRefused) {
  EXPECT_THROW(write_mpich_selection(library_tree(), {{Collective::alltoallv, {{2, {{8, "scattered"}}}}}}, 4, {}),
               std::invalid_argument);
  EXPECT_THROW(
      write_mpich_selection(library_tree(),
                            {{Collective::broadcast, {{6, {{8, "scatter_recursive_doubling_allgather"}}}}}}, 4, {}),
      std::invalid_argument);  // needs a power-of-two communicator
  EXPECT_THROW(write_mpich_selection(library_tree(), {{Collective::broadcast, {{2, {{8, "binomial"}}}}}}, 4, {"*/"}),
               std::invalid_argument);
}

TEST(MpichSelection, TheCheckRefusesWhatMpichWouldMisread) {
  const Json own = library_tree();
  const std::set<std::string> known = mpich_known_containers(own);
  EXPECT_TRUE(check_mpich_selection(own.dump(), own, known).empty());
  const auto problems_with = [&](const std::function<void(Json&)>& edit) {
    Json j = own;
    edit(j);
    return check_mpich_selection(j.dump(), own, known);
  };
  const auto refused = [&](const std::function<void(Json&)>& edit, const std::string& what) {
    const std::vector<std::string> p = problems_with(edit);
    ASSERT_FALSE(p.empty()) << what;
    EXPECT_NE(p.front().find(what), std::string::npos) << p.front();
  };
  refused([](Json& j) { j.erase("collective=barrier"); }, "missing");
  // Each of these as a collective's whole intra-communicator branch.
  const Json binomial = {{"algorithm=MPIR_Gather_intra_binomial", Json::object()}};
  const Json dissemination = {{"algorithm=MPIR_Barrier_intra_dissemination", Json::object()}};
  const Json rd = {{"algorithm=MPIR_Allreduce_intra_recursive_doubling", Json::object()}};
  const std::vector<std::tuple<std::string, Json, std::string>> intra = {
      {"gather", {{"algorithm=MPIR_Gather_intra_ring", Json::object()}}, "unknown algorithm"},
      {"gather", {{"algorithm=MPIR_Bcast_intra_binomial", Json::object()}}, "not an algorithm of gather"},
      {"gather", {{"avg_msg_size<=8", binomial}, {"avg_msg_size=any", binomial}}, "not defined for gather"},
      {"barrier", {{"comm_size<8", dissemination}}, "needs a following key"},
      {"barrier", {{"comm_size=any", dissemination}, {"comm_size<8", dissemination}}, "never reached"},
      {"allreduce", {{"is_op_built_in=yes", rd}}, "no other case"},
      {"allreduce", {{"is_op_built_in=yes", rd}, {"is_op_built_in=any", rd}}, "unknown key"},
      {"allreduce",
       {{"avg_msg_size<=8", {{"comm_size<4", rd}, {"comm_size=any", rd}}}, {"avg_msg_size=any", rd}},
       "comm_size<N as comm_size<=N"},
  };
  for (const auto& [coll, branch, what] : intra)
    refused([&](Json& j) { j["collective=" + coll]["comm_type=intra"] = branch; }, what);
  refused([](Json& j) { j["collective=frobnicate"] = j["collective=barrier"]; }, "does not know");
  EXPECT_FALSE(check_mpich_selection("{\"collective=bcast\": ", own, known).empty());
  // A flaw the library's own tree has is the library's choice, not the file's.
  Json flawed = own;
  flawed["collective=alltoall"]["comm_type=intra"]["is_sendbuf_inplace=no"] = {
      {"comm_size<8", {{"algorithm=MPIR_Alltoall_intra_brucks", {}}}},
      {"comm_size=any", {{"algorithm=MPIR_Alltoall_intra_pairwise", {}}}}};
  EXPECT_TRUE(check_mpich_selection(flawed.dump(), flawed, known).empty());
}

TEST(MpichSelection, TheLibrarysTreeIsFoundAmongItsStrings) {
  const std::string ch4 = R"({"collective=bcast":{"composition=MPIDI_Bcast_intra_composition_alpha":{}}})";
  const std::string mpir = R"({"collective=bcast":{"algorithm=MPIR_Bcast_intra_binomial":{}}})";
  const std::string bytes = std::string("\0junk\0", 6) + ch4 + std::string("\0x", 2) + "{\"collective=inside" +
                            std::string("\0", 1) + mpir + std::string("\0", 1);
  EXPECT_EQ(find_mpir_selection(bytes), mpir);
  EXPECT_EQ(find_mpir_selection(std::string("\0", 1) + ch4 + std::string("\0", 1)), "");
}

// The C++ bindings' libmpichcxx.so, loaded before libmpich.so where a program links them,
// holds no tree: the library found is libmpich.so itself.
TEST(MpichSelection, TheTreeIsReadFromLibmpichNotItsCxxBindings) {
  const std::string path = loaded_library_path("libmpich.so");
  const std::string file = path.substr(path.rfind('/') + 1);
  if (!path.empty()) {
    EXPECT_EQ(file.rfind("libmpich.so", 0), 0u) << path;
  }
  if (!loaded_library_path("libmpichcxx").empty()) {
    EXPECT_FALSE(path.empty()) << "libmpichcxx is loaded, libmpich.so was not found";
    EXPECT_FALSE(mpich_default_selection_text().empty());
  }
}

TEST(OpenMpiRules, WrittenRulesReadBackAsOpenMpi41SelectsThem) {
  const std::map<Collective, OpenMpiAlgorithms> algorithms = {
      {Collective::allreduce, {{{"basic_linear", 1}, {"ring", 4}, {"segmented_ring", 5}}, 4, 0}},
      {Collective::broadcast, {{{"binomial", 6}, {"pipeline", 3}}, 4, 8192}}};
  const std::vector<CollectiveChoices> choices = {
      {Collective::allreduce,
       {{2, {{8, ""}, {1024, "ring"}, {4096, "ring"}, {32768, "segmented_ring"}}}, {4, {{8, "basic_linear"}}}}},
      {Collective::broadcast, {{2, {{1024, "pipeline"}, {65536, "pipeline:seg=16384"}}}}}};
  const std::string text = write_open_mpi_rules(choices, algorithms, {"from a test", "digits 0123 in a note"});
  const OpenMpiRules r = read_open_mpi_rules(text, {{2, 5}, {7, 9}});
  ASSERT_TRUE(r.problems.empty()) << r.problems.front();
  // Open MPI 4.1: the last communicator size and message rule at or below the call's.
  const auto algorithm_for = [&](long coll, long comm_size, long bytes) {
    const OpenMpiCommRules* comm = nullptr;
    for (const OpenMpiCommRules& c : r.collectives.at(coll))
      if (c.comm_size <= comm_size) comm = &c;
    const OpenMpiRule* rule = nullptr;
    for (const OpenMpiRule& m : comm->rules)
      if (m.msg_size <= bytes) rule = &m;
    return std::pair{rule->algorithm, rule->segsize};
  };
  for (long bytes : {0, 7, 8, 1023, 1024, 4096, 32767, 32768, 32769})
    EXPECT_EQ(algorithm_for(2, 2, bytes).first, bytes < 1024 ? 0 : bytes < 32768 ? 4 : bytes == 32768 ? 5 : 0) << bytes;
  EXPECT_EQ(algorithm_for(2, 1, 8).first, 0);
  EXPECT_EQ(algorithm_for(2, 3, 8).first, 0);
  EXPECT_EQ(algorithm_for(2, 4, 8).first, 1);
  EXPECT_EQ(algorithm_for(2, 5, 8).first, 0);
  EXPECT_EQ(algorithm_for(7, 2, 1024), (std::pair{3L, 8192L}));    // coll/tuned's segment, as it ran
  EXPECT_EQ(algorithm_for(7, 2, 65536), (std::pair{3L, 16384L}));  // its own, as it ran
  EXPECT_THROW(write_open_mpi_rules({{Collective::allreduce, {{2, {{8, "nonexistent"}}}}}}, algorithms, {}),
               std::invalid_argument);
}

TEST(OpenMpiRules, TheCheckRefusesWhatOpenMpiWouldDiscardOrMisread) {
  const auto problem = [](const std::string& text) {
    const OpenMpiRules r = read_open_mpi_rules(text, {{2, 5}});
    return r.problems.empty() ? std::string() : r.problems.front();
  };
  EXPECT_EQ(problem("1 2 1 2 1 0 4 0 0"), "");
  EXPECT_NE(problem("1 2 1 2 1 16 4 0 0").find("size 0"), std::string::npos);
  EXPECT_NE(problem("1 2 1 2 1 0 9 0 0").find("does not exist"), std::string::npos);
  EXPECT_NE(problem("1 2 1 2 1 0 04 0 0").find("octal"), std::string::npos);
  EXPECT_NE(problem("1 2 1 2 1 0 -4 0 0").find("minus"), std::string::npos);
  EXPECT_NE(problem("1 2 1 2 1 0 4 0").find("ends"), std::string::npos);
  EXPECT_NE(problem("1 2 1 2 1 0 4 0 0 7").find("after the last"), std::string::npos);
  EXPECT_NE(problem("1 2 2 4 1 0 4 0 0 2 1 0 4 0 0").find("ascend"), std::string::npos);
  EXPECT_NE(problem("1 30 1 2 1 0 4 0 0").find("does not exist"), std::string::npos);
  EXPECT_NE(problem("2 2 1 2 1 0 4 0 0 2 1 2 1 0 4 0 0").find("twice"), std::string::npos);
  EXPECT_EQ(problem("# 99 comment with digits\n1 # one\n2 1 2 1 0 4 0 0\n"), "");
}

TEST(TuneChoice, AForcedAlgorithmIsJudgedAgainstTheLibrarysOwnAlgorithmForced) {
  // A forced call skips the selection every default call pays (0.1 here): the default row
  // is 1.1 where its own algorithm, rd, forced is 1.0.
  const LibraryChoice library = [](Collective, int, int, int, std::size_t bytes) {
    return bytes == 64 ? std::string{} : std::string{"rd"};
  };
  const auto c = choose_algorithms(
      {
          row(8, "mpi", {1.1, 1.1}), row(8, "mpi[rd]", {1.0, 1.0}), row(8, "mpi[ring]", {1.5, 1.5}),  // rd is own
          row(16, "mpi", {1.1, 1.1}), row(16, "mpi[rd]", {0.97, 1.0}),
          row(16, "mpi[ring]", {0.95, 0.99}),  // in rd's spread
          row(32, "mpi", {1.1, 1.1}), row(32, "mpi[rd]", {1.0, 1.0}), row(32, "mpi[ring]", {0.5, 0.6}),  // ring wins
          row(64, "mpi", {1.1, 1.1}), row(64, "mpi[ring]", {0.9, 0.95}),  // own algorithm unknown: the default row
      },
      library);
  EXPECT_EQ(at(c, 8).algorithm, "");
  EXPECT_EQ(at(c, 8).library_algorithm, "rd");
  EXPECT_EQ(at(c, 8).reason, "the library's own choice here");
  EXPECT_EQ(at(c, 16).fastest, "ring");
  EXPECT_EQ(at(c, 16).algorithm, "");  // it beat the default row, by the selection only
  EXPECT_EQ(at(c, 32).algorithm, "ring");
  EXPECT_NE(at(c, 32).reason.find("rd (the library's)"), std::string::npos);
  EXPECT_EQ(at(c, 64).algorithm, "ring");
  EXPECT_NE(at(c, 64).reason.find("the default"), std::string::npos);
}

TEST(MpichLibraryChoice, FollowsTheTreeAsCselDoes) {
  // MPICH 4.0.2's own allreduce and bcast branches (maint/tuning/coll/mpir/generic.json).
  const Json tree = Json::parse(R"({
    "collective=allreduce": {"comm_type=intra": {
      "avg_msg_size<=0": {"is_commutative=yes": {"algorithm=MPIR_Allreduce_intra_smp": {}}},
      "avg_msg_size<=8": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
      "avg_msg_size=any": {"is_op_built_in=no": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
        "is_op_built_in=yes": {"count<pow2": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
                               "count=any": {"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}}}}},
    "collective=bcast": {"comm_type=intra": {
      "comm_size<8": {"comm_hierarchy=parent": {"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
                      "comm_hierarchy=any": {"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}},
      "comm_size=pow2": {"comm_hierarchy=any": {
        "avg_msg_size<=12288": {"algorithm=MPIR_Bcast_intra_binomial": {}},
        "avg_msg_size<=524288": {"algorithm=MPIR_Bcast_intra_scatter_recursive_doubling_allgather": {}},
        "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}}},
      "comm_size=any": {"comm_hierarchy=weird": {"algorithm=MPIR_Bcast_intra_binomial": {}}}}}
  })");
  EXPECT_EQ(mpich_library_choice(tree, Collective::allreduce, 2, 1, 2, 8, 4), "recursive_doubling");
  EXPECT_EQ(mpich_library_choice(tree, Collective::allreduce, 2, 1, 2, 16, 4), "reduce_scatter_allgather");
  EXPECT_EQ(mpich_library_choice(tree, Collective::allreduce, 4, 1, 4, 12, 4), "recursive_doubling");  // 3 < 4
  EXPECT_EQ(mpich_library_choice(tree, Collective::allreduce, 4, 1, 4, 16, 4), "reduce_scatter_allgather");
  EXPECT_EQ(mpich_library_choice(tree, Collective::broadcast, 2, 1, 2, 1 << 20, 4), "binomial");
  EXPECT_EQ(mpich_library_choice(tree, Collective::broadcast, 8, 2, 4, 12288, 4), "binomial");
  EXPECT_EQ(mpich_library_choice(tree, Collective::broadcast, 8, 2, 4, 12289 + 3, 4),
            "scatter_recursive_doubling_allgather");
  EXPECT_EQ(mpich_library_choice(tree, Collective::broadcast, 8, 2, 4, 1 << 20, 4), "scatter_ring_allgather");
  EXPECT_EQ(mpich_library_choice(tree, Collective::broadcast, 12, 2, 4, 64, 4), "");  // a condition it cannot answer
  EXPECT_EQ(mpich_library_choice(tree, Collective::gather, 2, 1, 2, 64, 4), "");      // not in the tree
}

TEST(MpichLibraryChoice, TheRunningLibrarysTreeNamesItsDefault) {
  const std::string text = mpich_default_selection_text();
  if (text.empty()) GTEST_SKIP() << "not MPICH, or its tree is not found in the library";
  const Json tree = Json::parse(text);
  EXPECT_FALSE(mpich_library_choice(tree, Collective::allreduce, 2, 1, 2, 1024, 4).empty());
  EXPECT_FALSE(mpich_library_choice(tree, Collective::broadcast, 2, 1, 2, 1024, 4).empty());
}
