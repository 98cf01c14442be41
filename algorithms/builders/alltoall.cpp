// All-to-all (alltoall, and alltoallv over PeerBlocks): linear, pairwise exchange,
// Bruck, and a hierarchical one through node leaders.
#include <cstddef>

#include "algorithms/catalog.hpp"
#include "algorithms/phases/nodes.hpp"
#include "algorithms/phases/schedule_writer.hpp"

namespace collbench {
namespace {

// Where this rank's blocks are read from and written to. In place, receives would
// overwrite blocks not yet sent, so the input is first set aside in scratch (one step
// of its own: a step's operations run after its transfers) and sent from there.
struct Blocks {
  PeerBlocks b;
  int me;
  bool in_place;
  std::size_t first_step = 0;  // the first step that may move data

  Blocks(const ScheduleRequest& q, ScheduleWriter& w, std::size_t scratch_at = 0)
      : b(q.blocks()), me(q.rank), in_place(q.in_place), scratch_at_(scratch_at) {
    if (!in_place) return;
    const std::size_t total = b.recv_total(me);
    w.need_scratch(scratch_at + total);
    w.copy(0, {BufferId::scratch, scratch_at, total}, {BufferId::send, 0, total});
    first_step = 1;
  }
  std::size_t count_to(int p) const { return b.count(me, p); }
  std::size_t count_from(int p) const { return b.count(p, me); }
  Region source(int p) const {
    const Region own{BufferId::send, b.send_offset(me, p), count_to(p)};
    return in_place ? Region{BufferId::scratch, scratch_at_ + own.offset, own.count} : own;
  }
  Region target(int p) const { return {BufferId::recv, b.recv_offset(me, p), count_from(p)}; }
  // The rank's own block, copied at the end of `step` (in place it is already there).
  void keep_own(ScheduleWriter& w, std::size_t step) const {
    if (!in_place) w.copy(step, target(me), source(me));
  }

