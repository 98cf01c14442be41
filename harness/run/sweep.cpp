#include "harness/run/sweep.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <optional>

#include "collectives/process/progress.hpp"
#include "collectives/transport/memory_space.hpp"
#include "collectives/transport/mpi/forced_algorithm.hpp"
#include "harness/common/control.hpp"
#include "harness/common/sizes.hpp"
#include "harness/common/stats.hpp"
#include "harness/common/timing.hpp"
#include "harness/common/validation.hpp"
#include "harness/common/writers.hpp"
#include "harness/p2p/p2p_probe.hpp"
#include "harness/run/bound.hpp"
#include "harness/run/run_table.hpp"
#include "workloads/traffic.hpp"

namespace collbench {
namespace {

// --probe-links' bandwidth test: its window at one message size, as `collbench p2p` picks it.
int link_probe_window(std::size_t bytes) { return window_at(P2pOptions{}, bytes); }

// The buffers of a run, allocated once at the largest size: inputs and the output of
// the algorithm under test, in the transport's memory space; where that is not the host,
// host copies of both that inputs are written to and results checked in.
struct Buffers {
  MemorySpace* space = nullptr;  // null: host memory, no copies
  OwnedBuffer send, recv, host_send, host_recv;
};

class SizeRun {
 public:
  SizeRun(const SweepSpec& o, Buffers& b, std::size_t count, int rank, int nranks)
      : o_(o),
        b_(b),
        count_(count),
        rank_(rank),
        spec_{o.collective, o.dtype, o.op, nranks},
        counts_(o.traffic ? scaled_counts(*o.traffic, count * static_cast<std::size_t>(nranks) * nranks) : nullptr),
        layout_(buffer_layout(o.collective, count, nranks, rank, o.root, o.in_place, counts_.get())) {}

  CollectiveCall call() const { return call_on(b_.send, b_.recv); }

  // Poisons the output and writes this rank's input where the call reads it.
  void load_inputs() const {
    collbench::load_inputs(host_call(), layout_, rank_, spec_.nranks);
    copy_in(true);
  }
  // Before a checked timed call: inputs in their own buffer are still intact, so
  // poisoning the output is enough; inputs in the output buffer (in place, and always
  // for broadcast, whose root sends from its only buffer) must be written again.
  void prepare_check() const {
    if (layout_.send_aliases_recv) return load_inputs();
    poison_output(host_call(), layout_);
    copy_in(false);
  }
  ExpectedResult expected() const { return ExpectedResult(spec_, rank_, o_.root, count_, counts_.get()); }
  const BufferLayout& layout() const { return layout_; }
  const CountMatrix* counts() const { return counts_.get(); }
  const void* result() const {
    if (!b_.space) return b_.recv.data();
    b_.space->copy_out(b_.host_recv.data(), b_.recv.data(), recv_bytes());
    return b_.host_recv.data();
  }

 private:
  CollectiveCall call_on(const OwnedBuffer& send, const OwnedBuffer& recv) const {
    const CollectiveCall shape{o_.collective, o_.dtype, o_.op, count_, o_.root, nullptr, nullptr, o_.in_place, counts_};
    return bind_buffers(shape, layout_, send.data(), recv.data());
  }
  CollectiveCall host_call() const { return b_.space ? call_on(b_.host_send, b_.host_recv) : call(); }
  std::size_t recv_bytes() const {
    const std::size_t aliased = layout_.send_aliases_recv ? layout_.send_offset_in_recv + layout_.send_count : 0;
    return std::max(layout_.recv_count, aliased) * dtype_size(o_.dtype);
  }
  void copy_in(bool send) const {
    if (!b_.space) return;
    if (send && !layout_.send_aliases_recv)
      b_.space->copy_in(b_.send.data(), b_.host_send.data(), layout_.send_count * dtype_size(o_.dtype));
    b_.space->copy_in(b_.recv.data(), b_.host_recv.data(), recv_bytes());
  }

