// predict()'s ring-tail path: a call that ends in a ring allgather over every rank (the
// scatter-allgather broadcast), its steps before the ring simulated and the ring by
// recurrence, gives the full simulation's time, and declines what is not such a ring.
#include <gtest/gtest.h>

#include <string>

#include "algorithms/catalog.hpp"
#include "algorithms/phases/ring.hpp"
#include "collectives/cost_model/predict.hpp"

using namespace collbench;

namespace {

CostParams two_tier() {
  CostParams p;
  p.intra = {1.5, 1e-4};
  p.inter = {9, 4e-3};
  p.reduce = {0.2, 2e-4};
  p.copy = {0.1, 1e-4};
  p.overhead_us = 0.7;
  return p;
}

// The reference scatter_allgather, from one registry for the test program.
const AlgorithmEntry* scatter_allgather() {
  static const Registry registry = [] {
    Registry r;
    register_reference_algorithms(r);
    return r;
  }();
  return registry.find(Collective::broadcast, "scatter_allgather");
}

// Ports shared as TCP streams share them.
CostParams shared_two_tier() {
  CostParams p = two_tier();
  p.shared_ports = true;
  return p;
}

PredictRequest request(const AlgorithmEntry* a, int n, int per_host, std::size_t count, int root,
                       ExecutionOrder order = ExecutionOrder::steps) {
  return {.algorithm = a,
          .collective = Collective::broadcast,
          .ranks = n,
          .count = count,
          .element_size = 4,
          .root = root,
          .ranks_per_node = per_host,
          .order = order};
}

// A head that claims one step fewer than the scatter takes, or a builder whose schedules
// are not a ring at all: the samples must catch both.
std::size_t short_head(const ScheduleRequest& q, Schedule& head) { return scatter_allgather_head(q, head) - 1; }

// The scatter, then one more step in which rank 4 sends the whole buffer to rank 12 (on
// 4 ranks per host, host 1 to host 3), then the ring: ring messages from host 1 want its
// link while that message holds it.
std::size_t busy_head(const ScheduleRequest& q, Schedule& head) {
  const std::size_t k = scatter_allgather_head(q, head);
  ScheduleWriter w(head);
  if (q.rank == 4) w.send(k, 12, {BufferId::recv, 0, q.count});
  if (q.rank == 12) w.recv(k, 4, {BufferId::scratch, 0, q.count});
  head.scratch_count = q.count;
  return k + 1;
}

Schedule build_busy(const ScheduleRequest& q) { return with_ring_allgather_tail(q, busy_head); }

// Every setting, rank count up to 64, hosts of 1 to 8 ranks, block sizes and roots, in
// one executor order; returns how many the path took (it may decline in dataflow order)
// and how many of those settled.
struct Agreement {
  int compared = 0, settled = 0, declined = 0, closed_form = 0;
};

Agreement agree_up_to_64_ranks(ExecutionOrder order) {
  Registry registry;
  register_reference_algorithms(registry);
  const AlgorithmEntry* a = registry.find(Collective::broadcast, "scatter_allgather");
  EXPECT_NE(a, nullptr);
  const char* settings[] = {"", ", shared ports", ", written cost", ", receivers copy",
                            ", shared ports, receivers copy"};
  const CostParams plain = two_tier();
  Agreement out;
  for (int setting = 0; setting < 5; ++setting) {
    CostParams p = plain;
    if (setting == 2) {  // sends of bytes received earlier (the scatter's, the ring's) cost more
      p.intra.written = {2.5, 3e-4};
      p.inter.written = {11, 6e-3};
    }
    p.shared_ports = setting == 1 || setting == 4;
    p.intra.receiver_copies = p.inter.receiver_copies = setting >= 3;
    for (int n = 2; n <= 64; ++n)
      for (int per_host : {1, 2, 4, 8}) {
        if (per_host > n || n % per_host) continue;
        // Fewer elements than ranks (empty blocks), uneven, and even blocks.
        for (std::size_t count : {std::size_t{1}, static_cast<std::size_t>((n + 3) / 4),
                                  static_cast<std::size_t>(n + n / 2), static_cast<std::size_t>(4 * n)})
          for (int root : {0, n / 3, n - 1}) {
            const PredictRequest q = request(a, n, per_host, count, root, order);
            const std::string where = a->name + " on " + std::to_string(n) + " ranks, " + std::to_string(per_host) +
                                      " per host, count " + std::to_string(count) + ", root " + std::to_string(root) +
                                      settings[setting];
            Prediction ring;
            try {
              ring = predict(q, p, PredictMethod::ring_tail);
            } catch (const std::invalid_argument& e) {
              if (order == ExecutionOrder::steps) ADD_FAILURE() << where << ": " << e.what();
              ++out.declined;
              continue;
            }
            const Prediction full = predict(q, p, PredictMethod::full);
            EXPECT_EQ(ring.method, PredictMethod::ring_tail);
            EXPECT_NEAR(ring.time_us, full.time_us, full.time_us * 1e-12) << where << " (" << ring.symmetry << ")";
            EXPECT_EQ(ring.messages, full.messages) << where;
            out.settled += ring.symmetry.find("repeating") != std::string::npos;
            out.closed_form += ring.symmetry.find("closed form") != std::string::npos;
            ++out.compared;
          }
      }
  }
  return out;
}

}  // namespace

