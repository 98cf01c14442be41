#include <gtest/gtest.h>

#include <numeric>

#include "algorithms/catalog.hpp"
#include "collectives/schedule/symbolic_executor.hpp"

using namespace collbench;

TEST(RingAllreduceSchedule, VerifiesSymbolicallyForEveryRankCountFrom1To64) {
  for (int n = 1; n <= 64; ++n)
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t(n - 1), std::size_t(n), std::size_t(n + 1),
                              std::size_t{7}, std::size_t(3 * n + 2), std::size_t{1000}})
      for (bool in_place : {false, true}) {
        const auto rep = verify_builder({Collective::allreduce, n, count, 0, in_place}, build_ring_allreduce);
        ASSERT_TRUE(rep.ok()) << "n=" << n << " count=" << count << " in_place=" << in_place << ": "
                              << rep.errors.front();
      }
}

TEST(RingAllreduceSchedule, IsBandwidthOptimal) {
  // Each rank sends (and receives) 2(n-1)/n of the buffer, rounded up to whole chunks.
  for (int n : {2, 3, 5, 8, 13, 64})
    for (std::size_t count : {std::size_t{1000}, std::size_t{1024}, std::size_t{99991}}) {
      const auto rep = verify_builder({Collective::allreduce, n, count, 0, false}, build_ring_allreduce);
      ASSERT_TRUE(rep.ok());
      const std::size_t chunk = (count + n - 1) / n;
      for (int r = 0; r < n; ++r) {
        EXPECT_LE(rep.elements_sent[r], 2 * (n - 1) * chunk) << "n=" << n << " rank " << r;
        EXPECT_GE(rep.elements_sent[r], 2 * (count - chunk)) << "n=" << n << " rank " << r;
      }
      EXPECT_EQ(std::accumulate(rep.elements_sent.begin(), rep.elements_sent.end(), std::size_t{0}),
                std::accumulate(rep.elements_received.begin(), rep.elements_received.end(), std::size_t{0}));
      EXPECT_EQ(rep.max_steps, static_cast<std::size_t>(2 * (n - 1)));
    }
}

TEST(RingAllreduceSchedule, SkipsEmptyMessagesWhenCountIsBelowRankCount) {
  for (std::size_t count : {std::size_t{0}, std::size_t{3}}) {
    std::size_t messages = 0;
    const Schedule s = build_ring_allreduce({Collective::allreduce, 8, 0, count, 0, 4});
    for (const Step& st : s.steps)
      for (const auto* list : {&st.sends, &st.recvs})
        for (const Transfer& t : *list) {
          EXPECT_GT(t.region.count, 0u);
          ++messages;
        }
    // Three one-element chunks: rank 0 handles each at most once per phase and direction.
    EXPECT_LE(messages, count * 4);
  }
}
