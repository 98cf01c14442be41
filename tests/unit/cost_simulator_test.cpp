// The cost simulator against the published Thakur-Rabenseifner-Gropp costs (flat
// topology, alpha-beta-gamma, no copies), the symmetric fast path against the full
// simulation, and link sharing between the ranks of one host.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "algorithms/catalog.hpp"
#include "collectives/cost_simulator.hpp"

using namespace collbench;

namespace {

constexpr double kAlpha = 5, kBeta = 1e-3, kGamma = 2e-4;  // us, us per byte (1 GB/s), us per byte

CostParams flat() {
  CostParams p;
  p.intra = p.inter = {kAlpha, kBeta};
  p.reduce_us_per_byte = kGamma;
  return p;
}

std::vector<Schedule> all_ranks(ScheduleBuilder build, Collective c, int n, std::size_t count, int root = 0,
                                const AlgorithmParams* params = nullptr) {
  std::vector<Schedule> out;
  for (int r = 0; r < n; ++r) {
    ScheduleRequest q{c, n, r, count, root, 4, params};
    out.push_back(build(q));
  }
  return out;
}

double predicted(ScheduleBuilder build, Collective c, int n, std::size_t count, const CostParams& p = flat()) {
  return simulate_schedules(all_ranks(build, c, n, count), p, {}).time_us;
}

int ceil_log2(int n) { return static_cast<int>(std::ceil(std::log2(n))); }

}  // namespace

TEST(CostClosedForms, RingAllreduce) {
  for (int n : {2, 3, 4, 5, 7, 8, 16})
    for (std::size_t per : {1, 256, 4096}) {
      const std::size_t count = per * static_cast<std::size_t>(n);
      const double m = static_cast<double>(count) * 4, f = static_cast<double>(n - 1) / n;
      const double want = 2 * (n - 1) * kAlpha + 2 * f * m * kBeta + f * m * kGamma;
      EXPECT_NEAR(predicted(build_ring_allreduce, Collective::allreduce, n, count), want, want * 1e-12) << n << " " << count;
    }
}

TEST(CostClosedForms, RecursiveDoublingAllreduce) {
  for (int n : {2, 4, 8, 16, 64})
    for (std::size_t count : {1, 1000, 65536}) {
      const double m = static_cast<double>(count) * 4;
      const double want = std::log2(n) * (kAlpha + m * kBeta + m * kGamma);
      EXPECT_NEAR(predicted(build_recursive_doubling_allreduce, Collective::allreduce, n, count), want, want * 1e-12) << n;
    }
}

TEST(CostClosedForms, RabenseifnerAllreduce) {
  for (int n : {2, 4, 8, 16, 64})
    for (std::size_t per : {1, 1024}) {
      const std::size_t count = per * static_cast<std::size_t>(n);
      const double m = static_cast<double>(count) * 4, f = static_cast<double>(n - 1) / n;
      const double want = 2 * std::log2(n) * kAlpha + 2 * f * m * kBeta + f * m * kGamma;
      EXPECT_NEAR(predicted(build_rabenseifner_allreduce, Collective::allreduce, n, count), want, want * 1e-12) << n;
    }
}

TEST(CostClosedForms, BinomialBroadcastAndReduce) {
  for (int n : {2, 3, 5, 8, 13, 32})
    for (std::size_t count : {1, 4096}) {
      const double m = static_cast<double>(count) * 4;
      const double bcast = ceil_log2(n) * (kAlpha + m * kBeta);
      EXPECT_NEAR(predicted(build_binomial_broadcast, Collective::broadcast, n, count), bcast, bcast * 1e-12) << n;
      const double reduce = ceil_log2(n) * (kAlpha + m * kBeta + m * kGamma);
      EXPECT_NEAR(predicted(build_binomial_reduce, Collective::reduce, n, count), reduce, reduce * 1e-12) << n;
    }
}

