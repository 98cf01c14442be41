#include "collectives/schedule/symbolic_executor.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <iterator>
#include <sstream>
#include <unordered_map>

#include "collectives/schedule/dataflow.hpp"

namespace collbench {
namespace {

// Elements of one buffer: the index each stands for (-1: undefined) and the ranks whose
// contribution it holds: a bitset of `words` words, or where every result element comes
// from one rank (collectives without a reduction) one word holding that rank + 1. An
// all-to-all at 1000 ranks then plays in 20 bytes an element, not 140.
struct SymBuffer {
  std::size_t words = 1;
  std::vector<std::int64_t> index;
  std::vector<std::uint64_t> bits;
  std::vector<std::uint32_t> sending;  // dataflow order: sends in flight reading each element

  SymBuffer(std::size_t count, std::size_t w) : words(w), index(count, -1), bits(count * w, 0), sending(count, 0) {}
  std::uint64_t* cell(std::size_t i) { return bits.data() + i * words; }
};

struct Place {
  SymBuffer* buf;
  std::size_t offset;
};

// `count` elements, index and ranks, from one place to another that does not overlap it.
void copy_elements(const Place& from, const Place& to, std::size_t count) {
  std::copy_n(from.buf->index.begin() + static_cast<std::ptrdiff_t>(from.offset), count,
              to.buf->index.begin() + static_cast<std::ptrdiff_t>(to.offset));
  std::copy_n(from.buf->cell(from.offset), count * from.buf->words, to.buf->cell(to.offset));
}

class Player {
 public:
  Player(const SymbolicProblem& p, const std::vector<Schedule>& s)
      : p_(p), sched_(s), one_rank_(!uses_reduce_op(p.collective)) {
    words_ = one_rank_ ? 1 : (static_cast<std::size_t>(p.nranks) + 63) / 64;
    report_.elements_sent.assign(p.nranks, 0);
    report_.elements_received.assign(p.nranks, 0);
    for (int r = 0; r < p.nranks; ++r) {
      Rank st{buffer_layout(p.collective, p.count, p.nranks, r, p.root, p.in_place, p.counts), {}, {}, {}};
      st.recv.emplace_back(st.layout.recv_count, words_);
      st.send.emplace_back(st.layout.send_aliases_recv ? 0 : st.layout.send_count, words_);
      st.scratch.emplace_back(s[r].scratch_count, words_);
      ranks_.push_back(std::move(st));
      for (std::size_t i = 0; i < ranks_[r].layout.send_count; ++i) {
        Place pl = place(r, {BufferId::send, i, 1}, "initial");
        pl.buf->index[pl.offset] = static_cast<std::int64_t>(i);
        add_rank(pl.buf->cell(pl.offset), r);
      }
    }
  }

  SymbolicReport run(ExecutionOrder order) {
    for (const Schedule& s : sched_) report_.max_steps = std::max(report_.max_steps, s.span());
    cursor_.assign(sched_.size(), 0);
    if (order == ExecutionOrder::steps)
      for (std::size_t step = 0; step < report_.max_steps && !full(); ++step) play_step(step);
    else
      play_dataflow();
    if (!full()) check_final();
    return std::move(report_);
  }

 private:
  struct Rank {
    BufferLayout layout;
    std::vector<SymBuffer> recv, send, scratch;  // one each; vectors keep addresses stable
  };

  bool full() const { return report_.errors.size() > SymbolicReport::kMaxErrors; }
  void add_rank(std::uint64_t* cell, int r) const {
    if (one_rank_)
      cell[0] = static_cast<std::uint64_t>(r) + 1;
    else
      cell[r / 64] |= std::uint64_t{1} << (r % 64);
  }
  bool has_rank(const std::uint64_t* cell, int r) const {
    return one_rank_ ? cell[0] == static_cast<std::uint64_t>(r) + 1 : (cell[r / 64] >> (r % 64) & 1);
  }
  void error(const std::string& msg) {
    if (report_.errors.size() < SymbolicReport::kMaxErrors)
      report_.errors.push_back(msg);
    else if (report_.errors.size() == SymbolicReport::kMaxErrors)
      report_.errors.push_back("...");
  }

