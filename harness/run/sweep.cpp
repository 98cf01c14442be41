#include "harness/run/sweep.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>

#include "collectives/transport/memory_space.hpp"
#include "collectives/transport/mpi/forced_algorithm.hpp"
#include "collectives/process/progress.hpp"
#include "harness/common/control.hpp"
#include "harness/common/sizes.hpp"
#include "harness/common/stats.hpp"
#include "harness/common/timing.hpp"
#include "harness/common/validation.hpp"
#include "harness/run/bound.hpp"
#include "harness/run/run_table.hpp"

namespace collbench {
namespace {

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
      : o_(o), b_(b), count_(count), rank_(rank),
        spec_{o.collective, o.dtype, o.op, nranks},
        layout_(buffer_layout(o.collective, count, nranks, rank, o.root, o.in_place)) {}

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
  ExpectedResult expected() const { return ExpectedResult(spec_, rank_, o_.root, count_); }
  const void* result() const {
    if (!b_.space) return b_.recv.data();
    b_.space->copy_out(b_.host_recv.data(), b_.recv.data(), recv_bytes());
    return b_.host_recv.data();
  }

 private:
  CollectiveCall call_on(const OwnedBuffer& send, const OwnedBuffer& recv) const {
    const CollectiveCall shape{o_.collective, o_.dtype, o_.op, count_, o_.root, nullptr, nullptr, o_.in_place};
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
  BufferLayout layout_;
};

// One algorithm's measurements at one size, over all rounds.
struct Measured {
  std::vector<double> samples, round_means;
  int warmup = 0, checked = 0;
  std::int64_t wrong = 0;  // this rank's, then (after summing) all ranks'
};

// The bound's probes at one size (bound.hpp), timed in the same rounds.
struct BoundAtSize {
  std::size_t block_bytes = 0;
  int window = 1;
  std::unique_ptr<PreparedCollective> exchange, reduce;
  std::vector<double> exchange_us, reduce_us, round_means;
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
  b.exchange_us.insert(b.exchange_us.end(), x.begin(), x.end());
  b.reduce_us.insert(b.reduce_us.end(), r.begin(), r.end());
}

ResultRow bound_row(const ResultRow& like, const BoundAtSize& b, const SweepSpec& o, std::string_view transport) {
  ResultRow r = like;
  r.algorithm = "ring_bound";
  r.transport = std::string(transport) + "+kernel";
  const std::vector<double> samples = combine_bound(o.collective, like.ranks, b.exchange_us, b.reduce_us);
  r.iters = static_cast<int>(samples.size());
  r.time_us = summarize(samples);
  r.outliers = count_outliers(samples, r.time_us.p50);
  r.algbw_gbps = algbw_gbps(static_cast<double>(r.bytes), r.time_us.mean * 1e-6);
  r.busbw_gbps = r.algbw_gbps * busbw_factor(o.collective, r.ranks);
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
               {"meaning", "exchange_gbps: bytes a rank sends per second while receiving as many (per direction); "
                           "reduce_gbps: block bytes reduced per second"}};
  return r;
}

}  // namespace

