#include "harness/run/bound.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "collectives/kernels/reduce_kernels.hpp"
#include "collectives/transport/memory_space.hpp"

namespace collbench {
namespace {

// Bytes in flight per exchange call: enough messages to amortise per-message latency
// for small blocks (OSU's window is 64), but no more than stays in cache: a window of
// 32 x 256 KiB (8 MiB) made the exchange 1.5x slower here than one message at a time,
// which would have put the "bound" below what the ring itself reached.
constexpr std::size_t kWindowBytes = std::size_t{256} << 10;
constexpr int kMaxWindow = 64;

// Each call exchanges the next window of blocks of its buffers, wrapping around, so
// successive calls touch the whole working set as the algorithms do. With `fuse`, each
// receive is reduced as it arrives: recv = send op sent, block by block. Before each timed
// call, untimed: with `rewrite_from` (host memory) the rank writes its send blocks again
// from there (the same values), so its receiver reads lines modified in the sender's
// cache; with `read_back` its left neighbour reads its receive blocks (into `read_back`),
// so the rank's stores there first take the lines back.
class ExchangeProbe final : public PreparedCollective {
 public:
  ExchangeProbe(Transport& t, std::byte* send, std::byte* recv, std::size_t bytes, int window, std::size_t slots,
                std::optional<ReceiveReduction> fuse = std::nullopt, const std::byte* rewrite_from = nullptr,
                std::byte* read_back = nullptr)
      : t_(t),
        send_(send),
        recv_(recv),
        bytes_(bytes),
        window_(window),
        slots_(slots),
        fuse_(fuse),
        rewrite_from_(rewrite_from),
        read_back_(read_back) {}
  bool prepares_each_call() const override { return rewrite_from_ != nullptr || read_back_ != nullptr; }
  void before_call() override {
    if (rewrite_from_)
      for (int i = 0; i < window_; ++i) std::memcpy(send_ + slot(i) * bytes_, rewrite_from_ + slot(i) * bytes_, bytes_);
    if (read_back_) exchange_window(right(), read_back_, left(), recv_, false);
  }
  void run() override {
    exchange_window(left(), recv_, right(), send_, fuse_.has_value());
    next_ = (next_ + static_cast<std::size_t>(window_)) % slots_;
  }

 private:
  Transport& t_;
  std::byte *send_, *recv_;
  std::size_t bytes_;
  int window_;
  std::size_t slots_, next_ = 0;
  std::optional<ReceiveReduction> fuse_;
  const std::byte* rewrite_from_;
  std::byte* read_back_;
  std::vector<Ticket> tickets_;
  std::size_t slot(int i) const { return (next_ + static_cast<std::size_t>(i)) % slots_; }
  int left() const { return (t_.rank() + t_.size() - 1) % t_.size(); }
  int right() const { return (t_.rank() + 1) % t_.size(); }
  // The window's receives from `from` into `into` (reduced with this rank's `out` blocks
  // where `fused`: into = out op received) and its sends of `out` to `to`, waited for.
  void exchange_window(int from, std::byte* into, int to, std::byte* out, bool fused) {
    tickets_.clear();
    for (int i = 0; i < window_; ++i) {
      const Message in{from, into + slot(i) * bytes_, bytes_};
      if (!fused) {
        tickets_.push_back(t_.start_recv(in));
        continue;
      }
      ReceiveReduction r = *fuse_;
      r.local = out + slot(i) * bytes_;
      tickets_.push_back(t_.start_recv_reduce(in, r));
    }
    for (int i = 0; i < window_; ++i) tickets_.push_back(t_.start_send({to, out + slot(i) * bytes_, bytes_}));
    t_.wait_all(tickets_);
  }
};

// Reduces the next block of `a` into the next block of `dst` with a fixed `b` (the block
// a ring step has just received), wrapping around.
class ReduceProbe final : public PreparedCollective {
 public:
  ReduceProbe(DType t, ReduceOp op, std::byte* dst, const std::byte* a, const std::byte* b, std::size_t count,
              std::size_t slots)
      : t_(t), op_(op), dst_(dst), a_(a), b_(b), count_(count), slots_(slots) {}
  void run() override {
    const std::size_t at = next_ * count_ * dtype_size(t_);
    collbench::reduce(t_, op_, dst_ + at, a_ + at, b_, count_);
    next_ = (next_ + 1) % slots_;
  }

