// Every reference algorithm, verified symbolically for every rank count from 1 to
// 128 (and a few far larger), every root, several counts, in and out of place.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "collectives/schedule/symbolic_executor.hpp"
#include "harness/common/default_registry.hpp"

using namespace collbench;

namespace {

const Registry& reference_registry() { return default_registry(); }

std::string label(const AlgorithmEntry& e) { return std::string(collective_name(e.collective)) + "_" + e.name; }

// Test parameters are labels ("allreduce_ring"), so ctest's test names stay stable.
std::vector<std::string> all_reference_algorithms() {
  std::vector<std::string> out;
  for (Collective c : kAllCollectives)
    for (const AlgorithmEntry* e : reference_registry().for_collective(c))
      if (!e->is_baseline()) out.push_back(label(*e));
  return out;
}

const AlgorithmEntry& entry(const std::string& name) {
  for (Collective c : kAllCollectives)
    for (const AlgorithmEntry* e : reference_registry().for_collective(c))
      if (label(*e) == name) return *e;
  throw std::logic_error("no algorithm " + name);
}

// The settings each rank count is tried with: pipelines cut into 2-element segments
// as well as their default, and several node layouts (even, uneven, one node).
std::vector<AlgorithmParams> params_for(const AlgorithmEntry& e, int n) {
  std::vector<AlgorithmParams> out{{}};
  if (e.pipelined()) out.push_back({8, {}});
  if (!e.topology_aware) return out;
  for (int per_node : {1, 2, 3}) {
    AlgorithmParams p;
    for (int r = 0; r < n; ++r) p.node_of_rank.push_back(r / per_node);
    out.push_back(p);
  }
  AlgorithmParams scattered;  // nodes of unequal size, ranks not contiguous
  for (int r = 0; r < n; ++r) scattered.node_of_rank.push_back((r * r + 1) % 3);
  out.push_back(scattered);
  return out;
}

std::string describe_params(const AlgorithmParams& p) {
  std::string s = "segment_bytes=" + std::to_string(p.segment_bytes) + " nodes=";
  for (int node : p.node_of_rank) s += std::to_string(node) + ",";
  return s;
}

class ReferenceSchedule : public testing::TestWithParam<std::string> {
 protected:
  void verify(int n, int root, std::size_t count, bool in_place, const AlgorithmParams& params) {
    const AlgorithmEntry& e = entry(GetParam());
    const SymbolicReport rep = verify_builder({e.collective, n, count, root, in_place}, e.build, params);
    ASSERT_TRUE(rep.ok()) << label(e) << " n=" << n << " root=" << root << " count=" << count
                          << " in_place=" << in_place << " " << describe_params(params) << ": " << rep.errors.front();
  }

  // Every rank count from 1 to 128 of one parity (odd: 1, 3, ..., 127; even: 2, ..., 128),
  // every root, and counts that divide and do not: the two parities are two tests, so each
  // stays well under a minute on a loaded 2-core machine.
  void verify_every_rank_count_up_to_128(int first) {
    const AlgorithmEntry& e = entry(GetParam());
    // Block collectives (gather, allgather, reduce_scatter) count one rank's block.
    const bool blocks = size_counts_all_blocks(e.collective);
    for (int n = first; n <= 128; n += 2) {
      const auto params = params_for(e, n);
      const std::vector<std::size_t> counts =
          blocks ? std::vector<std::size_t>{0, 1, 3}
                 : std::vector<std::size_t>{0, 1, 7, static_cast<std::size_t>(2 * n + 3)};
      // Every root with one count not divisible by n; the other counts at a few roots.
      const int roots = uses_root(e.collective) ? n : 1;
      for (int root = 0; root < roots; ++root)
        verify(n, root, blocks ? 2 : static_cast<std::size_t>(n + 1), root % 2 == 1, params.back());
      for (int root : {0, n / 2, n - 1}) {
        if (!uses_root(e.collective) && root != 0) continue;
        for (std::size_t count : counts)
          for (bool in_place : {false, true})
            for (const AlgorithmParams& p : params) verify(n, root, count, in_place, p);
        if (HasFatalFailure()) return;
      }
    }
  }
};

TEST_P(ReferenceSchedule, VerifiesForEveryOddRankCountRootAndCountUpTo128) { verify_every_rank_count_up_to_128(1); }

TEST_P(ReferenceSchedule, VerifiesForEveryEvenRankCountRootAndCountUpTo128) { verify_every_rank_count_up_to_128(2); }

TEST_P(ReferenceSchedule, VerifiesAtAThousandRanks) {
  const int n = 1000;
  const AlgorithmEntry& e = entry(GetParam());
  // An all-to-all moves n^2 blocks: one element each, in and out of place.
  if (e.collective == Collective::alltoall || e.collective == Collective::alltoallv) {
    for (bool in_place : {false, true}) verify(n, 0, 1, in_place, params_for(e, n).back());
    return;
  }
  const std::size_t larger = size_counts_all_blocks(e.collective) ? 3 : 1003;
  for (int root : {0, 1, 617, 999}) {
    if (!uses_root(e.collective) && root != 0) continue;
    for (std::size_t count : {std::size_t{1}, larger}) verify(n, root, count, root == 617, params_for(e, n).back());
  }
}

// alltoallv's count matrices: skewed, with empty blocks, one rank receiving (or sending)
// everything, odd counts; in place with symmetric ones.
std::vector<std::pair<std::string, CountMatrix>> count_matrices(int n) {
  const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  auto make = [&](auto count_of) {
    std::vector<std::size_t> c(cells);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) c[static_cast<std::size_t>(a * n + b)] = count_of(a, b);
    return CountMatrix(n, c);
  };
  return {
      {"skewed",
       make([](int a, int b) { return static_cast<std::size_t>((a * 7 + b * 3) % 5 == 0 ? 0 : (a + 2 * b) % 9); })},
      {"one_receiver", make([](int, int b) { return std::size_t{b == 0 ? 3u : 0u}; })},
      {"one_sender",
       make([n](int a, int b) { return std::size_t{a == n - 1 ? static_cast<std::size_t>(b % 2 + 1) : 0u}; })},
      {"symmetric",
       make([](int a, int b) { return static_cast<std::size_t>((a + b) % 4 == 1 ? 0 : (a * b + a + b) % 5); })},
      {"all_empty", make([](int, int) { return std::size_t{0}; })},
  };
}

class CountMatrixSchedule : public testing::TestWithParam<std::string> {};

std::vector<std::string> count_matrix_algorithms() {
  std::vector<std::string> out;
  for (const std::string& name : all_reference_algorithms())
    if (takes_count_matrix(entry(name).collective)) out.push_back(name);
  return out;
}

TEST_P(CountMatrixSchedule, VerifiesEveryCountMatrix) {
  const AlgorithmEntry& e = entry(GetParam());
  for (int n : {1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 64}) {
    const auto params = params_for(e, n);
    for (const auto& [name, m] : count_matrices(n))
      for (bool in_place : {false, true}) {
        if (in_place && !m.symmetric()) continue;
        for (const AlgorithmParams& p : params) {
          const SymbolicReport rep = verify_builder({e.collective, n, 2, 0, in_place, &m}, e.build, p);
          ASSERT_TRUE(rep.ok()) << label(e) << " n=" << n << " " << name << " in_place=" << in_place << " "
                                << describe_params(p) << ": " << rep.errors.front();
        }
      }
  }
}

INSTANTIATE_TEST_SUITE_P(All, ReferenceSchedule, testing::ValuesIn(all_reference_algorithms()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(All, CountMatrixSchedule, testing::ValuesIn(count_matrix_algorithms()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
