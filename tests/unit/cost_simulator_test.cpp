// The cost simulator against the published Thakur-Rabenseifner-Gropp costs (flat
// topology, alpha-beta-gamma, no copies), the symmetric fast path against the full
// simulation, and link sharing between the ranks of one host.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "algorithms/catalog.hpp"
#include "collectives/cost_model/cost_simulator.hpp"

using namespace collbench;

namespace {

constexpr double kAlpha = 5, kBeta = 1e-3, kGamma = 2e-4;  // us, us per byte (1 GB/s), us per byte

CostParams flat() {
  CostParams p;
  p.intra = p.inter = {kAlpha, kBeta};
  p.reduce = {0, kGamma};
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

// Rank 0 sends two blocks of 250 elements (1000 bytes) in two steps; rank 1 reduces the
// first in step 0.
std::vector<Schedule> two_blocks_first_reduced() {
  const std::size_t c = 250;
  std::vector<Schedule> s(2);
  s[0].steps = {Step{{{1, {BufferId::send, 0, c}}}, {}, {}}, Step{{{1, {BufferId::send, c, c}}}, {}, {}}};
  s[1].steps = {
      Step{{},
           {{0, {BufferId::recv, 0, c}}},
           {LocalOp{LocalOp::Kind::reduce, {BufferId::recv, 0, c}, {BufferId::recv, 0, c}, {BufferId::send, 0, c}}}},
      Step{{}, {{0, {BufferId::recv, c, c}}}, {}}};
  return s;
}

}  // namespace

TEST(CostClosedForms, RingAllreduce) {
  for (int n : {2, 3, 4, 5, 7, 8, 16})
    for (std::size_t per : {1, 256, 4096}) {
      const std::size_t count = per * static_cast<std::size_t>(n);
      const double m = static_cast<double>(count) * 4, f = static_cast<double>(n - 1) / n;
      const double want = 2 * (n - 1) * kAlpha + 2 * f * m * kBeta + f * m * kGamma;
      EXPECT_NEAR(predicted(build_ring_allreduce, Collective::allreduce, n, count), want, want * 1e-12)
          << n << " " << count;
    }
}

TEST(CostClosedForms, RecursiveDoublingAllreduce) {
  for (int n : {2, 4, 8, 16, 64})
    for (std::size_t count : {1, 1000, 65536}) {
      const double m = static_cast<double>(count) * 4;
      const double want = std::log2(n) * (kAlpha + m * kBeta + m * kGamma);
      EXPECT_NEAR(predicted(build_recursive_doubling_allreduce, Collective::allreduce, n, count), want, want * 1e-12)
          << n;
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

// Thakur, Rabenseifner and Gropp (2005): pairwise exchange (n-1)(alpha + m beta) for m
// bytes per peer; Bruck ceil(log2 n) alpha + (m n/2) ceil(log2 n) beta at a power of
// two, and in general one message per round of the blocks whose index has that bit
// (copies free here, as in the published forms).
TEST(CostClosedForms, PairwiseAlltoall) {
  for (int n : {2, 3, 5, 8, 16, 33})
    for (std::size_t count : {1, 1000}) {
      const double m = static_cast<double>(count) * 4, want = (n - 1) * (kAlpha + m * kBeta);
      EXPECT_NEAR(predicted(build_pairwise_all_to_all, Collective::alltoall, n, count), want, want * 1e-12) << n;
    }
}

TEST(CostClosedForms, BruckAlltoall) {
  for (int n : {2, 3, 4, 6, 8, 16, 32, 37})
    for (std::size_t count : {1, 1000}) {
      const double m = static_cast<double>(count) * 4;
      double want = 0;
      for (int bit = 1; bit < n; bit <<= 1) {
        int blocks = 0;
        for (int i = 1; i < n; ++i) blocks += (i & bit) != 0;
        want += kAlpha + blocks * m * kBeta;
      }
      if ((n & (n - 1)) == 0) {
        EXPECT_NEAR(want, ceil_log2(n) * (kAlpha + m * n / 2 * kBeta), want * 1e-12);
      }
      EXPECT_NEAR(predicted(build_bruck_alltoall, Collective::alltoall, n, count), want, want * 1e-12) << n;
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
      EXPECT_NEAR(predicted(build_scatter_allgather_broadcast, Collective::broadcast, n, count), want, want * 1e-12)
          << n;
    }
}

// Block 0 of ranks [0, block) simulated alone, the other blocks mirroring it.
CostResult quotient(const std::vector<Schedule>& all, const Symmetry& sym, const CostParams& p, const CostLayout& l) {
  return simulate_schedules(std::vector<Schedule>(all.begin(), all.begin() + sym.block), static_cast<int>(all.size()),
                            sym, p, l);
}

CostLayout hosts_of(int n, int per_host) {
  CostLayout l;
  for (int r = 0; r < n && per_host < n; ++r) l.node_of_rank.push_back(r / per_host);
  return l;
}

TEST(CostFastPath, AgreesExactlyWithTheFullSimulationForSymmetricSchedules) {
  CostParams p = flat();
  p.inter = {9, 4e-3};  // slower between hosts, so sharing a host link shows
  p.copy = {0, 1e-4};
  p.overhead_us = 0.7;
  using K = Symmetry::Kind;
  struct Case {
    ScheduleBuilder build;
    K kind;
    std::vector<int> sizes;
  };
  int compared = 0;
  for (bool shared : {false, true})
    for (const Case& c : {Case{build_ring_allreduce, K::shift, {2, 3, 5, 8, 12}},
                          Case{build_ring_pipelined_allreduce, K::shift, {2, 3, 4, 8}},
                          Case{build_recursive_doubling_allreduce, K::xor_blocks, {2, 4, 8, 16}},
                          Case{build_rabenseifner_allreduce, K::xor_blocks, {2, 4, 8, 16}}})
      for (int n : c.sizes)
        for (int per_host : {1, 2, 4, n})
          // Blocks of equal size: with uneven ones ranks differ by an element, and so do their times.
          for (std::size_t count : {static_cast<std::size_t>(n), static_cast<std::size_t>(n) << 16}) {
            if (n % per_host) continue;
            const auto schedules = all_ranks(c.build, Collective::allreduce, n, count);
            for (ExecutionOrder order : {ExecutionOrder::steps, ExecutionOrder::dataflow}) {
              p.shared_ports = shared;
              CostLayout layout = hosts_of(n, per_host);
              layout.order = order;
              const CostResult full = simulate_schedules(schedules, p, layout);
              const Symmetry sym{c.kind, per_host < n ? per_host : 1};
              const CostResult fast = quotient(schedules, sym, p, layout);
              EXPECT_DOUBLE_EQ(fast.time_us, full.time_us)
                  << n << " ranks, " << per_host << " per host, count " << count;
              for (int r = 0; r < n; ++r)
                EXPECT_DOUBLE_EQ(full.finish_us[static_cast<std::size_t>(r)],
                                 fast.finish_us[static_cast<std::size_t>(r % sym.block)])
                    << n << " rank " << r;
              ++compared;
            }
          }
  EXPECT_GT(compared, 320);
}

TEST(CostFastPath, SeesHostLinkSharingAsTheFullSimulationDoes) {
  // Recursive doubling on 8 ranks, 2 per host: the first exchange stays on the host, the
  // other two cross it with both ranks of a host sending at once through its link.
  CostParams p = flat();
  p.inter = {9, 4e-3};
  const int n = 8;
  const std::size_t count = 8 << 14;
  const auto rd = all_ranks(build_recursive_doubling_allreduce, Collective::allreduce, n, count);
  const CostLayout two = hosts_of(n, 2);
  const double shared = quotient(rd, {Symmetry::Kind::xor_blocks, 2}, p, two).time_us;
  const double m = static_cast<double>(count) * 4;
  const double unshared = (kAlpha + m * kBeta + m * kGamma) + 2 * (9 + m * 4e-3 + m * kGamma);
  EXPECT_DOUBLE_EQ(shared, simulate_schedules(rd, p, two).time_us);
  EXPECT_GT(shared, unshared + 0.5 * m * 4e-3);  // the later rank of each host waits for the link
  EXPECT_LE(shared, unshared + 2 * m * 4e-3);
}

TEST(CostFastPath, RefusesBlocksThatDoNotFit) {
  const auto ring = all_ranks(build_ring_allreduce, Collective::allreduce, 6, 6);
  EXPECT_THROW(quotient(ring, {Symmetry::Kind::shift, 4}, flat(), {}), std::invalid_argument);  // 4 does not divide 6
  EXPECT_THROW(quotient(ring, {Symmetry::Kind::xor_blocks, 2}, flat(), {}),
               std::invalid_argument);  // 6 not a power of two
  EXPECT_THROW(quotient(ring, {Symmetry::Kind::shift, 2}, flat(), hosts_of(6, 3)), std::invalid_argument);  // straddles
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
      s[static_cast<std::size_t>(a)].steps = {
          Step{{{b, {BufferId::send, 0, bytes / 4}}}, {{b, {BufferId::recv, 0, bytes / 4}}}, {}}};
      s[static_cast<std::size_t>(b)].steps = {
          Step{{{a, {BufferId::send, 0, bytes / 4}}}, {{a, {BufferId::recv, 0, bytes / 4}}}, {}}};
    }
    return simulate_schedules(s, p, {4, {0, 0, 1, 1}}).time_us;
  };
  EXPECT_DOUBLE_EQ(exchange({{0, 2}}), 10 + bytes * 1e-2);
  EXPECT_DOUBLE_EQ(exchange({{0, 2}, {1, 3}}), 10 + 2 * bytes * 1e-2);
  EXPECT_DOUBLE_EQ(exchange({{0, 1}, {2, 3}}), 1 + bytes * 1e-4);  // within hosts: no sharing
}

TEST(CostLinkSharing, MessagesBothWaysTakeTheExchangeCost) {
  // Two ranks exchanging cost what the link's exchange says; one way, its one-way cost.
  CostParams p;
  p.intra = {2, 1e-3};
  std::vector<Schedule> s(2);
  for (int r : {0, 1})
    s[static_cast<std::size_t>(r)].steps = {
        Step{{{1 - r, {BufferId::send, 0, 250}}}, {{1 - r, {BufferId::recv, 0, 250}}}, {}}};
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, {}).time_us, 2 + 1000 * 1e-3);  // no exchange cost: as one way
  p.intra.exchange = {3, 2e-3};
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, {}).time_us, 3 + 1000 * 2e-3);
  s[1].steps[0].sends.clear();
  s[0].steps[0].recvs.clear();
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, {}).time_us, 2 + 1000 * 1e-3);
}

