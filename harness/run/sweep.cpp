#include "harness/run/sweep.hpp"

#include <map>
#include <memory>
#include <optional>

#include "collectives/mpi/library.hpp"
#include "harness/common/control.hpp"
#include "harness/common/sizes.hpp"
#include "harness/common/stats.hpp"
#include "harness/common/timing.hpp"
#include "harness/common/validation.hpp"
#include "harness/run/run_table.hpp"

namespace collbench {
namespace {

std::size_t per_rank_count(const SweepSpec& o, std::size_t bytes, int nranks) {
  const std::size_t elem = dtype_size(o.dtype);
  return size_counts_all_blocks(o.collective) ? bytes / elem / static_cast<std::size_t>(nranks) : bytes / elem;
}

// The three buffers of a run, allocated once at the largest size: inputs, the output
// of the algorithm under test, and the MPI library's reference output.
struct Buffers {
  std::vector<std::byte> send, recv, ref;
};

class SizeRun {
 public:
  SizeRun(const SweepSpec& o, Buffers& b, std::size_t count, int rank, int nranks)
      : o_(o), b_(b), count_(count), rank_(rank),
        spec_{o.collective, o.dtype, o.op, nranks},
        layout_(buffer_layout(o.collective, count, nranks, rank, o.root, o.in_place)) {}

  CollectiveCall call(std::vector<std::byte>& out) const {
    const CollectiveCall shape{o_.collective, o_.dtype, o_.op, count_, o_.root, nullptr, nullptr, o_.in_place};
    return bind_buffers(shape, layout_, b_.send.data(), out.data());
  }

  // Poisons `out` and writes this rank's input where the call reads it.
  void load_inputs(std::vector<std::byte>& out) const { collbench::load_inputs(call(out), layout_, rank_, spec_.nranks); }

  std::size_t mismatches_against_ref() const {
    return count_mismatches(o_.dtype, b_.recv.data(), b_.ref.data(), layout_.result_count, tolerance(spec_));
  }
  std::size_t wrong_in_ref() const { return count_wrong_results(spec_, rank_, o_.root, count_, b_.ref.data()); }