  const SweepSpec& o_;
  Buffers& b_;
  std::size_t count_;
  int rank_;
  InputSpec spec_;
  SharedCounts counts_;  // alltoallv: this size's matrix
  BufferLayout layout_;
};

// One algorithm's measurements at one size, over all rounds.
struct Measured {
  std::vector<double> samples, round_means;
  int warmup = 0, checked = 0;
  std::int64_t wrong = 0;  // this rank's, then (after summing) all ranks'
  bool runs = true;        // false: the algorithm does not run at this size (no row)
  std::vector<MemoryWork> memory_work;  // per rank, on rank 0 where the memory bound is measured (bound.hpp)
};

// The bound's probes at one size (bound.hpp), timed in the same rounds.
struct BoundAtSize {
  std::size_t block_bytes = 0;
  int window = 1;
  std::unique_ptr<PreparedCollective> exchange, reduce;
  std::vector<double> exchange_us, reduce_us, round_means;
  // The memory bound's probes (o.memory_bound()), by memory_kind: null where not measured.
  std::size_t memory_bytes = 0;
  std::array<std::unique_ptr<PreparedCollective>, kMemoryKinds> memory;
  std::array<std::vector<double>, kMemoryKinds> memory_us;
  bool has_memory() const { return memory[0] != nullptr; }
};

// Times both probes for one round; exchange times are per message of the window.
void time_bound_round(BoundAtSize& b, std::size_t bytes, const SweepSpec& o, int nranks, MPI_Comm comm) {
  std::vector<double> x, r;
  for (double s : time_calls(*b.exchange, bytes, o.reps, o.timing, o.aggregate, nullptr, comm).seconds)
    x.push_back(s * 1e6 / b.window);
  for (double s : time_calls(*b.reduce, bytes, o.reps, o.timing, o.aggregate, nullptr, comm).seconds)
    r.push_back(s * 1e6);
  // Both probes ran the same number of calls only when the time budget let them; pair what there is.
  const std::size_t n = std::min(x.size(), r.size());
  x.resize(n);
  r.resize(n);
  b.round_means.push_back(summarize(combine_bound(o.collective, nranks, x, r)).mean);
  if (b.has_memory())
    for (std::size_t k = 0; k < b.memory.size(); ++k)
      for (double s : time_calls(*b.memory[k], bytes, o.reps, o.timing, o.aggregate, nullptr, comm).seconds)
        b.memory_us[k].push_back(s * 1e6);
  b.exchange_us.insert(b.exchange_us.end(), x.begin(), x.end());
  b.reduce_us.insert(b.reduce_us.end(), r.begin(), r.end());
}

ResultRow bound_row(const ResultRow& like, const BoundAtSize& b, const SweepSpec& o, std::string_view transport) {
  ResultRow r = like;
  r.algorithm = "ring_bound";
  r.transport = std::string(transport) + "+kernel";
  const std::vector<double> samples = combine_bound(o.collective, like.ranks, b.exchange_us, b.reduce_us);
  r.iters = static_cast<int>(samples.size());
  fill_timing(r, samples, busbw_factor(o.collective, r.ranks));
  r.errors = -1;
  r.checked_calls = 0;
  r.segment_bytes = 0;
  r.round_mean_us = b.round_means;
  const double x50 = summarize(b.exchange_us).p50, r50 = summarize(b.reduce_us).p50;
  r.details = {{"formula", bound_formula(o.collective)},
               {"block_bytes", b.block_bytes},
               {"exchange_window", b.window},
               {"exchange_p50_us", x50},
               {"reduce_p50_us", r50},
               {"exchange_gbps", algbw_gbps(static_cast<double>(b.block_bytes), x50 * 1e-6)},
               {"reduce_gbps", algbw_gbps(static_cast<double>(b.block_bytes), r50 * 1e-6)},
               {"meaning",
                "exchange_gbps: bytes a rank sends per second while receiving as many (per direction); "
                "reduce_gbps: block bytes reduced per second"}};
  return r;
}

// One size's measurements: every algorithm's, and the bound's where asked for.
struct SizeMeasured {
  std::size_t count = 0, bytes = 0;
  std::optional<TrafficSummary> traffic;  // alltoallv's blocks at this size
  std::vector<Measured> algorithms;
  std::optional<BoundAtSize> bound;
  std::vector<std::size_t> link_sizes;  // --probe-links: the message sizes probed at this size
};

// A validated sweep, as its method: allocate once at the largest size, measure each
// size (check, then rounds of interleaved timed calls), turn each size into rows.
class Sweep {
 public:
  Sweep(const SweepSpec& o, Session& session, Transport& transport, const std::vector<std::size_t>& sizes)
      : o_(o),
        session_(session),
        transport_(transport),
        rank_(transport.rank()),
        nranks_(transport.size()),
        elem_(dtype_size(o.dtype)),
        mpi_(session.registry.find(o.collective, "mpi")),
        params_(session.algorithm_params(o.segment_bytes, o.order)),
        command_("run " + std::string(collective_name(o.collective))) {
    allocate(sizes);
  }