  // Resolves a region to a buffer and offset, following the in-place alias; nullptr if out of bounds.
  Place place(int r, const Region& reg, const std::string& what, const char* suffix = "") {
    Rank& st = ranks_[r];
    std::size_t limit = 0;
    Place pl{nullptr, reg.offset};
    switch (reg.buffer) {
      case BufferId::recv:
        limit = st.layout.recv_count;
        pl.buf = &st.recv[0];
        break;
      case BufferId::scratch:
        limit = st.scratch[0].index.size();
        pl.buf = &st.scratch[0];
        break;
      case BufferId::send:
        limit = st.layout.send_count;
        if (st.layout.send_aliases_recv) {
          pl.buf = &st.recv[0];
          pl.offset += st.layout.send_offset_in_recv;
        } else {
          pl.buf = &st.send[0];
        }
        break;
    }
    if (reg.offset > limit || reg.count > limit - reg.offset) {
      std::ostringstream os;
      os << "rank " << r << " " << what << suffix << ": region [" << reg.offset << "+" << reg.count
         << "] is outside its buffer of " << limit << " elements";
      error(os.str());
      pl.buf = nullptr;
    }
    return pl;
  }

  // Rank r's step numbered `step`, or nullptr where it has none; asked in increasing order.
  const Step* step_numbered(int r, std::size_t step) {
    const Schedule& s = sched_[r];
    std::size_t& k = cursor_[static_cast<std::size_t>(r)];
    while (k < s.steps.size() && s.number(k) < step) ++k;
    return k < s.steps.size() && s.number(k) == step ? &s.steps[k] : nullptr;
  }

  // A step's sends, from rank to rank: a receive reads the sender's region when it
  // matches, not a copy taken as the send starts. That is the same data: nothing
  // writes a region being sent before the step's operations run, except a receive on
  // the sending rank, which check_races reports. Sorted by channel, a channel's sends
  // in posting order, so receives match them first come first served.
  struct Sent {
    std::uint64_t channel;  // from << 32 | to
    Place where;
    std::size_t count;
    std::size_t matched = 0;  // on a channel's first send: how many of its sends are matched
  };
  static std::uint64_t channel_of(int from, int to) {
    return static_cast<std::uint64_t>(from) << 32 | static_cast<std::uint32_t>(to);
  }

  void play_step(std::size_t step) {
    const std::string at = "step " + std::to_string(step);
    sent_.clear();
    std::vector<const Step*>& now = now_;
    now.resize(static_cast<std::size_t>(p_.nranks));
    for (int r = 0; r < p_.nranks; ++r) now[static_cast<std::size_t>(r)] = step_numbered(r, step);
    for (int r = 0; r < p_.nranks; ++r) {
      if (!now[r]) continue;
      for (const Transfer& t : now[r]->sends) {
        if (t.peer < 0 || t.peer >= p_.nranks || t.peer == r) {
          error("rank " + std::to_string(r) + " " + at + ": send to invalid peer " + std::to_string(t.peer));
          continue;
        }
        Place pl = place(r, t.region, at, " send");
        if (!pl.buf) continue;
        report_.elements_sent[r] += t.region.count;
        sent_.push_back({channel_of(r, t.peer), pl, t.region.count});
      }
    }
    std::stable_sort(sent_.begin(), sent_.end(), [](const Sent& a, const Sent& b) { return a.channel < b.channel; });
    for (int r = 0; r < p_.nranks; ++r) {
      if (!now[r]) continue;
      const Step& st = *now[r];
      check_races(r, st, at);
      for (const Transfer& t : st.recvs) receive(r, t, at);
    }
    for (std::size_t i = 0; i < sent_.size();) {  // channel by channel
      std::size_t end = i + 1;
      while (end < sent_.size() && sent_[end].channel == sent_[i].channel) ++end;
      if (const std::size_t left = end - i - sent_[i].matched)
        error("rank " + std::to_string(sent_[i].channel >> 32) + " " + at + ": " + std::to_string(left) +
              " send(s) to rank " + std::to_string(sent_[i].channel & 0xffffffffu) + " have no matching receive");
      i = end;
    }
    for (int r = 0; r < p_.nranks; ++r)
      if (now[r])
        for (const LocalOp& op : now[r]->ops) local(r, op, at);
  }

  // --- Dataflow order: every rank starts what its plan allows (dataflow.hpp); a transfer
  // completes only when nothing else can happen, the latest any real transport could
  // complete it. A posted receive's region holds nothing readable until it completes,
  // and a region being sent must not change until the send completes: both are checked.
  static constexpr std::int64_t kPending = -2;  // index of an element a posted receive will write
  const std::string kDataflowOrder = "in dataflow order";