TEST(CostLinkSharing, SendsOfBytesWrittenInTheCallTakeTheWrittenCost) {
  // Ring allreduce on 2 ranks: the reduce-scatter step sends untouched input, the
  // allgather step sends the half this rank has just reduced. Recursive doubling sends
  // only its input. Step order, so the two steps add up.
  CostParams p;
  p.intra = {0, 1e-3};
  const std::size_t count = 1000;  // f32: 2000-byte halves, 4000-byte whole
  auto time = [&](ScheduleBuilder b) {
    CostLayout l;
    return simulate_schedules(all_ranks(b, Collective::allreduce, 2, count), p, l).time_us;
  };
  const double ring = time(build_ring_allreduce), doubling = time(build_recursive_doubling_allreduce);
  EXPECT_DOUBLE_EQ(ring, 2 * 2000 * 1e-3);  // no written cost: every message as an untouched one
  EXPECT_DOUBLE_EQ(doubling, 4000 * 1e-3);
  p.intra.written = {0, 5e-3};
  EXPECT_DOUBLE_EQ(time(build_ring_allreduce), 2000 * 1e-3 + 2000 * 5e-3);
  EXPECT_DOUBLE_EQ(time(build_recursive_doubling_allreduce), doubling);
}

TEST(CostLinkSharing, ReductionsStoringOverBytesSentToAPeerOnTheHostCostTheRewrite) {
  // Ring allreduce on 2 ranks reduces into the half it then sends (its peer's core reads
  // it, and the next call's reduction stores over it); recursive doubling reduces into a
  // buffer it never sends. Step order: exchange, reduce, exchange.
  CostParams p;
  p.intra = {0, 1e-3};
  p.reduce = {0, 1e-4};
  const std::size_t count = 1000;  // f32: 2000-byte halves, 4000-byte whole
  auto time = [&](ScheduleBuilder b, std::vector<int> nodes = {}) {
    CostLayout l;
    l.node_of_rank = std::move(nodes);
    return simulate_schedules(all_ranks(b, Collective::allreduce, 2, count), p, l).time_us;
  };
  EXPECT_DOUBLE_EQ(time(build_ring_allreduce), 2 * 2000 * 1e-3 + 2000 * 1e-4);
  EXPECT_DOUBLE_EQ(time(build_recursive_doubling_allreduce), 4000 * 1e-3 + 4000 * 1e-4);
  p.intra.rewrite = {3, 2e-3};
  EXPECT_DOUBLE_EQ(time(build_ring_allreduce), 2 * 2000 * 1e-3 + 3 + 2000 * 2e-3);
  EXPECT_DOUBLE_EQ(time(build_recursive_doubling_allreduce), 4000 * 1e-3 + 4000 * 1e-4);
  // Its peer on another host never reads this rank's memory: a plain reduction.
  p.inter = p.intra;
  EXPECT_DOUBLE_EQ(time(build_ring_allreduce, {0, 1}), 2 * 2000 * 1e-3 + 2000 * 1e-4);
}