 private:
  const SweepSpec& o_;
  Buffers& b_;
  std::size_t count_;
  int rank_;
  InputSpec spec_;
  BufferLayout layout_;
};

}  // namespace

std::int64_t run_sweep(const SweepSpec& o, Session& session, ResultSink& sink) {
  MpiTransport& transport = session.transport;
  const MPI_Comm comm = session.comm;
  const Topology& topology = session.topology;
  const int rank = transport.rank(), nranks = transport.size();
  const std::size_t elem = dtype_size(o.dtype);
  const auto sizes = sweep_sizes(o.sizes.min_bytes, o.sizes.max_bytes, o.sizes.step_factor, elem);
  const AlgorithmEntry* mpi = session.registry.find(o.collective, "mpi");
  const AlgorithmParams params = session.algorithm_params(o.segment_bytes);

  Buffers buf;
  const std::size_t max_count = per_rank_count(o, sizes.empty() ? 0 : sizes.back(), nranks);
  const BufferLayout big = buffer_layout(o.collective, max_count, nranks, rank, o.root, o.in_place);
  buf.send.resize(std::max<std::size_t>(big.send_count * elem, 1));
  buf.recv.resize(std::max<std::size_t>(big.recv_count * elem, big.send_count * elem) + 1);
  buf.ref.resize(buf.recv.size());
  Workspace workspace;
  {
    // Size the shared scratch for the largest call now, so it is allocated once.
    SizeRun largest(o, buf, max_count, rank, nranks);
    for (const AlgorithmEntry* a : o.algorithms)
      if (!a->is_baseline()) prepare(*a, largest.call(buf.recv), transport, workspace, params);
  }

  std::int64_t total_errors = 0;
  for (std::size_t bytes_requested : sizes) {
    const std::size_t count = per_rank_count(o, bytes_requested, nranks);
    const std::size_t bytes = size_in_elements(o.collective, count, nranks) * elem;
    SizeRun size_run(o, buf, count, rank, nranks);

    std::vector<std::unique_ptr<PreparedCollective>> prepared;
    for (const AlgorithmEntry* a : o.algorithms)
      prepared.push_back(prepare(*a, size_run.call(buf.recv), transport, workspace, params));

    // Validation: separate from the timed calls so checking never pollutes the numbers.
    std::vector<std::int64_t> errors(o.algorithms.size(), -1);
    if (o.check) {
      size_run.load_inputs(buf.ref);
      prepare(*mpi, size_run.call(buf.ref), transport, workspace)->run();
      const auto mpi_wrong = static_cast<std::int64_t>(size_run.wrong_in_ref());
      for (std::size_t i = 0; i < o.algorithms.size(); ++i) {
        if (o.algorithms[i]->is_baseline()) {
          errors[i] = mpi_wrong;
          continue;
        }
        size_run.load_inputs(buf.recv);
        prepared[i]->run();
        errors[i] = static_cast<std::int64_t>(size_run.mismatches_against_ref());
      }
      for (std::int64_t& e : errors) e = control_sum(e, comm);
    }

    size_run.load_inputs(buf.recv);
    std::vector<std::vector<double>> samples(o.algorithms.size());
    std::vector<std::vector<double>> round_means(o.algorithms.size());
    for (int round = 0; round < o.reps.rounds; ++round)
      for (std::size_t i = 0; i < o.algorithms.size(); ++i) {
        auto t = time_calls(*prepared[i], o.reps.warmup, o.reps.iters, o.timing, comm);
        round_means[i].push_back(summarize(t).mean * 1e6);
        samples[i].insert(samples[i].end(), t.begin(), t.end());
      }

    if (rank != 0) continue;
    std::vector<ResultRow> rows;
    std::optional<double> mpi_mean;
    for (std::size_t i = 0; i < o.algorithms.size(); ++i) {
      ResultRow r;
      r.collective = collective_name(o.collective);
      r.algorithm = o.algorithms[i] == mpi ? mpi_baseline_row_name(o.collective) : o.algorithms[i]->name;
      r.transport = o.algorithms[i]->is_baseline() ? "mpi-library" : std::string(transport.name());
      r.ranks = nranks;
      r.bytes = bytes;
      r.count = count;
      r.dtype = dtype_name(o.dtype);
      r.op = uses_reduce_op(o.collective) ? reduce_op_name(o.op) : "none";
      r.root = o.root;
      r.iters = o.reps.iters * o.reps.rounds;
      for (double& s : samples[i]) s *= 1e6;
      r.time_us = summarize(samples[i]);
      r.algbw_gbps = algbw_gbps(static_cast<double>(bytes), r.time_us.mean * 1e-6);
      r.busbw_gbps = r.algbw_gbps * busbw_factor(o.collective, nranks);
      r.errors = errors[i];
      r.in_place = o.in_place;
      r.warmup = o.reps.warmup;
      r.rounds = o.reps.rounds;
      r.timing = kTimingPolicyNames.name(o.timing);
      r.round_mean_us = round_means[i];
      r.nodes = topology.nodes;
      r.ranks_per_node = topology.max_ranks_per_node;
      r.segment_bytes = o.algorithms[i]->segment_bytes(params);
      if (o.algorithms[i] == mpi) mpi_mean = r.time_us.mean;
      rows.push_back(std::move(r));
    }
    for (const ResultRow& r : rows) {
      std::optional<double> vs;
      if (mpi_mean && *mpi_mean > 0) vs = r.time_us.mean / *mpi_mean;
      sink.add(to_row(r, table_line(r, vs)));
      if (r.errors > 0) total_errors += r.errors;
    }
    sink.flush();
  }
  return control_sum(rank == 0 ? total_errors : 0, comm);
}

}  // namespace collbench
