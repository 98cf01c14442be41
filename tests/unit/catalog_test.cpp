// The one description per collective, the name tables, the catalog of reference
// algorithms and the registry built from it.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "algorithms/catalog.hpp"
#include "collectives/collective.hpp"
#include "collectives/schedule/schedule.hpp"
#include "harness/common/default_registry.hpp"

using namespace collbench;

TEST(CollectiveTraits, NamesParseBackAndListEveryCollective) {
  for (Collective c : kAllCollectives) EXPECT_EQ(parse_collective(collective_name(c)), c);
  EXPECT_EQ(kCollectiveNames.valid(),
            "allreduce, broadcast, reduce, gather, allgather, reduce_scatter, alltoall, alltoallv");
  EXPECT_FALSE(parse_collective("alltoallw"));
}

// Every result element names an input element that exists, on a rank that exists.
TEST(CollectiveTraits, ResultSourcesStayInsideTheInputs) {
  for (Collective c : kAllCollectives)
    for (int n : {1, 3, 4})
      for (int rank = 0; rank < n; ++rank) {
        const LayoutRequest q{5, n, rank, n - 1, false};
        const BufferLayout l = traits(c).layout(q);
        const std::size_t inputs = buffer_layout(c, 5, n, 0, n - 1, false).send_count;
        for (std::size_t i = 0; i < l.result_count; ++i) {
          const ResultSource s = traits(c).result_of(q, i);
          EXPECT_LT(s.index, inputs) << collective_name(c);
          EXPECT_TRUE(s.all_ranks == uses_reduce_op(c)) << collective_name(c);
          EXPECT_TRUE(s.from >= 0 && s.from < n) << collective_name(c);
        }
      }
}

TEST(NameTable, UnknownNamesListTheValidOnes) {
  EXPECT_EQ(kDTypeNames.parse_or_throw("bf16", "dtype"), DType::bf16);
  try {
    kReduceOpNames.parse_or_throw("avg", "op");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown op 'avg'; valid: sum, prod, min, max");
  }
}

TEST(Catalog, EveryRowIsRegisteredOnceAfterTheBaseline) {
  const Registry& r = default_registry();
  std::set<std::pair<Collective, std::string>> seen;
  for (const ReferenceAlgorithm& a : kReferenceAlgorithms) {
    EXPECT_TRUE(seen.insert({a.collective, std::string(a.name)}).second) << a.name << " listed twice";
    const AlgorithmEntry* e = r.find(a.collective, std::string(a.name));
    ASSERT_NE(e, nullptr) << a.name;
    EXPECT_EQ(e->build, a.build);
    EXPECT_EQ(e->default_segment_bytes, a.default_segment_bytes);
  }
  for (Collective c : kAllCollectives) {
    const auto entries = r.for_collective(c);
    ASSERT_FALSE(entries.empty());
    EXPECT_TRUE(entries[0]->is_baseline()) << "mpi comes first";
  }
}

TEST(ScheduleStats, CountRingAllreduceTraffic) {
  const AlgorithmParams params;
  for (int n : {2, 5}) {
    const Schedule s = build_ring_allreduce({Collective::allreduce, n, 1, 10u * n, 0, 4, &params});
    const ScheduleStats st = schedule_stats(s);
    EXPECT_EQ(st.messages_sent, 2u * (n - 1));
    EXPECT_EQ(st.messages_received, 2u * (n - 1));
    EXPECT_EQ(st.elements_sent, 2u * 10 * (n - 1));
    EXPECT_EQ(st.elements_reduced, 10u * (n - 1));
    EXPECT_EQ(st.steps, 2u * (n - 1));
    EXPECT_NE(describe(s, 4).find("(40 B)"), std::string::npos);
  }
}