  std::string row_name(const AlgorithmEntry* a) const { return result_row_name(*a); }
  const std::string& command() const { return command_; }
  bool probes_links() const { return links_.has_value(); }
  std::int64_t links_wrong() const { return links_wrong_; }

  // Rank 0: the link probes' rows of this size, kept for the end.
  void keep_link_rows(const SizeMeasured& m) {
    for (std::size_t b : m.link_sizes)
      for (Row& r : links_->measured_rows(b, link_probe_window(b))) link_rows_.push_back(std::move(r));
  }
  // Rank 0: the link probes as a p2p result (measured rows, then the fit).
  nlohmann::json link_document(const nlohmann::json& metadata) const {
    nlohmann::json doc = {{"metadata", metadata}, {"rows", nlohmann::json::array()}};
    for (const Row& r : link_rows_) doc["rows"].push_back(to_json(r));
    for (const Row& r : links_->fit_rows(FitSettings{})) doc["rows"].push_back(to_json(r));
    doc["completed"] = true;
    return doc;
  }

  SizeMeasured measure(std::size_t bytes_requested) {
    SizeMeasured m;
    m.count = count_for(bytes_requested);
    m.bytes = size_in_elements(o_.collective, m.count, nranks_) * elem_;
    m.algorithms.resize(o_.algorithms.size());
    SizeRun size_run(o_, buf_, m.count, rank_, nranks_);
    if (size_run.counts()) m.traffic = summarize_traffic(*size_run.counts());
    // nullptr where an algorithm does not run at this size: it gets no row here.
    std::vector<std::unique_ptr<PreparedCollective>> prepared;
    for (std::size_t i = 0; i < o_.algorithms.size(); ++i) {
      const AlgorithmEntry* a = o_.algorithms[i];
      prepared.push_back(runs_at(i, m.count)
                             ? prepare(*a, size_run.call(), a->is_baseline_of("mpi") ? session_.transport : transport_,
                                       workspace_, params_)
                             : nullptr);
      m.algorithms[i].runs = prepared.back() != nullptr;
    }
    if (probes_) m.bound = start_bound(m.count);
    if (o_.memory_bound() && rank_ == 0)  // rows are rank 0's: only it needs every rank's work
      for (std::size_t i = 0; i < o_.algorithms.size(); ++i)
        if (m.algorithms[i].runs && !o_.algorithms[i]->is_baseline())
          m.algorithms[i].memory_work = memory_work_of_ranks(*o_.algorithms[i], size_run.call(), nranks_, params_,
                                                             transport_.reduces_on_receive());
    if (links_)
      while (next_link_ <= m.bytes && next_link_ <= max_link_)
        m.link_sizes.push_back(std::exchange(next_link_, next_link_ * 2));
    // Every algorithm, the MPI library's included, is checked against the exact
    // expected values, so a wrong library never makes a right algorithm look wrong.
    std::optional<ExpectedResult> expected;
    if (o_.check) {
      expected.emplace(size_run.expected());
      check_once(m, prepared, size_run, *expected);
    }
    time_rounds(m, prepared, size_run, expected ? &*expected : nullptr);
    progress::set_task(command_ + ", " + std::to_string(m.bytes) + " bytes, combining results");
    for (Measured& a : m.algorithms)
      if (a.runs) a.wrong = o_.check ? control_sum(a.wrong, session_.comm) : -1;
    return m;
  }