TEST(CostLinkSharing, AReceiveIntoBytesSentWithinTheHostHoldsItsPortsForTheRewritesExcess) {
  // A broadcast by scatter and allgather on 2 ranks: the root receives back the half it
  // sent (its peer read it from the root's memory), rank 1 receives the half it forwards.
  // Each receive holds its ports for the rewrite's excess over a reduction of its bytes.
  CostParams p;
  p.intra = {0, 1e-3};
  p.reduce = {0, 1e-4};
  const Region half{BufferId::recv, 500, 500};  // 2000 bytes
  std::vector<Schedule> s(2);
  s[0].steps = {Step{{{1, half}}, {}, {}}, Step{{}, {{1, half}}, {}}};
  s[1].steps = {Step{{}, {{0, half}}, {}}, Step{{{0, half}}, {}, {}}};
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, {}).time_us, 2 * 2000 * 1e-3);
  p.intra.rewrite = {1, 3e-4};
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, {}).time_us, 2 * (2000 * 1e-3 + 1 + 2000 * 2e-4));
  // Between hosts the peer never reads this rank's memory.
  p.inter = p.intra;
  CostLayout apart;
  apart.node_of_rank = {0, 1};
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, apart).time_us, 2 * 2000 * 1e-3);
}

TEST(CostLinkSharing, WrittenSpansFollowEveryReceiveAndOperation) {
  // Rank 0 receives [0, 100) and reduces into [200, 300) of recv; it then sends pieces
  // that touch them or not: only the touching ones take the written cost.
  CostParams p;
  p.intra = {0, 1e-3};
  p.intra.written = {0, 1e-2};
  auto cost_of_sends = [&](std::vector<Region> sends) {
    std::vector<Schedule> s(2);
    s[0].steps.push_back(Step{{},
                              {{1, {BufferId::recv, 0, 100}}},
                              {LocalOp{LocalOp::Kind::reduce,
                                       {BufferId::recv, 200, 100},
                                       {BufferId::send, 200, 100},
                                       {BufferId::send, 300, 100}}}});
    s[1].steps.push_back(Step{{{0, {BufferId::send, 0, 100}}}, {}, {}});
    Step out, in;
    for (const Region& r : sends) {
      out.sends.push_back({1, r});
      in.recvs.push_back({0, {BufferId::scratch, 0, r.count}});
    }
    s[0].steps.push_back(out);
    s[1].steps.push_back(in);
    s[1].scratch_count = 400;
    return simulate_schedules(s, p, {}).time_us - 400 * 1e-3;  // less the first receive
  };
  EXPECT_DOUBLE_EQ(cost_of_sends({{BufferId::recv, 100, 100}}), 400 * 1e-3);  // between the two: untouched
  EXPECT_DOUBLE_EQ(cost_of_sends({{BufferId::recv, 99, 2}}), 8 * 1e-2);       // its last received element
  EXPECT_DOUBLE_EQ(cost_of_sends({{BufferId::recv, 299, 1}}), 4 * 1e-2);      // the result's last element
  EXPECT_DOUBLE_EQ(cost_of_sends({{BufferId::send, 0, 100}}), 400 * 1e-3);    // the send buffer: never written
  EXPECT_DOUBLE_EQ(cost_of_sends({{BufferId::recv, 300, 50}}), 200 * 1e-3);   // just past the result
}

