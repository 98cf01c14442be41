#pragma once
// Tools the schedule builders share. Steps are numbered globally: step k of every rank
// is matched against step k of its peers (that is what the symbolic executor checks),
// so a rank that sits out a phase simply has empty steps there.
#include <cstddef>
#include <functional>
#include <vector>

#include "algorithms/phases/chunking.hpp"
#include "collectives/schedule/schedule.hpp"

namespace collbench {

// A contiguous range of a logical vector, in elements.
struct Span {
  std::size_t offset = 0;
  std::size_t count = 0;
  std::size_t end() const { return offset + count; }
};

// Consecutive spans of a logical vector, one per part, each computed when asked for: a
// rank's schedule that touches O(log n) of n spans then builds in O(log n), which the
// cost model needs when it builds every rank's. Even spans (the usual case) are computed
// inline: a ring over 65,536 ranks asks for each of its spans several times per rank.
class Spans {
 public:
  Spans() = default;
  Spans(int parts, std::function<Span(int)> at) : parts_(parts), at_(std::move(at)) {}
  static Spans even(std::size_t length, int parts);  // as Chunking cuts them
  int size() const { return parts_; }
  Span operator[](int i) const {
    if (at_) return at_(i);
    const auto k = static_cast<std::size_t>(i);
    const std::size_t from = even_.offset(k);
    return {from + shift_, even_.offset(k + 1) - from};
  }
  Span range(int first, int end) const {  // spans [first, end) as one
    const Span a = (*this)[first];
    return {a.offset, (*this)[end - 1].end() - a.offset};
  }
  Spans shifted(std::size_t by) const;
  // The longest span's count.
  std::size_t largest() const;

 private:
  int parts_ = 0;
  std::function<Span(int)> at_;  // empty: even spans
  Chunking even_{0, 1};
  std::size_t shift_ = 0;
};

// Where a span of a logical vector lies in one buffer: logical offset `base` is stored
// at element `at`. InBuffer{BufferId::recv} keeps every span at its own offset;
// InBuffer{BufferId::send, mine} finds a rank's own block at the start of its send buffer.
struct InBuffer {
  BufferId buffer = BufferId::recv;
  std::size_t base = 0;
  std::size_t at = 0;
  Region operator()(Span x) const { return {buffer, x.offset - base + at, x.count}; }
};
using RegionOf = std::function<Region(Span)>;

// Where the pieces of a logical vector live on one rank: an ordered list of spans,
// each stored contiguously in some buffer. Most vectors are one piece; a gather's
// output wraps around at rank 0, and a non-root keeps its own block in its send buffer.
class Placement {
 public:
  Placement() = default;
  Placement(BufferId buffer, std::size_t base, std::size_t length);  // one piece
  // Stores `span` at `at` instead, splitting the pieces it covers.
  Placement& move(Span span, Region at);
  // The region of a span that lies in one piece (throws std::logic_error otherwise).
  Region region(Span span) const;
  // Offsets inside `span` where the storage changes buffer or jumps.
  void cuts(Span span, std::vector<std::size_t>& out) const;

 private:
  struct Piece {
    Span span;
    BufferId buffer;
    std::size_t at;
  };
  std::vector<Piece> pieces_;
};

// Appends to one rank's schedule. Zero-length transfers and operations are dropped;
// both sides of a transfer compute the same length, so they drop it together.
class ScheduleWriter {
 public:
  explicit ScheduleWriter(Schedule& s) : s_(s) {}
  Step& at(std::size_t step);
  void send(std::size_t step, int peer, Region r);
  void recv(std::size_t step, int peer, Region r);
  void copy(std::size_t step, Region dst, Region src);
  void reduce(std::size_t step, Region dst, Region a, Region b);
  void need_scratch(std::size_t count);

  // The same, for a span whose storage may be in several pieces: the transfer is cut
  // wherever either side's storage is (both sides pass both placements, so they cut alike).
  void send(std::size_t step, int peer, Span s, const Placement& mine, const Placement& theirs);
  void recv(std::size_t step, int peer, Span s, const Placement& mine, const Placement& theirs);

 private:
  Schedule& s_;
};

// Ceiling of log2(m) for m >= 1: the rounds of a binomial tree over m members.
int ceil_log2(int m);

// The usual fold of a rank count n onto the power of two p <= n for recursive
// algorithms: among the first 2(n - p) ranks each odd one hands its data to the even
// one before it and sits out; the rest keep going as "new ranks" 0..p-1, in order.
struct PowerOfTwoFold {
  int n = 1, p = 1, extra = 0;
  explicit PowerOfTwoFold(int nranks);
  int new_rank(int r) const;  // -1 for a rank that sits out
  int old_rank(int nr) const;
  bool sits_out(int r) const { return r < 2 * extra && r % 2 == 1; }
  bool takes_partner(int r) const { return r < 2 * extra && r % 2 == 0; }
  // The old ranks a new rank stands for: [first_old, end_old).
  int first_old(int nr) const { return old_rank(nr); }
  int end_old(int nr) const { return nr < extra ? 2 * nr + 2 : nr + extra + 1; }
};

// Rank numbering relative to a root, so that trees can be written for root 0.
inline int relative_rank(int r, int root, int n) { return (r - root + n) % n; }
inline int absolute_rank(int v, int root, int n) { return (v + root) % n; }

}  // namespace collbench