  struct Flat {  // one rank's transfers in plan order, with where they are
    std::vector<const Transfer*> recvs, sends;
    std::vector<std::pair<std::size_t, const LocalOp*>> ops;  // step, operation
  };
  struct Flow {
    DataflowPlan plan;
    Flat flat;
    FlowProgress progress;  // the executor's rule for what may start
  };

  // Started, not yet matched transfers between one sender and one receiver, in start order.
  // (Queues as vectors read from a head: an all-to-all at 1000 ranks opens a million
  // channels, and an empty deque already allocates.)
  struct Queue {
    std::vector<std::size_t> items;
    std::size_t head = 0;
    bool empty() const { return head == items.size(); }
    std::size_t pop() { return items[head++]; }
  };
  struct Channel {
    int from = 0, to = 0;
    Queue sent, posted;
    bool listed = false;  // in Matching::matchable
  };
  struct Matching {
    std::unordered_map<std::uint64_t, Channel> channels;
    std::deque<Channel*> matchable;  // channels holding a pair
    Channel& at(int from, int to) {
      Channel& c = channels[static_cast<std::uint64_t>(from) << 32 | static_cast<std::uint32_t>(to)];
      c.from = from;
      c.to = to;
      return c;
    }
    void list(Channel& c) {
      if (!c.listed && !c.sent.empty() && !c.posted.empty()) c.listed = true, matchable.push_back(&c);
    }
    void sent_on(int from, int to, std::size_t i) {
      Channel& c = at(from, to);
      c.sent.items.push_back(i);
      list(c);
    }
    void posted_on(int from, int to, std::size_t i) {
      Channel& c = at(from, to);
      c.posted.items.push_back(i);
      list(c);
    }
  };

  void play_dataflow() {
    std::vector<Flow> flows(static_cast<std::size_t>(p_.nranks));
    for (int r = 0; r < p_.nranks; ++r) {
      Flow& f = flows[r];
      f.plan = plan_dataflow(sched_[r], ranks_[r].layout);
      for (std::size_t k = 0; k < sched_[r].steps.size(); ++k) {
        const Step& st = sched_[r].steps[k];
        for (const Transfer& t : st.recvs) f.flat.recvs.push_back(&t);
        for (const Transfer& t : st.sends) f.flat.sends.push_back(&t);
        for (const LocalOp& o : st.ops) f.flat.ops.push_back({sched_[r].number(k), &o});
      }
      f.progress = FlowProgress(f.plan);
    }
    Matching m;
    std::deque<int> work;
    std::vector<char> queued(static_cast<std::size_t>(p_.nranks), 1);
    for (int r = 0; r < p_.nranks; ++r) work.push_back(r);
    for (;;) {
      // Every rank does all it can before any transfer completes.
      while (!work.empty() && !full()) {
        const int r = work.front();
        work.pop_front();
        queued[r] = 0;
        advance(r, flows[r], m);
      }
      if (full()) return;
      if (m.matchable.empty()) {
        for (const Flow& f : flows)
          if (!f.progress.finished()) {
            error("dataflow order deadlocks: every rank waits for transfers that never match");
            return;
          }
        return;
      }
      Channel& c = *m.matchable.front();
      m.matchable.pop_front();
      c.listed = false;
      const std::size_t si = c.sent.pop(), ri = c.posted.pop();
      m.list(c);
      deliver(c.from, flows[c.from], si, c.to, flows[c.to], ri);
      for (int r : {c.from, c.to})
        if (!queued[r]) queued[r] = 1, work.push_back(r);
    }
  }

  static std::string dataflow_at(std::size_t step) { return "step " + std::to_string(step) + " (dataflow order)"; }