TEST(CostLinkSharing, BytesWrittenLaterInTheCallAreWrittenForTheNextCall) {
  // Rank 0 sends half its buffer, then receives that half back (a broadcast by scatter
  // and allgather on 2 ranks): in back-to-back calls its first send is of bytes its
  // previous call wrote, priced as written as rank 1's forwarding of what it received.
  CostParams p;
  p.intra = {0, 1e-3};
  p.intra.written = {0, 1e-2};
  const Region half{BufferId::recv, 500, 500};  // 2000 bytes
  std::vector<Schedule> s(2);
  s[0].steps = {Step{{{1, half}}, {}, {}}, Step{{}, {{1, half}}, {}}};
  s[1].steps = {Step{{}, {{0, half}}, {}}, Step{{{0, half}}, {}, {}}};
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, {}).time_us, 2 * 2000 * 1e-2);
  // Sent from a part it never writes: untouched.
  s[0].steps[0].sends[0].region.offset = 0;
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, {}).time_us, 2000 * 1e-3 + 2000 * 1e-2);
}

TEST(CostLinkSharing, SharedPortsSplitTheBandwidthAmongMessagesInFlight) {
  // Rank 0 sends 1000 and 3000 bytes to ranks 1 and 2 at once. Through one port one
  // after another, rank 1 has its message after 1000 bytes' time; shared, both move at
  // half speed until the smaller is done (2000), the larger then at full speed (4000).
  CostParams p;
  p.intra = {5, 1e-3};
  std::vector<Schedule> s(3);
  s[0].steps = {Step{{{1, {BufferId::send, 0, 250}}, {2, {BufferId::send, 0, 750}}}, {}, {}}};
  s[1].steps = {Step{{}, {{0, {BufferId::recv, 0, 250}}}, {}}};
  s[2].steps = {Step{{}, {{0, {BufferId::recv, 0, 750}}}, {}}};
  CostResult fifo = simulate_schedules(s, p, {});
  EXPECT_DOUBLE_EQ(fifo.finish_us[1], 5 + 1000 * 1e-3);
  EXPECT_DOUBLE_EQ(fifo.finish_us[2], 5 + 4000 * 1e-3);
  p.shared_ports = true;
  CostResult shared = simulate_schedules(s, p, {});
  EXPECT_DOUBLE_EQ(shared.finish_us[1], 5 + 2000 * 1e-3);
  EXPECT_DOUBLE_EQ(shared.finish_us[2], 5 + 4000 * 1e-3);
  // Two messages of one pair still go one after another, shared ports or not.
  s[0].steps[0].sends[1].peer = 1;
  s[1].steps[0].recvs.push_back({0, {BufferId::recv, 250, 750}});
  s[2].steps.clear();
  shared = simulate_schedules(s, p, {});
  EXPECT_DOUBLE_EQ(shared.time_us, 5 + 4000 * 1e-3);
  EXPECT_DOUBLE_EQ(shared.finish_us[1], simulate_schedules(s, p, {}).finish_us[1]);
}

