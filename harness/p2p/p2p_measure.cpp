#include "harness/p2p/p2p_measure.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstring>

#include "collectives/kernels/reduce_kernels.hpp"
#include "collectives/process/progress.hpp"

namespace collbench {
namespace {

constexpr std::size_t kAckBytes = 4;  // as osu_bw's

std::byte pattern_byte(std::size_t i, int seed) {
  return static_cast<std::byte>((i * 131 + static_cast<std::size_t>(seed)) & 0xff);
}

class PairLink {
 public:
  PairLink(Transport& t, P2pBuffers& b, const LinkPair& pair)
      : t_(t), b_(b), peer_(t.rank() == pair.first ? pair.second : pair.first), leads_(t.rank() == pair.first) {}
  bool leads() const { return leads_; }
  void send(std::size_t bytes) { t_.wait(t_.start_send({peer_, b_.send.data(), bytes})); }
  void recv(std::size_t bytes) { t_.wait(t_.start_recv({peer_, b_.recv.data(), bytes})); }

  // One iteration; returns its seconds per message on the leading rank.
  double iterate(P2pTest test, std::size_t bytes, int window) {
    if (test == P2pTest::written) rewrite(bytes);
    const double t0 = MPI_Wtime();
    if (test == P2pTest::latency) {
      if (leads_)
        send(bytes), recv(bytes);
      else
        recv(bytes), send(bytes);
      return (MPI_Wtime() - t0) / 2;
    }
    if (test == P2pTest::exchange || test == P2pTest::written || test == P2pTest::busy) {
      tickets_.assign({t_.start_recv({peer_, b_.recv.data(), bytes}), t_.start_send({peer_, b_.send.data(), bytes})});
      if (test == P2pTest::busy) sum_f32(bytes);
      t_.wait_all(tickets_);
      return MPI_Wtime() - t0;
    }
    if (test == P2pTest::pair) return first_of_two(bytes) - t0;
    if (test == P2pTest::rewrite) {
      tickets_.assign({t_.start_recv({peer_, b_.recv.data(), bytes}), t_.start_send({peer_, b_.send.data(), bytes})});
      t_.wait_all(tickets_);
      const double t1 = MPI_Wtime();
      sum_f32(bytes, b_.send.data());
      return MPI_Wtime() - t1;
    }
    tickets_.clear();
    for (int i = 0; i < window; ++i)
      tickets_.push_back(leads_ ? t_.start_send({peer_, b_.send.data(), bytes})
                                : t_.start_recv({peer_, b_.recv.data(), bytes}));
    t_.wait_all(tickets_);
    if (leads_)
      recv(kAckBytes);
    else
      send(kAckBytes);
    return (MPI_Wtime() - t0) / window;
  }

  // Two messages of `bytes` from the peer in flight at once: when the first arrives, on
  // the leading rank. The peer sends both as soon as a 4-byte go from the leading rank,
  // whose receives are posted by then, arrives.
  double first_of_two(std::size_t bytes) {
    double first = 0;
    if (leads_) {
      tickets_.assign(
          {t_.start_recv({peer_, b_.recv.data(), bytes}), t_.start_recv({peer_, b_.recv.data() + bytes, bytes})});
      t_.wait(t_.start_send({peer_, b_.control.data(), kAckBytes}));
      const std::size_t i = t_.wait_any(tickets_).index;
      first = MPI_Wtime();
      t_.wait(tickets_[1 - i]);
    } else {
      t_.wait(t_.start_recv({peer_, b_.control.data(), kAckBytes}));
      tickets_.assign({t_.start_send({peer_, b_.send.data(), bytes}), t_.start_send({peer_, b_.send.data(), bytes})});
      t_.wait_all(tickets_);
      first = MPI_Wtime();
    }
    return first;
  }

  // Written: each rank rewrites every byte it sends just before, untimed, with the
  // collectives' reduction kernel (i32 sum, in place), as a step sends what the call
  // reduced moments earlier: stored as the kernel stores (through this core's cache, or
  // past it from the size where the kernel streams), where a receiver on another core
  // must fetch it. memset's string stores need not leave the lines the same way.
  void rewrite(std::size_t bytes) {
    std::byte* p = b_.send.data();
    const std::size_t words = bytes / sizeof(std::int32_t);
    reduce(DType::i32, ReduceOp::sum, p, p, p, words);
    for (std::size_t i = words * sizeof(std::int32_t); i < bytes; ++i) p[i] = static_cast<std::byte>(++writes_);
  }

