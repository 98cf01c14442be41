#include "harness/replay/exchanges.hpp"

#include <cstring>
#include <stdexcept>

#include "collectives/transport/memory_space.hpp"
#include "harness/common/validation.hpp"

namespace collbench {
namespace {

// Where a call runs: the MPI library's baselines on its own transport, the rest on ctx.transport.
Transport& carrier(const AlgorithmEntry& a, const ExchangeContext& ctx) {
  return a.is_baseline_of("mpi") && ctx.library ? *ctx.library : *ctx.transport;
}

double timed(const auto& body) {
  const double t0 = MPI_Wtime();
  body();
  return MPI_Wtime() - t0;
}

class AllreduceExchange final : public Exchange {
 public:
  AllreduceExchange(const Bucket& b, const AlgorithmEntry& algorithm, std::byte* data, const ExchangeContext& ctx)
      : spec_{Collective::allreduce, b.dtype, ReduceOp::sum, ctx.transport->size()},
        rank_(ctx.transport->rank()),
        count_(b.elements),
        bytes_each_(b.bytes),
        data_(data),
        space_(ctx.transport->memory()) {
    CollectiveCall call{Collective::allreduce, b.dtype, ReduceOp::sum, b.elements, 0, nullptr, nullptr, true};
    call =
        bind_buffers(call, buffer_layout(Collective::allreduce, b.elements, spec_.nranks, rank_, 0, true), data, data);
    prepared_ = prepare(algorithm, call, carrier(algorithm, ctx), *ctx.workspace, ctx.params);
  }
  void prepare_step(std::int64_t, bool check) override {
    checked_ = check;
    if (check)
      write_via_host(space_, data_, bytes_each_, mirror_, [&](std::byte* p) { fill_input(spec_, rank_, p, count_); });
  }
  double run(std::int64_t) override {
    bytes_.push_back(bytes_each_);
    return timed([&] { prepared_->run(); });
  }
  std::int64_t wrong() const override {
    if (!checked_) return 0;
    const std::byte* got = read_via_host(space_, data_, bytes_each_, mirror_);
    const auto bad = static_cast<std::int64_t>(count_wrong_results(spec_, rank_, 0, count_, got));
    mirror_ = {};
    return bad;
  }
  std::string kind() const override { return "allreduce"; }

 private:
  InputSpec spec_;
  int rank_;
  std::size_t count_, bytes_each_;
  std::byte* data_;
  MemorySpace& space_;
  mutable std::vector<std::byte> mirror_;  // device memory's inputs and results, on the host
  bool checked_ = false;
  std::unique_ptr<PreparedCollective> prepared_;
};

// A workload's all-to-all (an MoE dispatch or combine, an embedding exchange): an
// alltoallv of the call's count matrix, out of place, in the transport's memory. The
// all-to-alls share their buffers (a step runs them one at a time), so a checked step
// writes the inputs and checks the results around the timed call, not before the step.
class AllToAllExchange final : public Exchange {
 public:
  AllToAllExchange(const AllToAllCall& a, const AlgorithmEntry& algorithm, const AllToAllBuffers& buffers,
                   const ExchangeContext& ctx)
      : spec_{Collective::alltoallv, a.dtype, ReduceOp::sum, ctx.transport->size()},
        rank_(ctx.transport->rank()),
        counts_(all_to_all_counts(a, spec_.nranks)),
        layout_(buffer_layout(Collective::alltoallv, 0, spec_.nranks, rank_, 0, false, counts_.get())),
        send_(buffers.send),
        recv_(buffers.recv),
        space_(ctx.transport->memory()) {
    const CollectiveCall call{Collective::alltoallv, a.dtype, ReduceOp::sum, 0, 0, nullptr, nullptr, false, counts_};
    prepared_ =
        prepare(algorithm, bind_buffers(call, layout_, send_, recv_), carrier(algorithm, ctx), *ctx.workspace, ctx.params);
  }
  void prepare_step(std::int64_t, bool check) override {
    checked_ = check;
    wrong_ = 0;
  }
  double run(std::int64_t) override {
    const std::size_t elem = dtype_size(spec_.dtype);
    bytes_.push_back(layout_.send_count * elem);
    if (checked_)
      write_via_host(space_, send_, layout_.send_count * elem, mirror_,
                     [&](std::byte* p) { fill_input(spec_, rank_, p, layout_.send_count); });
    const double seconds = timed([&] { prepared_->run(); });
    if (checked_) {
      const std::byte* got = read_via_host(space_, recv_, layout_.recv_count * elem, mirror_);
      wrong_ = static_cast<std::int64_t>(ExpectedResult(spec_, rank_, 0, 0, counts_.get()).count_wrong(got));
      mirror_ = {};
    }
    return seconds;
  }
  std::int64_t wrong() const override { return wrong_; }
  std::string kind() const override { return "alltoallv"; }