TEST(CostLinkSharing, AStreamsGapHoldsThePortsAndTheRestOfAlphaOverlaps) {
  // Rank 0 sends 4 messages of 1000 bytes to rank 1 at once. Without a stream cost they
  // cross the port one after another and overlap their alpha (5 us): 5 + 4 us. Where a
  // stream of them takes 3 us each (2 beyond the bytes), those 2 hold the port: the last
  // arrives after 4 x 3 us and the 3 us of alpha left. One message alone costs the same.
  CostParams p;
  p.intra = {5, 1e-3};
  std::vector<Schedule> s(2);
  for (std::size_t i = 0; i < 4; ++i) {
    s[0].steps.push_back(Step{{{1, {BufferId::send, 250 * i, 250}}}, {}, {}});
    s[1].steps.push_back(Step{{}, {{0, {BufferId::recv, 250 * i, 250}}}, {}});
  }
  CostLayout l;
  l.order = ExecutionOrder::dataflow;
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, l).time_us, 5 + 4 * 1.0);
  p.intra.stream = {3, 0};
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, l).time_us, 3 + 4 * 3.0);
  for (bool shared : {false, true}) {
    p.shared_ports = shared;
    EXPECT_DOUBLE_EQ(message_cost(p, l, true, 1000, false, false).alpha_us, 3);
    EXPECT_DOUBLE_EQ(message_cost(p, l, true, 1000, false, false).port_us, 2 + 1.0);
  }
  p.shared_ports = false;
  // A stream no slower than the bytes leaves alpha as it was; one slower than a message
  // alone is held to the whole alpha.
  p.intra.stream = {0.5, 0};
  EXPECT_DOUBLE_EQ(message_cost(p, l, true, 1000, false, false).alpha_us, 5);
  p.intra.stream = {9, 0};
  EXPECT_DOUBLE_EQ(message_cost(p, l, true, 1000, false, false).alpha_us, 0);
  EXPECT_DOUBLE_EQ(message_cost(p, l, true, 1000, false, false).port_us, 6);
  s[0].steps.resize(1), s[1].steps.resize(1);
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, l).time_us, 5 + 1.0);
}