  // Rank 0: the size's rows, the bound's last, each with vs_mpi (and of_bound).
  void write_rows(const SizeMeasured& m, ResultSink& sink) const {
    std::vector<ResultRow> rows;
    std::vector<std::optional<double>> of_memory;  // per row: its share of its memory bound
    std::optional<double> mpi_mean;
    for (std::size_t i = 0; i < o_.algorithms.size(); ++i) {
      if (!m.algorithms[i].runs) continue;
      rows.push_back(algorithm_row(m, i));
      if (o_.algorithms[i] == mpi_) mpi_mean = rows.back().time_us.mean;
      of_memory.emplace_back();
      if (m.bound && m.bound->has_memory() && !m.algorithms[i].memory_work.empty()) {
        MemoryProbeP50s p50;
        for (std::size_t k = 0; k < p50.size(); ++k) p50[k] = summarize(m.bound->memory_us[k]).p50;
        of_memory.back() = add_memory_bound(rows.back(), m.algorithms[i].memory_work, m.bound->memory_bytes, p50);
      }
    }
    if (m.bound && !rows.empty()) {
      rows.push_back(bound_row(rows.front(), *m.bound, o_, transport_.name()));
      of_memory.emplace_back();
    }
    for (std::size_t k = 0; k < rows.size(); ++k) {
      ResultRow& r = rows[k];
      std::optional<double> vs, of_bound;
      if (mpi_mean && *mpi_mean > 0) vs = r.time_us.mean / *mpi_mean;
      if (m.bound) {
        // p50 against p50: the bound's share this algorithm reaches, robust to stalls.
        of_bound = r.time_us.p50 > 0 ? rows.back().time_us.p50 / r.time_us.p50 : 0.0;
        r.extra.push_back({"of_bound", *of_bound});
      }
      sink.add(to_row(r, table_line(r, vs, of_bound, o_.memory_bound(), of_memory[k])));
    }
  }

 private:
  std::size_t count_for(std::size_t bytes) const { return sweep_count(o_, bytes, nranks_); }

  // Whether algorithm i runs at this size (spec.smallest_count).
  bool runs_at(std::size_t i, std::size_t count) const {
    const auto it = o_.smallest_count.find(o_.algorithms[i]);
    return it == o_.smallest_count.end() || count >= it->second;
  }

  void allocate(const std::vector<std::size_t>& sizes) {
    // The largest buffers of any size: alltoallv's skewed counts need not grow with it everywhere.
    std::size_t send = 0, recv = 0;
    for (std::size_t bytes : sizes) {
      const BufferLayout l = SizeRun(o_, buf_, count_for(bytes), rank_, nranks_).layout();
      send = std::max(send, l.send_count);
      recv = std::max({recv, l.recv_count, l.send_count});
    }
    const std::size_t max_count = sizes.empty() ? 0 : count_for(sizes.back());
    const std::size_t send_bytes = std::max<std::size_t>(send * elem_, 1);
    const std::size_t recv_bytes = recv * elem_ + 1;
    buf_.send = transport_.allocate(send_bytes);
    buf_.recv = transport_.allocate(recv_bytes);
    if (transport_.memory().kind() != MemoryKind::host) {
      buf_.space = &transport_.memory();
      buf_.host_send = host_space().allocate(send_bytes);
      buf_.host_recv = host_space().allocate(recv_bytes);
    }
    if (o_.probe_links && !sizes.empty()) {
      max_link_ = std::max<std::size_t>(sizes.back(), 1);  // the largest size requested
      const P2pOptions probe = link_probe_options(o_);
      links_.emplace(transport_, choose_pairs(session_.topology.node_of_rank), probe.tests, max_link_, probe.timing,
                     true, session_.comm);
      link_reps_ = probe.reps;
    }
    if (o_.bound)
      probes_.emplace(transport_, InputSpec{o_.collective, o_.dtype, o_.op, nranks_},
                      bound_block_bytes(o_.collective, max_count, nranks_, elem_), nranks_,
                      o_.memory_bound() ? memory_probe_bytes(max_count) : 0);
    // Size the shared scratch for the largest call now, so it is allocated once.
    SizeRun largest(o_, buf_, max_count, rank_, nranks_);
    for (const AlgorithmEntry* a : o_.algorithms)
      if (!a->is_baseline()) prepare(*a, largest.call(), transport_, workspace_, params_);
  }