 private:
  InputSpec spec_;
  int rank_;
  SharedCounts counts_;
  BufferLayout layout_;
  std::byte *send_, *recv_;
  MemorySpace& space_;
  std::vector<std::byte> mirror_;
  bool checked_ = false;
  std::int64_t wrong_ = 0;
  std::unique_ptr<PreparedCollective> prepared_;
};

// A rank's block: per row a 4-byte index and the row's values, padded to 4 bytes;
// rows past the rank's own carry the index kNoRow.
class AllgatherExchange final : public Exchange {
 public:
  static constexpr std::uint32_t kNoRow = 0xFFFFFFFFu;

  AllgatherExchange(const GradientTensor& t, std::size_t tensor, const ZipfSampler& sampler,
                    const AlgorithmEntry& algorithm, const ExchangeContext& ctx)
      : tensor_(t),
        index_(tensor),
        sampler_(sampler),
        algorithm_(algorithm),
        ctx_(ctx),
        rank_(ctx.transport->rank()),
        nranks_(ctx.transport->size()),
        row_stride_((4 + t.row_elements * dtype_size(t.dtype) + 3) / 4 * 4) {
    if (t.rows > kNoRow)
      throw std::invalid_argument("sparse tensor " + t.name + " has more rows than a 32-bit index holds");
  }
  void prepare_step(std::int64_t step, bool check) override {
    checked_ = check;
    rows_ = sampler_.touched_rows(tensor_.lookups, ctx_.seed, rank_, step, index_);
    step_ = step;
  }
  double run(std::int64_t) override {
    unsigned long long mine = rows_.size(), most = 0;
    const double count_s = timed([&] { MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, ctx_.comm); });
    // Packing and setting up the call are the framework's work, not the network's.
    most_ = most;
    const std::size_t block = most_ * row_stride_;
    MemorySpace& space = ctx_.transport->memory();
    if (send_.size() < block) send_ = ctx_.transport->allocate(block);
    if (recv_.size() < block * nranks_) recv_ = ctx_.transport->allocate(block * nranks_);
    write_via_host(space, send_.data(), block, mirror_, [&](std::byte* p) { pack(rank_, rows_, p); });
    if (checked_)
      write_via_host(space, recv_.data(), block * nranks_, mirror_, [&](std::byte* p) { poison(p, block * nranks_); });
    mirror_ = {};
    CollectiveCall call{Collective::allgather, DType::i32, ReduceOp::sum, block / 4, 0, nullptr, nullptr, false};
    call = bind_buffers(call, buffer_layout(Collective::allgather, call.count, nranks_, rank_, 0, false), send_.data(),
                        recv_.data());
    auto prepared = prepare(algorithm_, call, carrier(algorithm_, ctx_), workspace_, ctx_.params);
    bytes_.push_back(block * nranks_);
    return count_s + timed([&] { prepared->run(); });
  }
  std::int64_t wrong() const override {
    if (!checked_) return 0;
    std::int64_t bad = 0;
    std::vector<std::byte> want(most_ * row_stride_);
    const std::byte* got =
        read_via_host(ctx_.transport->memory(), recv_.data(), most_ * row_stride_ * nranks_, mirror_);
    for (int k = 0; k < nranks_; ++k) {
      pack(k, sampler_.touched_rows(tensor_.lookups, ctx_.seed, k, step_, index_), want.data());
      for (std::size_t r = 0; r < most_; ++r)
        bad += std::memcmp(want.data() + r * row_stride_, got + (k * most_ + r) * row_stride_, row_stride_) != 0;
    }
    mirror_ = {};
    return bad;
  }
  std::string kind() const override { return "allgather"; }

 private:
  // Values depend on the rank and the row, so a block in the wrong place shows.
  void pack(int rank, const std::vector<std::uint64_t>& rows, std::byte* out) const {
    std::memset(out, 0, most_ * row_stride_);
    const InputSpec spec{Collective::allreduce, tensor_.dtype, ReduceOp::sum, 1};
    for (std::size_t r = 0; r < most_; ++r) {
      std::byte* p = out + r * row_stride_;
      const std::uint32_t id = r < rows.size() ? static_cast<std::uint32_t>(rows[r]) : kNoRow;
      std::memcpy(p, &id, 4);
      if (r < rows.size()) fill_input(spec, rank + static_cast<int>(rows[r] % 5), p + 4, tensor_.row_elements);
    }
  }