TEST(PredictRingTailPath, ScatterAllgatherAgreesWithTheFullSimulationUpTo64Ranks) {
  const Agreement steps = agree_up_to_64_ranks(ExecutionOrder::steps);
  EXPECT_EQ(steps.compared, 7140);
  EXPECT_GT(steps.settled, 500);  // even blocks: the rest extrapolated once every rank's step repeats
}

TEST(PredictRingTailPath, ScatterAllgatherInDataflowOrderAgreesWithTheFullSimulationUpTo64Ranks) {
  // Every case taken (the ring's first step simulated, or more where a port is shared
  // with the steps before); even blocks in closed form.
  const Agreement dataflow = agree_up_to_64_ranks(ExecutionOrder::dataflow);
  EXPECT_EQ(dataflow.compared, 7140);
  EXPECT_EQ(dataflow.declined, 0);
  EXPECT_GT(dataflow.closed_form, 2100);
}

TEST(PredictRingTailPath, DeclinesWhatIsNotARingTail) {
  Registry registry;
  register_reference_algorithms(registry);
  const CostParams p = two_tier();
  const AlgorithmEntry* a = registry.find(Collective::broadcast, "scatter_allgather");
  ASSERT_NE(a, nullptr);
  // Automatic takes it in both orders.
  EXPECT_EQ(predict(request(a, 48, 8, 192, 5), p).method, PredictMethod::ring_tail);
  EXPECT_EQ(predict(request(a, 48, 8, 192, 5, ExecutionOrder::dataflow), p).method, PredictMethod::ring_tail);
  // A head one step short, a head on an algorithm that has no ring, and an algorithm
  // without one at all.
  AlgorithmEntry shorter = *a;
  shorter.ring_allgather_head = short_head;
  EXPECT_THROW(predict(request(&shorter, 48, 8, 192, 5), p, PredictMethod::ring_tail), std::invalid_argument);
  AlgorithmEntry binomial = *registry.find(Collective::broadcast, "binomial");
  binomial.ring_allgather_head = scatter_allgather_head;
  EXPECT_THROW(predict(request(&binomial, 48, 8, 192, 5), p, PredictMethod::ring_tail), std::invalid_argument);
  // A ring message between hosts that would wait for a message of the steps before.
  AlgorithmEntry busy = *a;
  busy.build = build_busy;
  busy.ring_allgather_head = busy_head;
  const PredictRequest held = request(&busy, 16, 4, 4096, 0);
  EXPECT_THROW(predict(held, p, PredictMethod::ring_tail), std::invalid_argument);
  EXPECT_EQ(predict(held, p).method, PredictMethod::full);
  EXPECT_EQ(predict(request(&busy, 16, 16, 4096, 0), p).method, PredictMethod::ring_tail);  // one host
  // In dataflow order the ring overlaps that message: rank 4 posts it and its first ring
  // send at one instant, and ties put the earlier item first (tie_order), so every
  // computed message comes after it on its ports from the ring's first step on.
  for (int per_host : {4, 16}) {
    const PredictRequest overlapped = request(&busy, 16, per_host, 4096, 0, ExecutionOrder::dataflow);
    const Prediction ring = predict(overlapped, p, PredictMethod::ring_tail);
    EXPECT_NEAR(ring.time_us, predict(overlapped, p, PredictMethod::full).time_us, ring.time_us * 1e-12)
        << per_host << " per host";
    EXPECT_NE(ring.symmetry.find("first 1 step"), std::string::npos) << ring.symmetry;
  }
  EXPECT_THROW(
      predict(request(registry.find(Collective::broadcast, "linear"), 48, 8, 192, 5), p, PredictMethod::ring_tail),
      std::invalid_argument);
  // A model pricing rewrites: a ring receive into a block forwarded within the host costs
  // more, which the recurrence does not know; auto simulates every rank.
  CostParams rewrites = p;
  rewrites.intra.rewrite = {4, 5e-4};
  const PredictRequest q = request(a, 16, 16, 64, 5);  // one host: every ring message within it
  EXPECT_THROW(predict(q, rewrites, PredictMethod::ring_tail), std::invalid_argument);
  EXPECT_NEAR(predict(q, rewrites).time_us, predict(q, rewrites, PredictMethod::full).time_us, 1e-9);
  EXPECT_GT(predict(q, rewrites).time_us, predict(q, p).time_us);
}

