#include "collectives/schedule/receive_fusion.hpp"

#include <deque>
#include <optional>
#include <stdexcept>

#include "collectives/schedule/written_spans.hpp"

namespace collbench {
namespace {

// Regions as the memory they name: the send buffer of an in-place call is inside recv.
struct Span {
  BufferId buffer;
  std::size_t begin, end;
};

class Memory {
 public:
  explicit Memory(const BufferLayout& layout) : layout_(layout) {}
  Span at(const Region& r) const {
    const Region m = in_memory(r, layout_);
    return {m.buffer, m.offset, m.offset + m.count};
  }
  bool overlap(const Region& a, const Region& b) const {
    const Span x = at(a), y = at(b);
    return a.count > 0 && b.count > 0 && x.buffer == y.buffer && x.begin < y.end && y.begin < x.end;
  }
  bool same(const Region& a, const Region& b) const {
    const Span x = at(a), y = at(b);
    return x.buffer == y.buffer && x.begin == y.begin && x.end == y.end;
  }
  bool covers(const Region& outer, const Region& inner) const {
    const Span x = at(outer), y = at(inner);
    return x.buffer == y.buffer && x.begin <= y.begin && y.end <= x.end;
  }
  // Nothing writes the send buffer of an out-of-place call.
  bool read_only(const Region& r) const { return r.buffer == BufferId::send && !layout_.send_aliases_recv; }

 private:
  const BufferLayout& layout_;
};

bool reads(const LocalOp& o, const Region& r, const Memory& m) {
  return m.overlap(o.a, r) || (o.kind == LocalOp::Kind::reduce && m.overlap(o.b, r));
}
bool touches(const LocalOp& o, const Region& r, const Memory& m) { return reads(o, r, m) || m.overlap(o.dst, r); }

// Whether anything after operation `op` of step `k` reads `scratch` before it is written whole.
bool read_later(const Schedule& s, std::size_t k, std::size_t op, const std::vector<std::vector<bool>>& gone,
                const Region& scratch, const Memory& m) {
  for (std::size_t j = k; j < s.steps.size(); ++j) {
    const Step& st = s.steps[j];
    if (j > k) {
      for (const Transfer& t : st.sends)
        if (m.overlap(t.region, scratch)) return true;
      for (const Transfer& t : st.recvs)
        if (m.covers(t.region, scratch)) return false;
    }
    for (std::size_t i = j == k ? op + 1 : 0; i < st.ops.size(); ++i) {
      if (gone[j][i]) continue;
      if (reads(st.ops[i], scratch, m)) return true;
      if (m.covers(st.ops[i].dst, scratch)) return false;
    }
  }
  return false;
}

}  // namespace

FusedSchedule fuse_receives(const Schedule& s, const BufferLayout& layout) {
  const Memory m(layout);
  FusedSchedule f;
  std::vector<std::vector<bool>> gone(s.steps.size());
  for (std::size_t k = 0; k < s.steps.size(); ++k) gone[k].assign(s.steps[k].ops.size(), false);
  std::vector<std::vector<std::optional<std::pair<Region, FusedReceive>>>> plan(s.steps.size());

  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    const Step& st = s.steps[k];
    plan[k].resize(st.recvs.size());
    for (std::size_t j = 0; j < st.recvs.size(); ++j) {
      const Region r = st.recvs[j].region;
      if (r.buffer != BufferId::scratch || r.count == 0) continue;
      std::size_t oi = 0;
      while (oi < st.ops.size() && (gone[k][oi] || !touches(st.ops[oi], r, m))) ++oi;
      if (oi == st.ops.size()) continue;
      const LocalOp& o = st.ops[oi];
      FusedReceive fr;
      if (o.kind == LocalOp::Kind::copy && m.same(o.a, r)) {
        fr.kind = FusedReceive::Kind::copy;
      } else if (o.kind == LocalOp::Kind::reduce && m.same(o.b, r) && !m.overlap(o.a, r)) {
        fr = {FusedReceive::Kind::reduce, o.a, false};
      } else if (o.kind == LocalOp::Kind::reduce && m.same(o.a, r) && !m.overlap(o.b, r)) {
        fr = {FusedReceive::Kind::reduce, o.b, true};
      } else {
        continue;
      }
      const Region dst = o.dst;
      if (m.overlap(dst, r)) continue;
      if (fr.kind == FusedReceive::Kind::reduce && !m.same(fr.local, dst) && !m.read_only(fr.local)) continue;
      bool clear = true;
      for (std::size_t i = 0; i < oi && clear; ++i)
        clear = gone[k][i] || !(touches(st.ops[i], r, m) || touches(st.ops[i], dst, m) ||
                                (fr.kind == FusedReceive::Kind::reduce && touches(st.ops[i], fr.local, m)));
      // Other receives where they now land: a receive fused before writes its operation's dst.
      for (std::size_t i = 0; i < st.recvs.size() && clear; ++i) {
        const Region other = plan[k][i] ? plan[k][i]->first : st.recvs[i].region;
        clear = i == j || !(m.overlap(other, r) || m.overlap(other, dst) ||
                            (fr.kind == FusedReceive::Kind::reduce && m.overlap(other, fr.local)));
      }
      for (const Transfer& t : st.sends)
        clear = clear && !m.overlap(t.region, r) && !m.overlap(t.region, dst);
      if (!clear || read_later(s, k, oi, gone, r, m)) continue;
      gone[k][oi] = true;
      plan[k][j] = std::pair{dst, fr};
    }
  }