  const GradientTensor& tensor_;
  std::size_t index_;
  const ZipfSampler& sampler_;
  const AlgorithmEntry& algorithm_;
  ExchangeContext ctx_;
  int rank_, nranks_;
  std::size_t row_stride_, most_ = 0;
  std::int64_t step_ = 0;
  bool checked_ = false;
  std::vector<std::uint64_t> rows_;
  OwnedBuffer send_, recv_;                // in the transport's memory; grown, never shrunk
  mutable std::vector<std::byte> mirror_;  // device memory's packed rows and results, on the host
  // Its own scratch: this call is prepared every step, and growing the shared one would
  // move the scratch the prepared allreduces point into.
  Workspace workspace_;
};

class PsExchange final : public Exchange {
 public:
  PsExchange(const Workload& w, const std::vector<const ZipfSampler*>& samplers, const PsConfig& config, PsRoles roles,
             MpiTransport& transport, std::uint64_t seed)
      : samplers_(samplers), config_(config), rank_(transport.rank()), seed_(seed), worker_(transport, config, roles) {
    for (std::size_t i = 0; i < w.tensors.size(); ++i)
      if (w.tensors[i].sparse) tensors_.push_back(i);
    lookups_.reserve(tensors_.size());
    for (std::size_t i : tensors_) lookups_.push_back(w.tensors[i].lookups);
    steps_.resize(tensors_.size());
    gradients_.resize(tensors_.size());
    params_.resize(tensors_.size());
  }
  void prepare_step(std::int64_t step, bool) override {
    const std::size_t elem = dtype_size(config_.dtype);
    for (std::size_t j = 0; j < tensors_.size(); ++j) {
      PsTensorStep& s = steps_[j];
      s.rows = samplers_[j]->touched_rows(lookups_[j], seed_, rank_, step, tensors_[j]);
      const std::size_t bytes = s.rows.size() * config_.tensors[j].row_elements * elem;
      gradients_[j].assign(bytes, std::byte{0});
      params_[j].resize(bytes);
      s.gradient = gradients_[j].data();
      s.params = params_[j].data();
    }
  }
  double run(std::int64_t) override {
    return timed([&] { worker_.step(steps_); });
  }
  std::int64_t wrong() const override { return 0; }  // the protocol is checked by `collbench ps`
  std::string finish() override {
    const PsWorkerReport report = worker_.finish();
    for (const PsStepRecord& s : report.steps) bytes_.push_back(s.bytes_sent + s.bytes_received);
    return report.error;
  }
  std::string kind() const override { return "ps"; }

 private:
  std::vector<const ZipfSampler*> samplers_;
  PsConfig config_;
  int rank_;
  std::uint64_t seed_;
  PsWorker worker_;
  std::vector<std::size_t> tensors_, lookups_;
  std::vector<PsTensorStep> steps_;
  std::vector<std::vector<std::byte>> gradients_, params_;
};

}  // namespace

std::unique_ptr<Exchange> make_allreduce_exchange(const Bucket& bucket, const AlgorithmEntry& algorithm,
                                                  std::byte* data, const ExchangeContext& ctx) {
  return std::make_unique<AllreduceExchange>(bucket, algorithm, data, ctx);
}

std::unique_ptr<Exchange> make_allgather_exchange(const Workload& workload, std::size_t tensor,
                                                  const ZipfSampler& sampler, const AlgorithmEntry& algorithm,
                                                  const ExchangeContext& ctx) {
  return std::make_unique<AllgatherExchange>(workload.tensors.at(tensor), tensor, sampler, algorithm, ctx);
}

std::unique_ptr<Exchange> make_ps_exchange(const Workload& workload, const std::vector<const ZipfSampler*>& samplers,
                                           const PsConfig& config, PsRoles roles, MpiTransport& transport,
                                           std::uint64_t seed) {
  return std::make_unique<PsExchange>(workload, samplers, config, roles, transport, seed);
}

PsConfig replay_ps_config(const Workload& workload, const ProtocolEntry& mode) {
  PsConfig c;
  c.mode = ps_mode_of(mode);
  c.staleness = 2;
  for (const GradientTensor& t : workload.tensors) {
    if (!t.sparse) continue;
    c.dtype = t.dtype;
    c.tensors.push_back({t.name, t.rows, t.row_elements, true});
  }
  return c;
}

}  // namespace collbench

namespace collbench {
std::unique_ptr<Exchange> make_all_to_all_exchange(const AllToAllCall& call, const AlgorithmEntry& algorithm,
                                                   const AllToAllBuffers& buffers, const ExchangeContext& ctx) {
  return std::make_unique<AllToAllExchange>(call, algorithm, buffers, ctx);
}

std::pair<std::size_t, std::size_t> all_to_all_buffer_bytes(const std::vector<AllToAllCall>& calls, int rank,
                                                            int nranks) {
  std::size_t send = 1, recv = 1;
  for (const AllToAllCall& a : calls) {
    const SharedCounts m = all_to_all_counts(a, nranks);
    send = std::max(send, m->send_total(rank) * dtype_size(a.dtype));
    recv = std::max(recv, m->recv_total(rank) * dtype_size(a.dtype));
  }
  return {send, recv};
}
}  // namespace collbench