TEST(PredictRingTailPath, DeclinesInDataflowOrderWhereALinkSharesAPairsMessages) {
  // There a ring send may overlap the one before it to the same peer, and ranks post as
  // the executor waits; the recurrence takes a pair's messages in turn. Step by step a
  // ring step's send waits for the step before, so that path still holds.
  const AlgorithmEntry* a = scatter_allgather();
  ASSERT_NE(a, nullptr);
  CostParams p = shared_two_tier();
  p.intra.pair_shares_from_bytes = p.inter.pair_shares_from_bytes = 0;
  for (int n : {2, 5, 16}) {
    const PredictRequest flow = request(a, n, 1, 64 * n, 0, ExecutionOrder::dataflow);
    EXPECT_THROW(predict(flow, p, PredictMethod::ring_tail), std::invalid_argument) << n;
    EXPECT_EQ(predict(flow, p).time_us, predict(flow, p, PredictMethod::full).time_us) << n;
    const PredictRequest steps = request(a, n, 1, 64 * n, 0);
    EXPECT_NEAR(predict(steps, p, PredictMethod::ring_tail).time_us, predict(steps, p, PredictMethod::full).time_us,
                1e-9)
        << n;
  }
}

TEST(PredictRingTailPath, DeclinesWhereMessagesTurnBothWaysAsTheyOverlap) {
  // With shared ports and an exchange cost a message slows while its ends also move
  // messages the other way, which the recurrence does not follow (it prices each as its
  // step says): declined in either order, the full simulation answering.
  const AlgorithmEntry* a = scatter_allgather();
  ASSERT_NE(a, nullptr);
  CostParams p = shared_two_tier();
  p.intra.exchange = {2.5, 1.7e-4};
  p.inter.exchange = {12, 6.5e-3};
  for (int n : {2, 5, 16})
    for (ExecutionOrder order : {ExecutionOrder::steps, ExecutionOrder::dataflow}) {
      const PredictRequest q = request(a, n, 1, 64 * n, 0, order);
      EXPECT_THROW(predict(q, p, PredictMethod::ring_tail), std::invalid_argument) << n;
      EXPECT_EQ(predict(q, p).time_us, predict(q, p, PredictMethod::full).time_us) << n;
    }
}