  BoundAtSize start_bound(std::size_t count) {
    BoundAtSize b;
    b.block_bytes = bound_block_bytes(o_.collective, count, nranks_, elem_);
    b.window = BoundProbes::window(b.block_bytes);
    b.exchange = probes_->exchange(b.block_bytes);
    b.reduce = probes_->reduce(b.block_bytes);
    if (o_.memory_bound()) {
      b.memory_bytes = memory_probe_bytes(count);
      for (std::size_t k = 0; k < kMemoryKinds; ++k) b.memory[k] = probes_->memory(k, b.memory_bytes);
    }
    return b;
  }

  // The memory probe's buffers: the per-rank send buffer of a call of `count`.
  std::size_t memory_probe_bytes(std::size_t count) const {
    return buffer_layout(o_.collective, count, nranks_, rank_, o_.root, false, nullptr).send_count * elem_;
  }

  void task(const SizeMeasured& m, std::size_t i, const std::string& what) const {
    progress::set_task(command_ + ", algorithm " + o_.algorithms[i]->name + ", " + std::to_string(m.bytes) +
                       " bytes, " + what);
  }

  void check_once(SizeMeasured& m, const std::vector<std::unique_ptr<PreparedCollective>>& prepared,
                  const SizeRun& size_run, const ExpectedResult& expected) const {
    for (std::size_t i = 0; i < prepared.size(); ++i) {
      if (!prepared[i]) continue;
      task(m, i, "untimed check");
      size_run.load_inputs();
      prepared[i]->run();
      m.algorithms[i].wrong += static_cast<std::int64_t>(expected.count_wrong(size_run.result()));
      m.algorithms[i].checked = 1;
    }
  }

  // Rounds of every algorithm in turn (the bound's probes first), so they are measured interleaved.
  void time_rounds(SizeMeasured& m, const std::vector<std::unique_ptr<PreparedCollective>>& prepared,
                   const SizeRun& size_run, const ExpectedResult* expected) {
    const CallCheck check{o_.check_every, [&] { size_run.prepare_check(); },
                          [&] { return static_cast<std::int64_t>(expected->count_wrong(size_run.result())); }};
    size_run.load_inputs();
    const std::string of_rounds = " of " + std::to_string(o_.reps.rounds);
    for (int round = 0; round < o_.reps.rounds; ++round) {
      for (std::size_t bytes : m.link_sizes)
        links_wrong_ += links_->measure_round(bytes, round, link_reps_, link_probe_window(bytes));
      if (m.bound) {
        progress::set_task(command_ + ", bound probes, " + std::to_string(m.bytes) + " bytes, round " +
                           std::to_string(round + 1) + of_rounds);
        time_bound_round(*m.bound, m.bytes, o_, nranks_, session_.comm);
      }
      for (std::size_t i = 0; i < prepared.size(); ++i) {
        if (!prepared[i]) continue;
        task(m, i, "round " + std::to_string(round + 1) + of_rounds);
        const TimedCalls t = time_calls(*prepared[i], m.bytes, o_.reps, o_.timing, o_.aggregate,
                                        expected ? &check : nullptr, session_.comm);
        Measured& a = m.algorithms[i];
        a.round_means.push_back(summarize(t.seconds).mean * 1e6);
        for (double x : t.seconds) a.samples.push_back(x * 1e6);
        a.warmup = t.warmup;
        a.checked += t.checked;
        a.wrong += t.wrong;
      }
    }
  }