  // f32 a + b of `bytes` from arrays of its own, stored into `dst` (null: a third array of
  // its own). Busy: as a collective's step reduces one block while the next arrives.
  // Rewrite: into the send buffer the peer received from a moment ago, as a collective's
  // reduction stores into a block it sends; where the receiver read those lines from this
  // rank's memory (shared memory's single copy), each store first takes its line back.
  void sum_f32(std::size_t bytes, std::byte* dst = nullptr) {
    const std::size_t count = bytes / sizeof(float);
    if (work_.size() < 3 * count) work_.assign(3 * count, 1.0f);
    void* out = dst ? static_cast<void*>(dst) : static_cast<void*>(work_.data() + 2 * count);
    reduce(DType::f32, ReduceOp::sum, out, work_.data(), work_.data() + count, count);
  }

  // Untimed, before an iteration timed per call: both ranks send and receive 4 bytes (a
  // 2-rank barrier's messages), so the link idles between iterations as between calls.
  void meet() {
    tickets_.assign({t_.start_recv({peer_, b_.control.data() + kAckBytes, kAckBytes}),
                     t_.start_send({peer_, b_.control.data(), kAckBytes})});
    t_.wait_all(tickets_);
  }

  // The leading rank's iteration count reaches the other through the transport.
  int agree(int iters) {
    std::int64_t n = iters;
    if (leads_) {
      std::memcpy(b_.control.data(), &n, sizeof n);
      t_.wait(t_.start_send({peer_, b_.control.data(), sizeof n}));
    } else {
      t_.wait(t_.start_recv({peer_, b_.control.data(), sizeof n}));
      std::memcpy(&n, b_.control.data(), sizeof n);
    }
    return static_cast<int>(n);
  }

  // One message each way with known bytes; returns the wrong bytes this rank received.
  std::int64_t checked_exchange(std::size_t bytes, int seed) {
    std::byte* out = b_.send.data();
    std::byte* in = b_.recv.data();
    const int mine = seed * 2 + (leads_ ? 0 : 1), theirs = seed * 2 + (leads_ ? 1 : 0);
    for (std::size_t i = 0; i < bytes; ++i) out[i] = pattern_byte(i, mine);
    std::memset(in, 0xA5, bytes);
    if (leads_)
      send(bytes), recv(bytes);
    else
      recv(bytes), send(bytes);
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < bytes; ++i) wrong += in[i] != pattern_byte(i, theirs);
    return wrong;
  }

 private:
  Transport& t_;
  P2pBuffers& b_;
  int peer_;
  bool leads_;
  std::vector<Ticket> tickets_;
  unsigned writes_ = 0;
  std::vector<float> work_;
};

}  // namespace

std::vector<LinkPair> choose_pairs(const std::vector<int>& node_of_rank) {
  std::vector<LinkPair> out;
  const auto n = static_cast<int>(node_of_rank.size());
  for (int r = 1; r < n; ++r)
    if (node_of_rank[static_cast<std::size_t>(r)] == node_of_rank[0]) {
      out.push_back({"intra-host", 0, r});
      break;
    }
  for (int r = 1; r < n; ++r)
    if (node_of_rank[static_cast<std::size_t>(r)] != node_of_rank[0]) {
      out.push_back({"inter-host", 0, r});
      break;
    }
  return out;
}

P2pBuffers::P2pBuffers(Transport& t, std::size_t max_bytes, std::size_t receives_at_once)
    : send(t.allocate(std::max(max_bytes, kAckBytes))),
      recv(t.allocate(receives_at_once * std::max(max_bytes, kAckBytes))),
      control(t.allocate(64)) {}

PairRound run_pair_round(Transport& t, P2pBuffers& b, const LinkPair& pair, P2pTest test, std::size_t bytes, int window,
                         const Repetitions& reps, TimingPolicy timing, int round, bool check) {
  PairLink link(t, b, pair);
  PairRound out;
  out.warmup = reps.warmup_at(bytes);
  const double estimate = warm_up(out.warmup, [&] { link.iterate(test, bytes, window); });
  const int iters = link.agree(reps.iters_at(bytes, estimate));
  out.us.reserve(static_cast<std::size_t>(iters));
  for (int i = 0; i < iters; ++i) {
    progress::set_call("timed iteration", i, iters);
    if (timing == TimingPolicy::per_call) link.meet();
    out.us.push_back(link.iterate(test, bytes, window) * 1e6);
  }
  if (check) out.wrong = link.checked_exchange(bytes, round);
  progress::beat();
  if (!link.leads()) out.us.clear();
  return out;
}

}  // namespace collbench
