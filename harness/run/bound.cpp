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
// receive is reduced as it arrives: recv = send op sent, block by block.
class ExchangeProbe final : public PreparedCollective {
 public:
  ExchangeProbe(Transport& t, std::byte* send, std::byte* recv, std::size_t bytes, int window, std::size_t slots,
                std::optional<ReceiveReduction> fuse = std::nullopt)
      : t_(t), send_(send), recv_(recv), bytes_(bytes), window_(window), slots_(slots), fuse_(fuse) {}
  void run() override {
    const int n = t_.size(), me = t_.rank();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    tickets_.clear();
    for (int i = 0; i < window_; ++i) {
      const Message in{left, recv_ + slot(i) * bytes_, bytes_};
      if (!fuse_) {
        tickets_.push_back(t_.start_recv(in));
        continue;
      }
      ReceiveReduction r = *fuse_;
      r.local = send_ + slot(i) * bytes_;
      tickets_.push_back(t_.start_recv_reduce(in, r));
    }
    for (int i = 0; i < window_; ++i) tickets_.push_back(t_.start_send({right, send_ + slot(i) * bytes_, bytes_}));
    t_.wait_all(tickets_);
    next_ = (next_ + static_cast<std::size_t>(window_)) % slots_;
  }

 private:
  Transport& t_;
  std::byte *send_, *recv_;
  std::size_t bytes_;
  int window_;
  std::size_t slots_, next_ = 0;
  std::optional<ReceiveReduction> fuse_;
  std::vector<Ticket> tickets_;
  std::size_t slot(int i) const { return (next_ + static_cast<std::size_t>(i)) % slots_; }
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

// The memory-traffic bound's rates: every rank receives its whole per-rank buffer out of
// its left neighbour's send buffer at once, as one plain receive (a copy out of the
// sender's buffer) or one fused (recv = send op sent), the operations the bound counts,
// over the same four buffers per pair as the algorithms' (in place, with private buffers,
// it left out the destination's reads for ownership and the other core's lines: 0.76 at
// 1 MiB).
std::unique_ptr<PreparedCollective> BoundProbes::memory_copy(std::size_t bytes) {
  if (bytes > memory_send_.size()) throw std::logic_error("memory probe larger than its buffers");
  return std::make_unique<ExchangeProbe>(transport_, memory_send_.data(), memory_recv_.data(), bytes, 1, 1);
}

std::unique_ptr<PreparedCollective> BoundProbes::memory_reduce(std::size_t bytes) {
  if (bytes > memory_send_.size()) throw std::logic_error("memory probe larger than its buffers");
  return std::make_unique<ExchangeProbe>(transport_, memory_send_.data(), memory_recv_.data(), bytes, 1, 1,
                                         ReceiveReduction{dtype_, op_, nullptr, false});
}

std::unique_ptr<PreparedCollective> BoundProbes::reduce(std::size_t block_bytes) {
  return std::make_unique<ReduceProbe>(dtype_, op_, recv_.data(), a_.data(), b_.data(),
                                       block_bytes / dtype_size(dtype_), static_cast<std::size_t>(blocks_));
}

std::vector<MemoryWork> memory_work_of_ranks(const AlgorithmEntry& a, const CollectiveCall& call, int nranks,
                                             const AlgorithmParams& params, bool fuse) {
  std::vector<MemoryWork> w;
  for (int r = 0; r < nranks; ++r) w.push_back(receiver_memory_work(a, call, nranks, r, params, fuse));
  return w;
}

double add_memory_bound(ResultRow& row, const std::vector<MemoryWork>& ranks, std::size_t probe_bytes,
                        double copy_p50_us, double reduce_p50_us) {
  // Microseconds per byte of output, every rank at once.
  const double bytes = static_cast<double>(std::max<std::size_t>(probe_bytes, 1));
  const double copy_us = copy_p50_us / bytes, reduce_us = reduce_p50_us / bytes;
  double bound_us = 0;
  MemoryWork busiest;
  for (const MemoryWork& w : ranks) {
    const double t = static_cast<double>(w.copied) * copy_us + static_cast<double>(w.reduced) * reduce_us;
    if (t >= bound_us) bound_us = t, busiest = w;
  }
  const double share = row.time_us.p50 > 0 ? bound_us / row.time_us.p50 : 0.0;
  row.extra.push_back({"memory_bound_us", bound_us});
  row.extra.push_back({"of_memory_bound", share});
  row.details["memory_bound"] = {
      {"bound_us", bound_us},
      {"busiest_rank_copied_bytes", busiest.copied},
      {"busiest_rank_reduced_bytes", busiest.reduced},
      {"traffic_bytes", busiest.traffic()},
      {"probe_bytes", probe_bytes},
      {"copy_gbps", copy_p50_us > 0 ? 2.0 * bytes / copy_p50_us / 1e3 : 0.0},
      {"reduce_gbps", reduce_p50_us > 0 ? 3.0 * bytes / reduce_p50_us / 1e3 : 0.0},
      {"meaning",
       "what the busiest rank copies and reduces running this schedule, each at the rate the memory probes "
       "reached with every rank at once, each receiving its whole buffer out of its left neighbour's send buffer "
       "(copy: recv = sent; reduce: recv = send op sent); gbps count bytes read and written"}};
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