  void advance(int r, Flow& f, Matching& m) {
    FlowProgress& p = f.progress;
    const std::string& at = kDataflowOrder;  // error messages name the step themselves
    for (bool moved = true; moved && !full();) {
      moved = false;
      for (const FlowItem* it; (it = p.next_ready(f.plan, FlowQueue::recvs)); p.start(FlowQueue::recvs), moved = true) {
        const std::size_t i = p.started(FlowQueue::recvs);
        const Transfer& t = *f.flat.recvs[i];
        if (overwrites_send(r, t.region))
          error("rank " + std::to_string(r) + " " + dataflow_at(it->step) +
                ": a receive is posted over a region still being sent");
        Place pl = place(r, t.region, at, " recv");
        if (pl.buf)
          std::fill_n(pl.buf->index.begin() + static_cast<std::ptrdiff_t>(pl.offset), t.region.count, kPending);
        m.posted_on(t.peer, r, i);
      }
      for (const FlowItem* it; (it = p.next_ready(f.plan, FlowQueue::sends)); p.start(FlowQueue::sends), moved = true) {
        const std::size_t i = p.started(FlowQueue::sends);
        const Transfer& t = *f.flat.sends[i];
        if (reads_pending(r, t.region))
          error("rank " + std::to_string(r) + " " + dataflow_at(it->step) +
                ": sends a region whose receive has not completed");
        m.sent_on(r, t.peer, i);
        mark_sending(r, t.region, 1);
      }
      if (p.next_ready(f.plan, FlowQueue::ops)) {
        const auto [step, op] = f.flat.ops[p.started(FlowQueue::ops)];
        if (reads_pending(r, op->a) || (op->kind == LocalOp::Kind::reduce && reads_pending(r, op->b)))
          error("rank " + std::to_string(r) + " " + dataflow_at(step) +
                ": an operation reads a region whose receive has not completed");
        if (overwrites_send(r, op->dst))
          error("rank " + std::to_string(r) + " " + dataflow_at(step) +
                ": an operation overwrites a region still being sent");
        local(r, *op, dataflow_at(step));
        p.start(FlowQueue::ops);
        moved = true;
      }
    }
  }

  bool reads_pending(int r, const Region& reg) {
    Place pl = place(r, reg, kDataflowOrder, "");
    if (!pl.buf) return false;
    const auto first = pl.buf->index.begin() + static_cast<std::ptrdiff_t>(pl.offset);
    return std::find(first, first + static_cast<std::ptrdiff_t>(reg.count), kPending) !=
           first + static_cast<std::ptrdiff_t>(reg.count);
  }

  bool overwrites_send(int r, const Region& reg) {
    Place w = place(r, reg, kDataflowOrder, "");
    if (!w.buf) return false;
    const auto first = w.buf->sending.begin() + static_cast<std::ptrdiff_t>(w.offset);
    return std::any_of(first, first + static_cast<std::ptrdiff_t>(reg.count), [](std::uint32_t n) { return n > 0; });
  }

  void mark_sending(int r, const Region& reg, int delta) {
    Place pl = place(r, reg, kDataflowOrder, "");
    if (!pl.buf) return;
    for (std::size_t i = 0; i < reg.count; ++i) pl.buf->sending[pl.offset + i] += static_cast<std::uint32_t>(delta);
  }

  // The send's data as it is now (at completion) lands in the receive's region.
  void deliver(int from, Flow& fs, std::size_t si, int to, Flow& fr, std::size_t ri) {
    const Transfer& s = *fs.flat.sends[si];
    const Transfer& t = *fr.flat.recvs[ri];
    const std::string& at = kDataflowOrder;
    mark_sending(from, s.region, -1);
    fs.progress.complete_transfer(FlowQueue::sends, si);
    fr.progress.complete_transfer(FlowQueue::recvs, ri);
    if (s.region.count != t.region.count) {
      error("rank " + std::to_string(to) + " " + dataflow_at(fr.plan.of(FlowQueue::recvs)[ri].step) + ": receives " +
            std::to_string(t.region.count) + " elements from rank " + std::to_string(from) + " which sends " +
            std::to_string(s.region.count));
      return;
    }
    Place src = place(from, s.region, at, " send"), dst = place(to, t.region, at, " recv");
    if (!src.buf || !dst.buf) return;
    copy_elements(src, dst, t.region.count);
    report_.elements_sent[from] += s.region.count;
    report_.elements_received[to] += t.region.count;
  }