 private:
  DType t_;
  ReduceOp op_;
  std::byte* dst_;
  const std::byte *a_, *b_;
  std::size_t count_, slots_, next_ = 0;
};

}  // namespace

bool has_bound(Collective c) {
  return c == Collective::allreduce || c == Collective::reduce_scatter || c == Collective::allgather;
}

std::string bound_formula(Collective c) {
  switch (c) {
    case Collective::allreduce: return "2(n-1) t_exchange(N/n) + (n-1) t_reduce(N/n)";
    case Collective::reduce_scatter: return "(n-1) (t_exchange(block) + t_reduce(block))";
    case Collective::allgather: return "(n-1) t_exchange(block)";
    default: return "";
  }
}

std::size_t bound_block_bytes(Collective c, std::size_t count, int nranks, std::size_t elem) {
  const auto n = static_cast<std::size_t>(nranks);
  // Allreduce cuts the per-rank buffer into n blocks (the largest decides); the
  // others' count is already one rank's block.
  return (c == Collective::allreduce ? (count + n - 1) / n : count) * elem;
}

// The probes read the algorithms' own input values, never zeros: here zero-filled
// buffers made the fused receive of 16 MiB up to 1.3x faster than the same receive of
// real values (recursive doubling 0.77-0.94 of its bound against 0.98-1.02), which no
// run can reach.
BoundProbes::BoundProbes(Transport& transport, const InputSpec& inputs, std::size_t max_block_bytes, int blocks,
                         std::size_t max_memory_bytes)
    : transport_(transport), dtype_(inputs.dtype), op_(inputs.op), blocks_(std::max(blocks, 1)) {
  const int me = transport.rank(), left = (me + transport.size() - 1) % transport.size();
  const std::size_t elem = dtype_size(dtype_);
  if (max_memory_bytes > 0) {  // over shm (host memory), where a receive reads the sender's buffer in place
    memory_send_ = transport.allocate(max_memory_bytes);
    memory_recv_ = transport.allocate(max_memory_bytes);
    memory_read_back_ = transport.allocate(max_memory_bytes);
  }
  const std::size_t set_bytes = max_block_bytes * static_cast<std::size_t>(blocks_);
  const std::size_t window_bytes = std::max(max_block_bytes, std::min(kWindowBytes, kMaxWindow * max_block_bytes));
  send_ = transport.allocate(std::max<std::size_t>({window_bytes, set_bytes, 1}));
  recv_ = transport.allocate(send_.size());
  // This rank's inputs are computed once (a_, the reduce probe's operand) and copied into
  // both send buffers, which hold a prefix of them.
  a_.resize(std::max(send_.size(), max_memory_bytes));
  fill_input(inputs, me, a_.data(), a_.size() / elem);
  b_.resize(std::max<std::size_t>(max_block_bytes, 1));
  fill_input(inputs, left, b_.data(), b_.size() / elem);  // the block a ring step has just received
  std::vector<std::byte> mirror;
  auto load = [&](const OwnedBuffer& input, const OwnedBuffer& output) {
    MemorySpace& space = transport.memory();
    const std::size_t bytes = input.size();
    write_via_host(space, input.data(), bytes, mirror, [&](std::byte* p) { std::memcpy(p, a_.data(), bytes); });
    write_via_host(space, output.data(), bytes, mirror, [&](std::byte* p) { poison(p, bytes); });
  };
  load(send_, recv_);
  if (max_memory_bytes > 0) load(memory_send_, memory_recv_);
}

int BoundProbes::window(std::size_t block_bytes) {
  if (block_bytes == 0) return 1;
  return static_cast<int>(std::clamp<std::size_t>(kWindowBytes / block_bytes, 1, kMaxWindow));
}

// Slots of `block_bytes` the walk goes through: the collective's n blocks, or the
// window's if more.
std::unique_ptr<PreparedCollective> BoundProbes::exchange(std::size_t block_bytes) {
  const int w = window(block_bytes);
  const std::size_t slots = std::max<std::size_t>(static_cast<std::size_t>(std::max(blocks_, w)), 1);
  return std::make_unique<ExchangeProbe>(transport_, send_.data(), recv_.data(), block_bytes, w, slots);
}

std::string memory_probe_name(std::size_t kind) {
  std::string name = kind_reduces(kind) ? "reduce" : "copy";
  if (kind_source_written(kind)) name += "_written";
  if (kind_into_sent(kind)) name += "_into_sent";
  return name;
}

// The memory-traffic bound's rates: every rank receives its whole per-rank buffer out of
// its left neighbour's send buffer at once, as one plain receive (a copy out of the
// sender's buffer) or one fused (recv = send op sent), the operations the bound counts,
// over the same four buffers per pair as the algorithms' (in place, with private buffers,
// it left out the destination's reads for ownership and the other core's lines: 0.76 at
// 1 MiB). The written and into-sent kinds prepare those lines first, untimed: where the
// two cores shared no cache, a bound priced at the plain rates put the ring, which reduces
// into the block it sends next and copies what its peer has just reduced, at 0.3 of it
// (results/shm).
std::unique_ptr<PreparedCollective> BoundProbes::memory(std::size_t kind, std::size_t bytes) {
  if (bytes > memory_send_.size()) throw std::logic_error("memory probe larger than its buffers");
  std::optional<ReceiveReduction> fuse;
  if (kind_reduces(kind)) fuse = ReceiveReduction{dtype_, op_, nullptr, false};
  // Memory probes run over shm only, whose buffers are host memory: a_ holds this rank's inputs.
  const std::byte* rewrite_from = kind_source_written(kind) ? a_.data() : nullptr;
  std::byte* read_back = kind_into_sent(kind) ? memory_read_back_.data() : nullptr;
  return std::make_unique<ExchangeProbe>(transport_, memory_send_.data(), memory_recv_.data(), bytes, 1, 1, fuse,
                                         rewrite_from, read_back);
}

std::unique_ptr<PreparedCollective> BoundProbes::reduce(std::size_t block_bytes) {
  return std::make_unique<ReduceProbe>(dtype_, op_, recv_.data(), a_.data(), b_.data(),
                                       block_bytes / dtype_size(dtype_), static_cast<std::size_t>(blocks_));
}

double add_memory_bound(ResultRow& row, const std::vector<MemoryWork>& ranks, std::size_t probe_bytes,
                        const MemoryProbeP50s& p50_us) {
  // Microseconds per byte of output, every rank at once.
  const double bytes = static_cast<double>(std::max<std::size_t>(probe_bytes, 1));
  auto time_of = [&](const MemoryWork& w) {
    double t = 0;
    for (std::size_t k = 0; k < kMemoryKinds; ++k) t += static_cast<double>(w.by_kind[k]) * p50_us[k] / bytes;
    return t;
  };
  double bound_us = 0;
  MemoryWork busiest;
  for (const MemoryWork& w : ranks) {
    const double t = time_of(w);
    if (t >= bound_us) bound_us = t, busiest = w;
  }
  const double share = row.time_us.p50 > 0 ? bound_us / row.time_us.p50 : 0.0;
  row.extra.push_back({"memory_bound_us", bound_us});
  row.extra.push_back({"of_memory_bound", share});
  nlohmann::json by_kind = nlohmann::json::object(), gbps = nlohmann::json::object();
  for (std::size_t k = 0; k < kMemoryKinds; ++k) {
    const std::string name = memory_probe_name(k);
    if (busiest.by_kind[k] > 0) by_kind[name] = busiest.by_kind[k];
    const double moved = (kind_reduces(k) ? 3.0 : 2.0) * bytes;
    gbps[name] = p50_us[k] > 0 ? moved / p50_us[k] / 1e3 : 0.0;
  }
  row.details["memory_bound"] = {
      {"bound_us", bound_us},
      {"busiest_rank_copied_bytes", busiest.copied()},
      {"busiest_rank_reduced_bytes", busiest.reduced()},
      {"busiest_rank_bytes_by_kind", by_kind},
      {"traffic_bytes", busiest.traffic()},
      {"probe_bytes", probe_bytes},
      {"probe_gbps", gbps},
      {"meaning",
       "what the busiest rank copies and reduces running this schedule, each byte at the rate the memory probe of its "
       "kind reached with every rank at once, each receiving its whole buffer out of its left neighbour's send "
       "buffer (copy: recv = sent; reduce: recv = send op sent); written: received bytes their sender writes in the "
       "call, probed from a buffer its owner has just written again; into_sent: stored into bytes this rank sends "
       "(a peer's core reads them), probed into a buffer the neighbour has just read; gbps count bytes read and "
       "written"}};
  return share;
}

std::vector<double> combine_bound(Collective c, int nranks, std::vector<double> exchange, std::vector<double> reduce) {
  if (exchange.size() != reduce.size()) throw std::logic_error("bound probes timed different numbers of calls");
  std::sort(exchange.begin(), exchange.end());
  std::sort(reduce.begin(), reduce.end());
  const double steps = nranks - 1;
  const double exchanges = c == Collective::allreduce ? 2 * steps : steps;
  const double reductions = c == Collective::allgather ? 0 : steps;
  std::vector<double> out(exchange.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = exchanges * exchange[i] + reductions * reduce[i];
  return out;
}

}  // namespace collbench