 private:
  std::size_t scratch_at_;
};

int peer_at(int me, int k, int n) { return (me + k) % n; }

}  // namespace

Schedule build_linear_all_to_all(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const Blocks x(q, w);
  const int n = q.nranks;
  // Rotated order, so that the ranks do not all send to rank 0 first.
  for (int k = 1; k < n; ++k) {
    const int to = peer_at(q.rank, k, n), from = peer_at(q.rank, n - k, n);
    w.send(x.first_step, to, x.source(to));
    w.recv(x.first_step, from, x.target(from));
  }
  x.keep_own(w, x.first_step);
  return s;
}

Schedule build_pairwise_all_to_all(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const Blocks x(q, w);
  const int n = q.nranks;
  const bool power_of_two = (n & (n - 1)) == 0;
  x.keep_own(w, x.first_step);
  for (int k = 1; k < n; ++k) {
    const int to = power_of_two ? q.rank ^ k : peer_at(q.rank, k, n);
    const int from = power_of_two ? q.rank ^ k : peer_at(q.rank, n - k, n);
    const std::size_t step = x.first_step + static_cast<std::size_t>(k - 1);
    w.send(step, to, x.source(to));
    w.recv(step, from, x.target(from));
  }
  return s;
}

// Bruck et al. (1997), equal blocks only. Block i of a working copy is first the block
// for rank me+i; in round k every block whose index has bit k set moves to rank me+2^k
// (packed into one message, so each round is one message), after which block i holds
// what rank me-i sent; a final rotation puts it in place. log2(n) messages of n/2 blocks.
Schedule build_bruck_alltoall(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const int n = q.nranks, me = q.rank;
  const std::size_t c = q.count, nb = static_cast<std::size_t>(n);
  const std::size_t half = (nb + 1) / 2 * c;
  const std::size_t work = 0, pack_out = nb * c, pack_in = pack_out + half;
  w.need_scratch(pack_in + half);
  auto block = [&](BufferId buf, std::size_t base, std::size_t i) { return Region{buf, base + i * c, c}; };
  for (int i = 0; i < n; ++i)
    w.copy(0, block(BufferId::scratch, work, static_cast<std::size_t>(i)),
           block(BufferId::send, 0, static_cast<std::size_t>(peer_at(me, i, n))));
  // Pack for round k at the end of step k, send in step k + 1, unpack at its end.
  auto repack = [&](std::size_t step, int bit, BufferId buf, std::size_t base, bool pack) {
    std::size_t slot = 0;
    for (int i = 1; i < n; ++i)
      if (i & bit) {
        const Region packed = block(buf, base, slot++),
                     working = block(BufferId::scratch, work, static_cast<std::size_t>(i));
        pack ? w.copy(step, packed, working) : w.copy(step, working, packed);
      }
    return slot * c;
  };
  std::size_t step = 0;
  for (int bit = 1; bit < n; bit <<= 1, ++step) {
    const std::size_t moved = repack(step, bit, BufferId::scratch, pack_out, true);
    w.send(step + 1, peer_at(me, bit, n), {BufferId::scratch, pack_out, moved});
    w.recv(step + 1, peer_at(me, n - bit, n), {BufferId::scratch, pack_in, moved});
    repack(step + 1, bit, BufferId::scratch, pack_in, false);
  }
  for (int i = 0; i < n; ++i)
    w.copy(step, block(BufferId::recv, 0, static_cast<std::size_t>(peer_at(me, n - i, n))),
           block(BufferId::scratch, work, static_cast<std::size_t>(i)));
  return s;
}

// Through node leaders (each node's lowest rank), so that only one message crosses
// between two nodes: (1) blocks within a node go straight to their rank, and every
// rank hands its blocks for other nodes to its leader; (2) leaders swap, per pair of
// nodes, everything one node sends the other; (3) leaders hand each rank its blocks.
// Leader scratch holds, per other node B, the blocks (member m of this node -> d in B)
// and then the blocks (m in B -> d in this node), each in (m, d) order.
Schedule build_hierarchical_all_to_all(const ScheduleRequest& q) {
  Schedule s;
  ScheduleWriter w(s);
  const Nodes nodes(q);
  const auto& mine = nodes.ranks[static_cast<std::size_t>(nodes.mine)];
  const int leader = mine.front();
  const bool leads = q.rank == leader;
  const PeerBlocks b = q.blocks();
  // Staging offsets: out[B] and in[B] for each node B, in leader scratch after the set-aside input.
  const std::size_t input = q.in_place ? b.recv_total(q.rank) : 0;
  std::vector<std::size_t> out_at(nodes.ranks.size()), in_at(nodes.ranks.size());
  std::size_t end = input;
  if (leads) {
    for (std::size_t B = 0; B < nodes.ranks.size(); ++B) {
      if (static_cast<int>(B) == nodes.mine) continue;
      out_at[B] = end;
      for (int m : mine)
        for (int d : nodes.ranks[B]) end += b.count(m, d);
      in_at[B] = end;
      for (int m : nodes.ranks[B])
        for (int d : mine) end += b.count(m, d);
    }
  }
  w.need_scratch(end);
  const Blocks x(q, w);
  const std::size_t s1 = x.first_step, s2 = s1 + 1, s3 = s1 + 2;
  // (1) Within the node, and to the leader (which copies its own into staging).
  for (int d : mine)
    if (d != q.rank) w.send(s1, d, x.source(d));
  for (int m : mine)
    if (m != q.rank) w.recv(s1, m, x.target(m));
  x.keep_own(w, s1);
  for (std::size_t B = 0; B < nodes.ranks.size(); ++B) {
    if (static_cast<int>(B) == nodes.mine) continue;
    if (!leads) {
      for (int d : nodes.ranks[B]) w.send(s1, leader, x.source(d));
      continue;
    }
    std::size_t at = out_at[B];
    for (int m : mine)
      for (int d : nodes.ranks[B]) {
        const Region staged{BufferId::scratch, at, b.count(m, d)};
        if (m == q.rank)
          w.copy(s1, staged, x.source(d));
        else
          w.recv(s1, m, staged);
        at += staged.count;
      }
    // (2) Leaders swap what their nodes send each other.
    const int other = nodes.ranks[B].front();
    w.send(s2, other, {BufferId::scratch, out_at[B], in_at[B] - out_at[B]});
    std::size_t incoming = 0;
    for (int m : nodes.ranks[B])
      for (int d : mine) incoming += b.count(m, d);
    w.recv(s2, other, {BufferId::scratch, in_at[B], incoming});
    // (3) Each of this node's ranks gets its blocks from B's ranks.
    at = in_at[B];
    for (int m : nodes.ranks[B])
      for (int d : mine) {
        const Region staged{BufferId::scratch, at, b.count(m, d)};
        if (d == q.rank)
          w.copy(s2, x.target(m), staged);
        else
          w.send(s3, d, staged);
        at += staged.count;
      }
  }
  if (!leads)
    for (std::size_t B = 0; B < nodes.ranks.size(); ++B)
      if (static_cast<int>(B) != nodes.mine)
        for (int m : nodes.ranks[B]) w.recv(s3, leader, x.target(m));
  return s;
}

}  // namespace collbench