TEST(CostLinkSharing, BinomialBroadcastsRootSendsShareItsPortInDataflowOrder) {
  // 4 hosts x 1: step by step the root sends to 2, then to 1 while 2 forwards to 3 (two
  // message times); in dataflow order it sends to 2 and 1 at once, and with a shared
  // port both arrive after two message times, 2's forward a third later.
  CostParams p;
  p.inter = {5, 1e-3};
  p.shared_ports = true;
  const std::size_t count = 1000;
  const double w = count * 4 * 1e-3;
  const auto bcast = all_ranks(build_binomial_broadcast, Collective::broadcast, 4, count);
  CostLayout l = hosts_of(4, 1);
  EXPECT_DOUBLE_EQ(simulate_schedules(bcast, p, l).time_us, 2 * (5 + w));
  l.order = ExecutionOrder::dataflow;
  EXPECT_DOUBLE_EQ(simulate_schedules(bcast, p, l).time_us, 3 * w + 2 * 5);
  p.shared_ports = false;
  EXPECT_DOUBLE_EQ(simulate_schedules(bcast, p, l).time_us, 2 * (5 + w));
}

TEST(CostSimulation, EachSizeTakesItsRangesCosts) {
  CostParams p;
  p.intra.pieces = {{0, 1, 1e-3}, {8192, 20, 1e-4}};  // eager, then rendezvous
  p.reduce.pieces = {{0, 0.5, 0}, {1 << 20, 0, 1e-5}};
  std::vector<Schedule> s(2);
  auto one_message = [&](std::size_t bytes) {
    s[0].steps = {Step{{{1, {BufferId::send, 0, bytes / 4}}}, {}, {}}};
    s[1].steps = {Step{{},
                       {{0, {BufferId::recv, 0, bytes / 4}}},
                       {LocalOp{LocalOp::Kind::reduce, {BufferId::recv, 0, bytes / 4}, {}, {}}}}};
    return simulate_schedules(s, p, {}).time_us;
  };
  EXPECT_DOUBLE_EQ(one_message(4096), 1 + 4096 * 1e-3 + 0.5);
  EXPECT_DOUBLE_EQ(one_message(16384), 20 + 16384 * 1e-4 + 0.5);
  EXPECT_DOUBLE_EQ(one_message(4 << 20), 20 + (4 << 20) * 1e-4 + (4 << 20) * 1e-5);
}

TEST(CostSimulation, DataflowStartsWhatTheDataAllowsAsTheExecutorDoes) {
  // Rank 0 sends two blocks in two steps; rank 1 reduces the first in step 0. Step by
  // step, the second transfer waits for that reduction; in dataflow order it does not
  // (other regions), so the port streams both blocks back to back.
  CostParams p;
  p.intra = {5, 1e-3};
  p.reduce = {0, 4e-3};
  std::vector<Schedule> s = two_blocks_first_reduced();
  CostLayout l;
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, l).time_us, 2 * (5 + 1000 * 1e-3) + 1000 * 4e-3);
  l.order = ExecutionOrder::dataflow;
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, l).time_us, std::max(5 + 2000 * 1e-3, 5 + 1000 * 1e-3 + 1000 * 4e-3));
}

