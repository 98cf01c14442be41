// Tree allreduce: binomial reduce then broadcast, and NCCL-style double binary tree.
#include <algorithm>

#include "algorithms/phases/binomial.hpp"
#include "algorithms/catalog.hpp"
#include "algorithms/phases/chunking.hpp"

namespace collbench {

Schedule build_tree_allreduce(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const std::size_t c = q.count;
  const Group g = rooted_group(q.nranks, q.rank, 0);
  const Region out{BufferId::recv, 0, c};
  w.need_scratch(c);
  const std::size_t steps = binomial_reduce(w, 0, g, {BufferId::send, 0, c}, out, {BufferId::scratch, 0, c});
  binomial_broadcast(w, steps, g, out);
  return s;
}

namespace {

// A binary tree over all ranks, as parent links, with each node's height (leaves 0)
// and depth (root 0).
struct Tree {
  std::vector<int> parent, height, depth;
  std::vector<std::vector<int>> children;
  int root = 0;
};

// The in-order binary tree NCCL uses: a rank's lowest set bit gives its level, its
// parent is the nearest rank one level up. Every rank at an odd position is a leaf.
int btree_parent(int n, int r) {
  if (r == 0) return -1;
  const int bit = r & -r;
  const int up = (r ^ bit) | (bit << 1);
  return up < n ? up : (r ^ bit);
}

Tree make_tree(int n, bool second) {
  Tree t;
  t.parent.resize(n);
  // The second tree mirrors the first (n even) or shifts it by one (n odd), so that
  // the leaves of one are the inner nodes of the other.
  for (int r = 0; r < n; ++r) {
    if (!second) t.parent[r] = btree_parent(n, r);
    else if (n % 2 == 0) {
      const int p = btree_parent(n, n - 1 - r);
      t.parent[r] = p < 0 ? -1 : n - 1 - p;
    } else {
      const int p = btree_parent(n, (r - 1 + n) % n);
      t.parent[r] = p < 0 ? -1 : (p + 1) % n;
    }
  }
  t.children.assign(n, {});
  for (int r = 0; r < n; ++r)
    if (t.parent[r] >= 0) t.children[t.parent[r]].push_back(r);
    else t.root = r;
  t.height.assign(n, 0);
  t.depth.assign(n, 0);
  std::vector<int> order{t.root};  // breadth first: parents before children
  for (std::size_t i = 0; i < order.size(); ++i)
    for (int ch : t.children[order[i]]) {
      t.depth[ch] = t.depth[order[i]] + 1;
      order.push_back(ch);
    }
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (t.parent[*it] >= 0) t.height[t.parent[*it]] = std::max(t.height[t.parent[*it]], t.height[*it] + 1);
  return t;
}

// One tree's share: segments go up (reduced on the way) and come back down.
// Segment i leaves a node of height h in step i+h, so its children's arrived
// earlier; the root sends it down in step i+H and a node of depth d passes it on
// in step i+H+d.
void tree_pipeline(ScheduleWriter& w, const Tree& t, int r, Span data, std::size_t seg, std::size_t segments,
                   std::size_t tmp_at) {
  const auto H = static_cast<std::size_t>(t.height[t.root]);
  const auto h = static_cast<std::size_t>(t.height[r]), d = static_cast<std::size_t>(t.depth[r]);
  std::vector<int> kids = t.children[r];
  std::stable_sort(kids.begin(), kids.end(), [&](int a, int b) { return t.height[a] < t.height[b]; });
  for (std::size_t i = 0; i < segments; ++i) {
    const std::size_t from = std::min(data.count, i * seg), len = std::min(seg, data.count - from);
    const Region input{BufferId::send, data.offset + from, len}, out{BufferId::recv, data.offset + from, len};
    for (std::size_t k = 0; k < kids.size(); ++k) {
      const std::size_t step = i + static_cast<std::size_t>(t.height[kids[k]]);
      const Region tmp{BufferId::scratch, tmp_at + k * seg, len};
      w.recv(step, kids[k], tmp);
      w.reduce(step, out, k == 0 ? input : out, tmp);
    }
    if (t.parent[r] >= 0) {
      w.send(i + h, t.parent[r], kids.empty() ? input : out);
      w.recv(i + H + d - 1, t.parent[r], out);
    } else if (kids.empty()) {
      w.copy(i, out, input);
    }
    for (int ch : t.children[r]) w.send(i + H + d, ch, out);
  }
}

}  // namespace

Schedule build_double_binary_tree_allreduce(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const Chunking halves{q.count, 2};
  const std::size_t seg = std::min(q.segment_elements(kDoubleTreeSegmentBytes), std::max<std::size_t>(1, halves.largest()));
  const std::size_t segments = std::max<std::size_t>(1, (halves.largest() + seg - 1) / seg);
  w.need_scratch(4 * seg);
  // Tree A carries the first half and tree B the second; A's transfers come first in
  // every step, so two messages between the same pair in one step match in order.
  tree_pipeline(w, make_tree(q.nranks, false), q.rank, {0, halves.size(0)}, seg, segments, 0);
  tree_pipeline(w, make_tree(q.nranks, true), q.rank, {halves.size(0), halves.size(1)}, seg, segments, 2 * seg);
  return s;
}

}  // namespace collbench