  f.schedule.scratch_count = s.scratch_count;
  f.schedule.numbers = s.numbers;
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    Step st = s.steps[k];
    for (std::size_t j = 0; j < st.recvs.size(); ++j) {
      FusedReceive fr;
      if (plan[k][j]) {
        st.recvs[j].region = plan[k][j]->first;
        fr = plan[k][j]->second;
        (fr.kind == FusedReceive::Kind::reduce ? f.reductions : f.copies) += 1;
      }
      f.receives.push_back(fr);
    }
    std::vector<LocalOp> kept;
    for (std::size_t i = 0; i < st.ops.size(); ++i)
      if (!gone[k][i]) kept.push_back(st.ops[i]);
    st.ops = std::move(kept);
    f.schedule.steps.push_back(std::move(st));
  }
  return f;
}

MemoryWork receiver_memory_work(const FusedSchedule& s, std::size_t element_size,
                                const std::vector<bool>* source_written) {
  WrittenSpans sent;  // what this rank sends anywhere in the call: its peers' cores read it
  for (const Step& st : s.schedule.steps)
    for (const Transfer& t : st.sends) sent.add(t.region);
  MemoryWork w;
  auto add = [&](bool reduce, bool written, const Region& dst) {
    w.by_kind[memory_kind(reduce, written, sent.overlaps(dst))] += dst.count * element_size;
  };
  std::size_t r = 0;
  for (const Step& st : s.schedule.steps) {
    for (const Transfer& t : st.recvs) {
      const bool written = source_written && source_written->at(r);
      add(s.receives[r++].kind == FusedReceive::Kind::reduce, written, t.region);
    }
    for (const LocalOp& o : st.ops) {
      if (o.kind == LocalOp::Kind::reduce)
        add(true, false, o.dst);
      else if (o.dst.buffer != o.a.buffer || o.dst.offset != o.a.offset)
        add(false, false, o.dst);
    }
  }
  return w;
}

std::vector<MemoryWork> memory_work_of_ranks(const std::vector<FusedSchedule>& ranks, std::size_t element_size) {
  const std::size_t n = ranks.size();
  // written[p][r]: per send of rank p to rank r, in program order, whether p writes its bytes.
  std::vector<std::vector<std::deque<bool>>> written(n, std::vector<std::deque<bool>>(n));
  for (std::size_t p = 0; p < n; ++p) {
    WrittenSpans wrote;
    for (const Step& st : ranks[p].schedule.steps) wrote.add(st);
    for (const Step& st : ranks[p].schedule.steps)
      for (const Transfer& t : st.sends)
        written[p].at(static_cast<std::size_t>(t.peer)).push_back(wrote.overlaps(t.region));
  }
  std::vector<MemoryWork> out;
  for (std::size_t r = 0; r < n; ++r) {
    std::vector<bool> source_written;
    for (const Step& st : ranks[r].schedule.steps)
      for (const Transfer& t : st.recvs) {
        auto& sends = written.at(static_cast<std::size_t>(t.peer))[r];
        if (sends.empty()) throw std::logic_error("memory_work_of_ranks: a receive without its send");
        source_written.push_back(sends.front());
        sends.pop_front();
      }
    out.push_back(receiver_memory_work(ranks[r], element_size, &source_written));
  }
  return out;
}

}  // namespace collbench