  ResultRow algorithm_row(const SizeMeasured& m, std::size_t i) const {
    const AlgorithmEntry* a = o_.algorithms[i];
    const Measured& measured = m.algorithms[i];
    const Topology& topology = session_.topology;
    ResultRow r{.collective = std::string(collective_name(o_.collective)),
                .algorithm = row_name(a),
                .transport = a->is_baseline() ? a->library + "-library" : std::string(transport_.name()),
                .ranks = nranks_,
                .bytes = m.bytes,
                .count = m.count,
                .dtype = std::string(dtype_name(o_.dtype)),
                .op = std::string(uses_reduce_op(o_.collective) ? reduce_op_name(o_.op) : "none"),
                .root = o_.root,
                .iters = static_cast<int>(measured.samples.size()),
                .errors = measured.wrong,
                .in_place = o_.in_place,
                .warmup = measured.warmup,
                .rounds = o_.reps.rounds,
                .timing = std::string(kTimingPolicyNames.name(o_.timing)),
                .nodes = topology.nodes,
                .ranks_per_node = topology.max_ranks_per_node,
                .segment_bytes = a->segment_bytes(params_),
                .aggregate = std::string(kRankAggregateNames.name(o_.aggregate)),
                .checked_calls = measured.checked,
                .round_mean_us = measured.round_means};
    fill_timing(r, measured.samples, busbw_factor(o_.collective, nranks_));
    if (buf_.space) r.extra.push_back({"memory", std::string(buf_.space->name())});
    if (m.traffic) {
      r.extra.push_back({"counts", o_.traffic->text});
      r.extra.push_back({"busiest_bytes", m.traffic->busiest * elem_});
      r.details["blocks_bytes"] = {{"min", m.traffic->min * elem_},
                                   {"median", m.traffic->median * elem_},
                                   {"max", m.traffic->max * elem_},
                                   {"busiest_rank", m.traffic->busiest_rank}};
    }
    return r;
  }

  const SweepSpec& o_;
  Session& session_;
  Transport& transport_;
  const int rank_, nranks_;
  const std::size_t elem_;
  const AlgorithmEntry* mpi_;
  const AlgorithmParams params_;
  const std::string command_;
  Buffers buf_;
  std::optional<BoundProbes> probes_;
  Workspace workspace_;
  // --probe-links: the pairs' tests, the next message size to probe, the largest.
  std::optional<P2pProbe> links_;
  Repetitions link_reps_;
  std::size_t next_link_ = 1, max_link_ = 0;
  std::int64_t links_wrong_ = 0;
  std::vector<Row> link_rows_;  // rank 0
};

}  // namespace

std::size_t sweep_count(const SweepSpec& spec, std::size_t bytes, int nranks) {
  if (spec.sizes_per_peer) return bytes / dtype_size(spec.dtype);
  return count_of_size(spec.collective, bytes, dtype_size(spec.dtype), nranks);
}

P2pOptions link_probe_options(const SweepSpec& run) {
  P2pOptions p;
  p.tests = {P2pTest::latency, P2pTest::bandwidth, P2pTest::exchange, P2pTest::written,
             P2pTest::busy,    P2pTest::pair,      P2pTest::rewrite};
  p.sizes = {1, run.sizes.max_bytes, 2};
  p.reps = run.reps;
  p.reps.warmup = p.reps.iters = Repetitions::kAuto;
  p.transport = run.transport;
  p.timing = run.timing;
  return p;
}

SweepErrors run_sweep(const SweepSpec& o, Session& session, Transport& transport, ResultSink& sink,
                      const LinkProbeFile* links) {
  const auto sizes = sweep_sizes(o.sizes.min_bytes, o.sizes.max_bytes, o.sizes.step_factor, dtype_size(o.dtype));
  Sweep sweep(o, session, transport, sizes);
  SweepErrors errors;
  // The MPI library's rows are blamed as the library's; NCCL's are named like the others.
  for (const AlgorithmEntry* a : o.algorithms)
    errors.algorithms.push_back({sweep.row_name(a), a->is_baseline_of("mpi"), 0});
  for (std::size_t bytes : sizes) {
    const SizeMeasured m = sweep.measure(bytes);
    for (std::size_t i = 0; i < m.algorithms.size(); ++i)
      errors.algorithms[i].wrong += std::max<std::int64_t>(m.algorithms[i].wrong, 0);
    if (transport.rank() == 0) sweep.write_rows(m, sink);
    if (transport.rank() == 0 && sweep.probes_links()) sweep.keep_link_rows(m);
  }
  if (sweep.probes_links()) {
    errors.algorithms.push_back({"the link probes (--probe-links)", false, sweep.links_wrong()});
    if (transport.rank() == 0 && links)
      sink.write_other(links->out, json_text(sweep.link_document(links->metadata), 1) + "\n");
  }
  progress::set_task(sweep.command() + ", sweep finished");
  return errors;
}

}  // namespace collbench
