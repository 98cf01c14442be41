// Tree allreduce: binomial reduce then broadcast, and NCCL-style double binary tree.
#include <algorithm>
#include <map>
#include <vector>

#include "algorithms/catalog.hpp"
#include "algorithms/phases/binomial.hpp"
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

// The in-order binary tree NCCL uses: a rank's lowest set bit gives its level, its
// parent is the nearest rank one level up. Every rank at an odd position is a leaf.
int btree_parent(int n, int r) {
  if (r == 0) return -1;
  const int bit = r & -r;
  const int up = (r ^ bit) | (bit << 1);
  return up < n ? up : (r ^ bit);
}

// Every rank's height in the first tree over n ranks (a leaf: 0), found once per n and
// thread: the cost model builds every rank's schedule, and walking each rank's subtree
// would cost O(n log n) per tree.
const std::vector<int>& first_tree_heights(int n) {
  thread_local std::map<int, std::vector<int>> known;
  if (auto it = known.find(n); it != known.end()) return it->second;
  std::vector<int> h(static_cast<std::size_t>(n), 0);
  for (int a = 1; a < n; ++a)  // raise each ancestor while the path below it is the longest
    for (int c = a, p = btree_parent(n, c);
         p >= 0 && h[static_cast<std::size_t>(p)] < h[static_cast<std::size_t>(c)] + 1; c = p, p = btree_parent(n, c))
      h[static_cast<std::size_t>(p)] = h[static_cast<std::size_t>(c)] + 1;
  return known[n] = std::move(h);
}

// One rank's view of a binary tree over n ranks, computed as needed rather than for all
// n ranks (the cost model builds every rank's schedule): parents by formula, children
// among the ranks a power of two away (a child c of r is always r +- lowbit(c)),
// heights and the tree's height once per n.
class TreeView {
 public:
  TreeView(int n, bool second) : n_(n), second_(second), heights_(first_tree_heights(n)) {}
  // The second tree mirrors the first (n even) or shifts it by one (n odd), so that
  // the leaves of one are the inner nodes of the other.
  int to_first(int r) const { return !second_ ? r : n_ % 2 == 0 ? n_ - 1 - r : (r - 1 + n_) % n_; }
  int from_first(int a) const { return !second_ ? a : n_ % 2 == 0 ? n_ - 1 - a : (a + 1) % n_; }
  int parent(int r) const {
    const int p = btree_parent(n_, to_first(r));
    return p < 0 ? -1 : from_first(p);
  }
  std::vector<int> children(int r) const {  // ascending
    std::vector<int> out;
    const int a = to_first(r);
    for (long d = 1; d < n_; d *= 2)
      for (long c : {a - d, a + d})
        if (c > 0 && c < n_ && btree_parent(n_, static_cast<int>(c)) == a)
          out.push_back(from_first(static_cast<int>(c)));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  int depth(int r) const {
    int d = 0;
    for (int a = to_first(r); a != 0; a = btree_parent(n_, a)) ++d;
    return d;
  }
  int height(int r) const { return heights_[static_cast<std::size_t>(to_first(r))]; }
  // The tree's height is its deepest rank's depth, its root's height (the same for both
  // trees).
  int tree_height() const { return heights_[0]; }

 private:
  int n_;
  bool second_;
  const std::vector<int>& heights_;
};

// One tree's share: segments go up (reduced on the way) and come back down.
// Segment i leaves a node of height h in step i+h, so its children's arrived
// earlier; the root sends it down in step i+H and a node of depth d passes it on
// in step i+H+d.
void tree_pipeline(ScheduleWriter& w, TreeView t, int r, Span data, std::size_t seg, std::size_t segments,
                   std::size_t tmp_at) {
  const auto H = static_cast<std::size_t>(t.tree_height());
  const auto h = static_cast<std::size_t>(t.height(r)), d = static_cast<std::size_t>(t.depth(r));
  const std::vector<int> children = t.children(r);
  const int parent = t.parent(r);
  std::vector<int> kids = children;
  std::stable_sort(kids.begin(), kids.end(), [&](int a, int b) { return t.height(a) < t.height(b); });
  for (std::size_t i = 0; i < segments; ++i) {
    const std::size_t from = std::min(data.count, i * seg), len = std::min(seg, data.count - from);
    const Region input{BufferId::send, data.offset + from, len}, out{BufferId::recv, data.offset + from, len};
    for (std::size_t k = 0; k < kids.size(); ++k) {
      const std::size_t step = i + static_cast<std::size_t>(t.height(kids[k]));
      const Region tmp{BufferId::scratch, tmp_at + k * seg, len};
      w.recv(step, kids[k], tmp);
      w.reduce(step, out, k == 0 ? input : out, tmp);
    }
    if (parent >= 0) {
      w.send(i + h, parent, kids.empty() ? input : out);
      w.recv(i + H + d - 1, parent, out);
    } else if (kids.empty()) {
      w.copy(i, out, input);
    }
    for (int ch : children) w.send(i + H + d, ch, out);
  }
}

}  // namespace

Schedule build_double_binary_tree_allreduce(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const Chunking halves{q.count, 2};
  const std::size_t seg =
      std::min(q.segment_elements(kDoubleTreeSegmentBytes), std::max<std::size_t>(1, halves.largest()));
  const std::size_t segments = std::max<std::size_t>(1, (halves.largest() + seg - 1) / seg);
  w.need_scratch(4 * seg);
  // Tree A carries the first half and tree B the second; A's transfers come first in
  // every step, so two messages between the same pair in one step match in order.
  tree_pipeline(w, TreeView(q.nranks, false), q.rank, {0, halves.size(0)}, seg, segments, 0);
  tree_pipeline(w, TreeView(q.nranks, true), q.rank, {halves.size(0), halves.size(1)}, seg, segments, 2 * seg);
  return s;
}

}  // namespace collbench
