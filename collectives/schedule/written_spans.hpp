#pragma once
// The parts of each buffer a rank writes in a call (received into, or an operation's
// result), as disjoint [begin, end) element spans: which of its sends carry bytes it
// wrote, whose lines sit modified in its cache when the receiver reads them (the cost
// model's written sends, the memory-traffic bound's written receives).
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <map>

#include "collectives/schedule/schedule.hpp"

namespace collbench {

class WrittenSpans {
 public:
  bool overlaps(const Region& r) const {
    const auto& m = spans_[static_cast<int>(r.buffer)];
    auto it = m.upper_bound(r.offset);
    if (it != m.begin() && std::prev(it)->second > r.offset) return true;
    return it != m.end() && it->first < r.offset + r.count;
  }
  // What a step writes: its receives' regions and its operations' results.
  void add(const Step& x) {
    for (const Transfer& t : x.recvs) add(t.region);
    for (const LocalOp& op : x.ops) add(op.dst);
  }
  void add(const Region& r) {
    if (r.count == 0) return;
    auto& m = spans_[static_cast<int>(r.buffer)];
    std::size_t lo = r.offset, hi = r.offset + r.count;
    auto it = m.upper_bound(lo);
    if (it != m.begin() && std::prev(it)->second >= lo) {
      --it;
      lo = it->first, hi = std::max(hi, it->second);
      it = m.erase(it);
    }
    for (; it != m.end() && it->first <= hi; it = m.erase(it)) hi = std::max(hi, it->second);
    m.emplace(lo, hi);
  }

 private:
  std::map<std::size_t, std::size_t> spans_[3];
};

}  // namespace collbench