SweepErrors run_sweep(const SweepSpec& o, Session& session, Transport& transport, ResultSink& sink) {
  const MPI_Comm comm = session.comm;
  const Topology& topology = session.topology;
  const int rank = transport.rank(), nranks = transport.size();
  const std::size_t elem = dtype_size(o.dtype);
  const auto sizes = sweep_sizes(o.sizes.min_bytes, o.sizes.max_bytes, o.sizes.step_factor, elem);
  const AlgorithmEntry* mpi = session.registry.find(o.collective, "mpi");
  const AlgorithmParams params = session.algorithm_params(o.segment_bytes, o.order);
  auto row_name = [&](const AlgorithmEntry* a) { return a == mpi ? mpi_baseline_row_name(o.collective) : a->name; };

  Buffers buf;
  const std::size_t max_count = count_of_size(o.collective, sizes.empty() ? 0 : sizes.back(), elem, nranks);
  const BufferLayout big = buffer_layout(o.collective, max_count, nranks, rank, o.root, o.in_place);
  const std::size_t send_bytes = std::max<std::size_t>(big.send_count * elem, 1);
  const std::size_t recv_bytes = std::max(big.recv_count * elem, big.send_count * elem) + 1;
  buf.send = transport.allocate(send_bytes);
  buf.recv = transport.allocate(recv_bytes);
  if (transport.memory().kind() != MemoryKind::host) {
    buf.space = &transport.memory();
    buf.host_send = host_space().allocate(send_bytes);
    buf.host_recv = host_space().allocate(recv_bytes);
  }
  std::optional<BoundProbes> probes;
  if (o.bound) probes.emplace(transport, o.dtype, o.op, bound_block_bytes(o.collective, max_count, nranks, elem), nranks);
  Workspace workspace;
  {
    // Size the shared scratch for the largest call now, so it is allocated once.
    SizeRun largest(o, buf, max_count, rank, nranks);
    for (const AlgorithmEntry* a : o.algorithms)
      if (!a->is_baseline()) prepare(*a, largest.call(), transport, workspace, params);
  }

  SweepErrors errors;
  // The MPI library's rows are blamed as the library's; NCCL's are named like the others.
  for (const AlgorithmEntry* a : o.algorithms) errors.algorithms.push_back({row_name(a), a->is_baseline_of("mpi"), 0});
  const std::string command = "run " + std::string(collective_name(o.collective));
  for (std::size_t bytes_requested : sizes) {
    const std::size_t count = count_of_size(o.collective, bytes_requested, elem, nranks);
    const std::size_t bytes = size_in_elements(o.collective, count, nranks) * elem;
    SizeRun size_run(o, buf, count, rank, nranks);
    auto task = [&](std::size_t i, const std::string& what) {
      progress::set_task(command + ", algorithm " + o.algorithms[i]->name + ", " + std::to_string(bytes) +
                         " bytes, " + what);
    };

    std::vector<std::unique_ptr<PreparedCollective>> prepared;
    for (const AlgorithmEntry* a : o.algorithms)
      prepared.push_back(prepare(*a, size_run.call(), a->is_baseline_of("mpi") ? session.transport : transport, workspace, params));

    // Every algorithm, the MPI library's included, is checked against the exact
    // expected values, so a wrong library never makes a right algorithm look wrong.
    std::optional<ExpectedResult> expected;
    if (o.check) expected.emplace(size_run.expected());
    std::vector<Measured> m(o.algorithms.size());
    std::optional<BoundAtSize> bound;
    if (probes) {
      bound.emplace();
      bound->block_bytes = bound_block_bytes(o.collective, count, nranks, elem);
      bound->window = BoundProbes::window(bound->block_bytes);
      bound->exchange = probes->exchange(bound->block_bytes);
      bound->reduce = probes->reduce(bound->block_bytes);
    }
    if (o.check)
      for (std::size_t i = 0; i < o.algorithms.size(); ++i) {
        task(i, "untimed check");
        size_run.load_inputs();
        prepared[i]->run();
        m[i].wrong += static_cast<std::int64_t>(expected->count_wrong(size_run.result()));
        m[i].checked = 1;
      }

    const CallCheck check{o.check_every, [&] { size_run.prepare_check(); },
                          [&] { return static_cast<std::int64_t>(expected->count_wrong(size_run.result())); }};
    size_run.load_inputs();
    for (int round = 0; round < o.reps.rounds; ++round) {
      if (bound) {
        progress::set_task(command + ", bound probes, " + std::to_string(bytes) + " bytes, round " +
                           std::to_string(round + 1) + " of " + std::to_string(o.reps.rounds));
        time_bound_round(*bound, bytes, o, nranks, comm);
      }
      for (std::size_t i = 0; i < o.algorithms.size(); ++i) {
        task(i, "round " + std::to_string(round + 1) + " of " + std::to_string(o.reps.rounds));
        TimedCalls t = time_calls(*prepared[i], bytes, o.reps, o.timing, o.aggregate, o.check ? &check : nullptr, comm);
        m[i].round_means.push_back(summarize(t.seconds).mean * 1e6);
        for (double x : t.seconds) m[i].samples.push_back(x * 1e6);
        m[i].warmup = t.warmup;
        m[i].checked += t.checked;
        m[i].wrong += t.wrong;
      }
    }
    progress::set_task(command + ", " + std::to_string(bytes) + " bytes, combining results");
    for (std::size_t i = 0; i < m.size(); ++i) {
      m[i].wrong = o.check ? control_sum(m[i].wrong, comm) : -1;
      errors.algorithms[i].wrong += std::max<std::int64_t>(m[i].wrong, 0);
    }

    if (rank != 0) continue;
    std::vector<ResultRow> rows;
    std::optional<double> mpi_mean;
    for (std::size_t i = 0; i < o.algorithms.size(); ++i) {
      ResultRow r;
      r.collective = collective_name(o.collective);
      r.algorithm = row_name(o.algorithms[i]);
      r.transport = o.algorithms[i]->is_baseline() ? o.algorithms[i]->library + "-library" : std::string(transport.name());
      r.ranks = nranks;
      r.bytes = bytes;
      r.count = count;
      r.dtype = dtype_name(o.dtype);
      r.op = uses_reduce_op(o.collective) ? reduce_op_name(o.op) : "none";
      r.root = o.root;
      r.iters = static_cast<int>(m[i].samples.size());
      r.time_us = summarize(m[i].samples);
      r.outliers = count_outliers(m[i].samples, r.time_us.p50);
      r.algbw_gbps = algbw_gbps(static_cast<double>(bytes), r.time_us.mean * 1e-6);
      r.busbw_gbps = r.algbw_gbps * busbw_factor(o.collective, nranks);
      r.errors = m[i].wrong;
      r.checked_calls = m[i].checked;
      r.in_place = o.in_place;
      r.warmup = m[i].warmup;
      r.rounds = o.reps.rounds;
      r.timing = kTimingPolicyNames.name(o.timing);
      r.aggregate = kRankAggregateNames.name(o.aggregate);
      r.round_mean_us = m[i].round_means;
      r.nodes = topology.nodes;
      r.ranks_per_node = topology.max_ranks_per_node;
      r.segment_bytes = o.algorithms[i]->segment_bytes(params);
      if (buf.space) r.extra.push_back({"memory", std::string(buf.space->name())});
      if (o.algorithms[i] == mpi) mpi_mean = r.time_us.mean;
      rows.push_back(std::move(r));
    }
    if (bound) rows.push_back(bound_row(rows.front(), *bound, o, transport.name()));
    for (ResultRow& r : rows) {
      std::optional<double> vs, of_bound;
      if (mpi_mean && *mpi_mean > 0) vs = r.time_us.mean / *mpi_mean;
      if (bound) {
        // p50 against p50: the bound's share this algorithm reaches, robust to stalls.
        of_bound = r.time_us.p50 > 0 ? rows.back().time_us.p50 / r.time_us.p50 : 0.0;
        r.extra.push_back({"of_bound", *of_bound});
      }
      sink.add(to_row(r, table_line(r, vs, of_bound)));
    }
  }
  progress::set_task(command + ", sweep finished");
  return errors;
}

}  // namespace collbench
