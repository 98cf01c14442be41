#include "algorithms/phases/schedule_writer.hpp"

#include <algorithm>
#include <stdexcept>

#include "algorithms/phases/chunking.hpp"

namespace collbench {

Spans Spans::even(std::size_t length, int parts) {
  Spans s;
  s.parts_ = parts;
  s.even_ = Chunking{length, static_cast<std::size_t>(parts)};
  return s;
}

Spans Spans::shifted(std::size_t by) const {
  if (!at_) {
    Spans s = *this;
    s.shift_ += by;
    return s;
  }
  return {parts_, [at = at_, by](int i) {
            Span s = at(i);
            s.offset += by;
            return s;
          }};
}

std::size_t Spans::largest() const {
  if (!at_) return parts_ > 0 ? even_.largest() : 0;
  std::size_t most = 0;
  for (int i = 0; i < parts_; ++i) most = std::max(most, at_(i).count);
  return most;
}

Placement::Placement(BufferId buffer, std::size_t base, std::size_t length) {
  pieces_.push_back({{0, length}, buffer, base});
}

Placement& Placement::move(Span span, Region at) {
  std::vector<Piece> out;
  for (const Piece& p : pieces_) {
    if (p.span.offset < span.offset)
      out.push_back({{p.span.offset, std::min(p.span.end(), span.offset) - p.span.offset}, p.buffer, p.at});
    if (p.span.end() > span.end()) {
      const std::size_t from = std::max(p.span.offset, span.end());
      out.push_back({{from, p.span.end() - from}, p.buffer, p.at + (from - p.span.offset)});
    }
  }
  out.push_back({span, at.buffer, at.offset});
  std::sort(out.begin(), out.end(), [](const Piece& a, const Piece& b) { return a.span.offset < b.span.offset; });
  pieces_ = std::move(out);
  return *this;
}

Region Placement::region(Span span) const {
  if (span.count == 0) return {BufferId::recv, 0, 0};
  for (const Piece& p : pieces_)
    if (p.span.offset <= span.offset && span.end() <= p.span.end())
      return {p.buffer, p.at + (span.offset - p.span.offset), span.count};
  throw std::logic_error("span [" + std::to_string(span.offset) + "+" + std::to_string(span.count) +
                         "] is not stored in one piece");
}

void Placement::cuts(Span span, std::vector<std::size_t>& out) const {
  for (const Piece& p : pieces_)
    if (p.span.offset > span.offset && p.span.offset < span.end()) out.push_back(p.span.offset);
}

Step& ScheduleWriter::at(std::size_t step) {
  // Only the steps written are kept, numbered (Schedule::numbers); builders mostly write
  // them in order, so a step is nearly always the last one or a new one after it.
  std::vector<std::size_t>& numbers = s_.numbers;
  if (numbers.size() != s_.steps.size())
    throw std::logic_error("ScheduleWriter: a schedule whose steps are not all numbered");
  if (!numbers.empty() && numbers.back() == step) return s_.steps.back();
  auto it = std::lower_bound(numbers.begin(), numbers.end(), step);
  const auto k = static_cast<std::size_t>(it - numbers.begin());
  if (it == numbers.end() || *it != step) {
    numbers.insert(it, step);
    s_.steps.insert(s_.steps.begin() + static_cast<std::ptrdiff_t>(k), Step{});
  }
  return s_.steps[k];
}

void ScheduleWriter::send(std::size_t step, int peer, Region r) {
  if (r.count) at(step).sends.push_back({peer, r});
}
void ScheduleWriter::recv(std::size_t step, int peer, Region r) {
  if (r.count) at(step).recvs.push_back({peer, r});
}
void ScheduleWriter::copy(std::size_t step, Region dst, Region src) {
  if (dst.count) at(step).ops.push_back(copy_op(dst, src));
}
void ScheduleWriter::reduce(std::size_t step, Region dst, Region a, Region b) {
  if (dst.count) at(step).ops.push_back(reduce_op(dst, a, b));
}
void ScheduleWriter::need_scratch(std::size_t count) { s_.scratch_count = std::max(s_.scratch_count, count); }

namespace {
// Calls f(sub-span) for the pieces of `s` between the cuts of both placements.
template <class F>
void for_pieces(Span s, std::initializer_list<const Placement*> placements, F f) {
  std::vector<std::size_t> cuts;
  for (const Placement* p : placements) p->cuts(s, cuts);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::size_t from = s.offset;
  for (std::size_t c : cuts) {
    f(Span{from, c - from});
    from = c;
  }
  f(Span{from, s.end() - from});
}
}  // namespace

void ScheduleWriter::send(std::size_t step, int peer, Span s, const Placement& mine, const Placement& theirs) {
  for_pieces(s, {&mine, &theirs}, [&](Span p) { send(step, peer, mine.region(p)); });
}
void ScheduleWriter::recv(std::size_t step, int peer, Span s, const Placement& mine, const Placement& theirs) {
  for_pieces(s, {&mine, &theirs}, [&](Span p) { recv(step, peer, mine.region(p)); });
}

int ceil_log2(int m) {
  int k = 0;
  while ((1 << k) < m) ++k;
  return k;
}

PowerOfTwoFold::PowerOfTwoFold(int nranks) : n(nranks) {
  while (p * 2 <= n) p *= 2;
  extra = n - p;
}

int PowerOfTwoFold::new_rank(int r) const {
  if (r < 2 * extra) return r % 2 ? -1 : r / 2;
  return r - extra;
}

int PowerOfTwoFold::old_rank(int nr) const { return nr < extra ? 2 * nr : nr + extra; }

}  // namespace collbench
