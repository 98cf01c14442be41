#include <gtest/gtest.h>

#include <vector>

#include "algorithms/catalog.hpp"

using namespace collbench;

namespace {

// NCCL's in-order binary tree, from its definition: a rank's lowest set bit gives its
// level, its parent is the nearest rank one level up (the one below where that is past
// the last rank).
int parent_in_first_tree(int n, int a) {
  if (a == 0) return -1;
  const int bit = a & -a, up = (a ^ bit) | (bit << 1);
  return up < n ? up : a ^ bit;
}

// Heights by the definition: a leaf 0, else one more than its highest child.
std::vector<int> heights_in_first_tree(int n) {
  std::vector<int> h(static_cast<std::size_t>(n), 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (int c = 1; c < n; ++c) {
      const int p = parent_in_first_tree(n, c);
      if (h[static_cast<std::size_t>(p)] < h[static_cast<std::size_t>(c)] + 1)
        h[static_cast<std::size_t>(p)] = h[static_cast<std::size_t>(c)] + 1, changed = true;
    }
  }
  return h;
}

}  // namespace

TEST(DoubleBinaryTreeSchedule, EachRankSendsASegmentUpAsManyStepsLateAsItsSubtreeIsHigh) {
  // One segment per tree: a rank sends its reduced half to its parent in step h, its
  // height in that tree (its children's halves arrived in the steps before). The second
  // tree mirrors the first (n even) or shifts it by one (n odd).
  for (int n = 2; n <= 70; ++n) {
    const std::vector<int> h = heights_in_first_tree(n);
    const std::size_t count = 2 * static_cast<std::size_t>(n), half = count / 2;
    for (int r = 0; r < n; ++r) {
      const Schedule s = build_double_binary_tree_allreduce({Collective::allreduce, n, r, count, 0, 4, nullptr});
      for (int tree = 0; tree < 2; ++tree) {
        const int a = tree == 0 ? r : n % 2 == 0 ? n - 1 - r : (r - 1 + n) % n;
        const int p = parent_in_first_tree(n, a);
        if (p < 0) continue;
        const int parent = tree == 0 ? p : n % 2 == 0 ? n - 1 - p : (p + 1) % n;
        int found = 0;
        for (std::size_t k = 0; k < s.steps.size(); ++k)
          for (const Transfer& t : s.steps[k].sends)
            if (t.peer == parent && (t.region.offset < half) == (tree == 0) && t.region.buffer != BufferId::scratch) {
              EXPECT_EQ(s.number(k), static_cast<std::size_t>(h[static_cast<std::size_t>(a)]))
                  << "n=" << n << " rank " << r << " tree " << tree;
              ++found;
            }
        EXPECT_EQ(found, 1) << "n=" << n << " rank " << r << " tree " << tree;
      }
    }
  }
}