TEST(CostSimulation, AReceiverThatCopiesCannotReduceMeanwhile) {
  // As above without latency, in dataflow order: the first block arrives at 1 us and its
  // reduction takes 4 us, while the second block streams in from 1 to 2 us. Where the
  // receiver's core copies each message (shared memory), that copy holds the core and
  // the reduction runs after it, queued ports or shared alike.
  CostParams p;
  p.intra = {0, 1e-3};
  p.reduce = {0, 4e-3};
  const std::size_t c = 250;
  std::vector<Schedule> s = two_blocks_first_reduced();
  CostLayout l;
  l.order = ExecutionOrder::dataflow;
  for (bool shared : {false, true}) {
    p.shared_ports = shared;
    p.intra.receiver_copies = false;
    EXPECT_DOUBLE_EQ(simulate_schedules(s, p, l).time_us, 1 + 4) << shared;
    p.intra.receiver_copies = true;
    EXPECT_DOUBLE_EQ(simulate_schedules(s, p, l).time_us, 1 + 1 + 4) << shared;
  }
  // Only the receiver's core: a rank that only sends goes on reducing while its message
  // leaves (rank 0 reduces 4 us worth after posting its sends).
  s[0].steps[1].ops = {
      LocalOp{LocalOp::Kind::reduce, {BufferId::recv, 0, c}, {BufferId::send, 0, c}, {BufferId::send, 0, c}}};
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, l).time_us, 1 + 1 + 4);
}

TEST(CostSimulation, AReceiverCopiesOnlyOnceItsHostsLinksLetTheMessageIn) {
  // 2 hosts of 2 ranks, in dataflow order, receivers copying messages between hosts.
  // Rank 0 sends A to rank 2 and rank 1 sends B to rank 3 at once: B waits for A on
  // both hosts' links (10 us), then rank 3's core copies it (10 to 20 us). Rank 3 reduces
  // C, which rank 2 sent it on the host at once (no copy, in at 0.001 us): the core is
  // promised to B's copy, so the reduction (20 us) runs after it, to 40 us. Had the copy
  // been booked before the links' wait (0 to 10 us), it would end at 30.001.
  CostParams p;
  p.intra = {0, 1e-6};
  p.inter = {0, 1e-2};
  p.inter.receiver_copies = true;
  p.reduce = {0, 2e-2};
  const std::size_t c = 250;  // 1000 bytes
  std::vector<Schedule> s(4);
  s[0].steps = {Step{{{2, {BufferId::send, 0, c}}}, {}, {}}};
  s[1].steps = {Step{{{3, {BufferId::send, 0, c}}}, {}, {}}};
  s[2].steps = {Step{{{3, {BufferId::send, 0, c}}}, {{0, {BufferId::recv, 0, c}}}, {}}};
  s[3].steps = {
      Step{{},
           {{2, {BufferId::recv, 0, c}}, {1, {BufferId::recv, c, c}}},
           {LocalOp{LocalOp::Kind::reduce, {BufferId::send, 0, c}, {BufferId::recv, 0, c}, {BufferId::send, 0, c}}}}};
  CostLayout l{4, {0, 0, 1, 1}};
  l.order = ExecutionOrder::dataflow;
  EXPECT_DOUBLE_EQ(simulate_schedules(s, p, l).time_us, 2 * 10 + 20);
}

TEST(CostSimulation, RefusesSchedulesThatCannotComplete) {
  std::vector<Schedule> s(2);
  s[0].steps = {Step{{{1, {BufferId::send, 0, 4}}}, {}, {}}};
  EXPECT_THROW(simulate_schedules(s, flat(), {}), std::runtime_error);
  s[1].steps = {Step{{}, {{0, {BufferId::recv, 0, 8}}}, {}}};
  EXPECT_THROW(simulate_schedules(s, flat(), {}), std::runtime_error);
  EXPECT_THROW(simulate_schedules(s, flat(), {4, {0}}), std::invalid_argument);
}