TEST(CostClosedForms, ScatterAllgatherBroadcast) {
  for (int n : {2, 4, 8, 16})
    for (std::size_t per : {1, 2048}) {
      const std::size_t count = per * static_cast<std::size_t>(n);
      const double m = static_cast<double>(count) * 4, f = static_cast<double>(n - 1) / n;
      const double want = (std::log2(n) + n - 1) * kAlpha + 2 * f * m * kBeta;
      EXPECT_NEAR(predicted(build_scatter_allgather_broadcast, Collective::broadcast, n, count), want, want * 1e-12) << n;
    }
}

TEST(CostFastPath, AgreesExactlyWithTheFullSimulationForSymmetricSchedules) {
  CostParams p = flat();
  p.copy_us_per_byte = 1e-4;
  p.overhead_us = 0.7;
  struct Case {
    ScheduleBuilder build;
    std::vector<int> sizes;
  };
  for (const Case& c : {Case{build_ring_allreduce, {2, 3, 5, 8}}, Case{build_ring_pipelined_allreduce, {2, 3, 4}},
                        Case{build_recursive_doubling_allreduce, {2, 4, 8}}, Case{build_rabenseifner_allreduce, {2, 4, 8}}})
    for (int n : c.sizes)
      // Blocks of equal size: with uneven ones ranks differ by an element, and so do their times.
      for (std::size_t count : {static_cast<std::size_t>(n), static_cast<std::size_t>(n) << 16}) {
        const auto schedules = all_ranks(c.build, Collective::allreduce, n, count);
        const CostResult full = simulate_schedules(schedules, p, {});
        for (int r = 0; r < n; ++r) {
          EXPECT_DOUBLE_EQ(full.finish_us[static_cast<std::size_t>(r)], full.time_us) << n << " rank " << r;
          EXPECT_DOUBLE_EQ(simulate_symmetric(schedules[static_cast<std::size_t>(r)], r, p, {}).time_us, full.time_us)
              << n << " rank " << r << " count " << count;
        }
      }
}

TEST(CostLinkSharing, RanksOfOneHostShareItsLink) {
  // 4 ranks, 2 per host; a 2-rank exchange between hosts costs the same as alone, two
  // at once (0<->2 and 1<->3) take twice the wire time through the hosts' links.
  CostParams p;
  p.intra = {1, 1e-4};
  p.inter = {10, 1e-2};
  const std::size_t bytes = 1000;
  auto exchange = [&](std::vector<std::pair<int, int>> pairs) {
    std::vector<Schedule> s(4);
    for (auto [a, b] : pairs) {
      s[static_cast<std::size_t>(a)].steps = {Step{{{b, {BufferId::send, 0, bytes / 4}}}, {{b, {BufferId::recv, 0, bytes / 4}}}, {}}};
      s[static_cast<std::size_t>(b)].steps = {Step{{{a, {BufferId::send, 0, bytes / 4}}}, {{a, {BufferId::recv, 0, bytes / 4}}}, {}}};
    }
    return simulate_schedules(s, p, {4, {0, 0, 1, 1}}).time_us;
  };
  EXPECT_DOUBLE_EQ(exchange({{0, 2}}), 10 + bytes * 1e-2);
  EXPECT_DOUBLE_EQ(exchange({{0, 2}, {1, 3}}), 10 + 2 * bytes * 1e-2);
  EXPECT_DOUBLE_EQ(exchange({{0, 1}, {2, 3}}), 1 + bytes * 1e-4);  // within hosts: no sharing
}

TEST(CostSimulation, RefusesSchedulesThatCannotComplete) {
  std::vector<Schedule> s(2);
  s[0].steps = {Step{{{1, {BufferId::send, 0, 4}}}, {}, {}}};
  EXPECT_THROW(simulate_schedules(s, flat(), {}), std::runtime_error);
  s[1].steps = {Step{{}, {{0, {BufferId::recv, 0, 8}}}, {}}};
  EXPECT_THROW(simulate_schedules(s, flat(), {}), std::runtime_error);
  EXPECT_THROW(simulate_schedules(s, flat(), {4, {0}}), std::invalid_argument);
}