  // Within one step, no two receives may write the same element and no receive may
  // write an element being sent. Sorted by place and swept, not compared pairwise: a
  // hierarchical all-to-all's leader posts n^2/nodes receives in one step.
  struct Span {
    const SymBuffer* buf;
    std::size_t begin, end;
    bool operator<(const Span& o) const { return buf != o.buf ? std::less<>()(buf, o.buf) : begin < o.begin; }
  };
  std::vector<Span> spans_of(int r, const std::vector<Transfer>& transfers, const std::string& at, const char* what) {
    std::vector<Span> out;
    for (const Transfer& t : transfers) {
      Place pl = place(r, t.region, at, what);
      if (pl.buf && t.region.count) out.push_back({pl.buf, pl.offset, pl.offset + t.region.count});
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  void check_races(int r, const Step& st, const std::string& at) {
    const std::vector<Span> recvs = spans_of(r, st.recvs, at, " recv");
    for (std::size_t i = 1; i < recvs.size(); ++i)
      if (recvs[i].buf == recvs[i - 1].buf && recvs[i].begin < recvs[i - 1].end) {
        error("rank " + std::to_string(r) + " " + at + ": two receives write overlapping regions");
        break;
      }
    // The sends merged into disjoint runs; a receive overlaps a send where it overlaps
    // the last run that begins before the receive ends.
    std::vector<Span> sent;
    for (const Span& s : spans_of(r, st.sends, at, " send"))
      if (!sent.empty() && sent.back().buf == s.buf && s.begin <= sent.back().end)
        sent.back().end = std::max(sent.back().end, s.end);
      else
        sent.push_back(s);
    for (const Span& a : recvs) {
      const auto after = std::upper_bound(sent.begin(), sent.end(), Span{a.buf, a.end - 1, 0});
      if (after != sent.begin() && std::prev(after)->buf == a.buf && std::prev(after)->end > a.begin) {
        error("rank " + std::to_string(r) + " " + at + ": a receive overwrites a region being sent");
        break;
      }
    }
  }

  void receive(int r, const Transfer& t, const std::string& at) {
    const std::uint64_t channel = channel_of(t.peer, r);
    const auto first = std::lower_bound(sent_.begin(), sent_.end(), channel,
                                        [](const Sent& s, std::uint64_t c) { return s.channel < c; });
    const auto next = first == sent_.end() ? first : first + static_cast<std::ptrdiff_t>(first->matched);
    if (next >= sent_.end() || next->channel != channel) {
      error("rank " + std::to_string(r) + " " + at + ": receive from rank " + std::to_string(t.peer) +
            " has no matching send");
      return;
    }
    ++first->matched;
    if (next->count != t.region.count) {
      error("rank " + std::to_string(r) + " " + at + ": receives " + std::to_string(t.region.count) +
            " elements from rank " + std::to_string(t.peer) + " which sends " + std::to_string(next->count));
      return;
    }
    Place pl = place(r, t.region, at, " recv");
    if (!pl.buf) return;
    copy_elements(next->where, pl, t.region.count);
    report_.elements_received[r] += t.region.count;
  }

  void local(int r, const LocalOp& op, const std::string& at) {
    const bool is_reduce = op.kind == LocalOp::Kind::reduce;
    const char* kind = is_reduce ? " reduce" : " copy";
    auto who = [&] { return "rank " + std::to_string(r) + " " + at + kind; };  // built only for errors
    if (op.a.count != op.dst.count || (is_reduce && op.b.count != op.dst.count)) {
      error(who() + ": regions of different lengths");
      return;
    }
    Place d = place(r, op.dst, at, kind), a = place(r, op.a, at, kind);
    Place b = is_reduce ? place(r, op.b, at, kind) : Place{nullptr, 0};
    if (!d.buf || !a.buf || (is_reduce && !b.buf)) return;
    if (is_reduce && one_rank_) {  // no element of its result holds two ranks' data
      error(who() + ": reduces in " + std::string(collective_name(p_.collective)) +
            ", whose every result element is one rank's");
      return;
    }
    // A copy between places that do not overlap: every element defined up to the first
    // that is not, moved at once.
    if (!is_reduce && (d.buf != a.buf || d.offset >= a.offset + op.dst.count || a.offset >= d.offset + op.dst.count)) {
      const auto first = a.buf->index.begin() + static_cast<std::ptrdiff_t>(a.offset);
      const auto undefined = std::find_if(first, first + static_cast<std::ptrdiff_t>(op.dst.count),
                                          [](std::int64_t index) { return index < 0; });
      copy_elements(a, d, static_cast<std::size_t>(undefined - first));
      if (undefined != first + static_cast<std::ptrdiff_t>(op.dst.count))
        error(who() + ": reads undefined element " + std::to_string(op.a.offset + (undefined - first)));
      return;
    }
    std::vector<std::uint64_t>& tmp = tmp_;
    tmp.resize(words_);
    for (std::size_t i = 0; i < op.dst.count; ++i) {
      std::int64_t ia = a.buf->index[a.offset + i];
      const std::uint64_t* ca = a.buf->cell(a.offset + i);
      if (ia < 0) {
        error(who() + ": reads undefined element " + std::to_string(op.a.offset + i));
        return;
      }
      std::copy_n(ca, words_, tmp.begin());
      if (is_reduce) {
        std::int64_t ib = b.buf->index[b.offset + i];
        const std::uint64_t* cb = b.buf->cell(b.offset + i);
        if (ib < 0 || ib != ia) {
          error(who() + ": combines element " + std::to_string(ia) + " with " +
                (ib < 0 ? std::string("undefined data") : "element " + std::to_string(ib)));
          return;
        }
        for (std::size_t w = 0; w < words_; ++w) {
          if (tmp[w] & cb[w]) {
            error(who() + ": counts a rank's contribution twice in element " + std::to_string(ia));
            return;
          }
          tmp[w] |= cb[w];
        }
      }
      d.buf->index[d.offset + i] = ia;
      std::copy(tmp.begin(), tmp.end(), d.buf->cell(d.offset + i));
    }
  }

  // Expected final contents of element i of a receive buffer: (index, ranks).
  std::int64_t expect(int rank, std::size_t i, std::vector<std::uint64_t>& want) const {
    std::fill(want.begin(), want.end(), 0);
    const ResultSource src =
        traits(p_.collective).result_of({p_.count, p_.nranks, rank, p_.root, p_.in_place, p_.counts}, i);
    if (src.all_ranks)  // only reductions, never one_rank_
      for (int k = 0; k < p_.nranks; ++k) add_rank(want.data(), k);
    else
      add_rank(want.data(), src.from);
    return static_cast<std::int64_t>(src.index);
  }

  void check_final() {
    std::vector<std::uint64_t> want(words_);
    for (int r = 0; r < p_.nranks && !full(); ++r) {
      SymBuffer& b = ranks_[r].recv[0];
      for (std::size_t i = 0; i < ranks_[r].layout.result_count; ++i) {
        const std::int64_t index = expect(r, i, want);
        const std::uint64_t* got = b.cell(i);
        if (b.index[i] != index || !std::equal(want.begin(), want.end(), got)) {
          std::ostringstream os;
          os << "rank " << r << ": final recv[" << i << "] holds element " << b.index[i] << " from " << ranks_text(got)
             << ", expected element " << index << " from " << ranks_text(want.data());
          error(os.str());
          if (full()) return;
        }
      }
    }
  }

  std::string ranks_text(const std::uint64_t* bits) const {
    std::ostringstream os;
    os << "{";
    int total = 0;
    for (int k = 0; k < p_.nranks; ++k)
      if (has_rank(bits, k)) {
        if (total < 8) os << (total ? "," : "") << k;
        ++total;
      }
    if (total > 8) os << ",... (" << total << " ranks)";
    os << "}";
    return os.str();
  }

  const SymbolicProblem& p_;
  const std::vector<Schedule>& sched_;
  std::vector<std::size_t> cursor_;  // per rank: its first step not yet played (step order)
  std::vector<const Step*> now_;     // per rank: its step being played (step order), reused
  std::vector<Sent> sent_;           // the sends of the step being played
  std::vector<std::uint64_t> tmp_;   // one element's ranks, in local()
  const bool one_rank_;  // cells hold one rank + 1, not a bitset (SymBuffer)
  std::size_t words_;
  std::vector<Rank> ranks_;
  SymbolicReport report_;
};

}  // namespace

SymbolicReport play_schedules(const SymbolicProblem& p, const std::vector<Schedule>& schedules, ExecutionOrder order) {
  if (static_cast<int>(schedules.size()) != p.nranks) {
    SymbolicReport r;
    r.errors.push_back("expected one schedule per rank");
    return r;
  }
  return Player(p, schedules).run(order);
}

SymbolicReport verify_builder(const SymbolicProblem& p, ScheduleBuilder build, const AlgorithmParams& params) {
  std::vector<Schedule> schedules;
  schedules.reserve(p.nranks);
  for (int r = 0; r < p.nranks; ++r)
    schedules.push_back(build({p.collective, p.nranks, r, p.count, p.root, 4, &params, p.in_place, p.counts}));
  SymbolicReport steps = play_schedules(p, schedules, ExecutionOrder::steps);
  if (!steps.ok()) return steps;
  return play_schedules(p, schedules, ExecutionOrder::dataflow);
}

}  // namespace collbench
