#include "harness/ps/ps_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "collectives/process/progress.hpp"
#include "collectives/transport/mpi/communicator.hpp"
#include "harness/common/control.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/sizes.hpp"
#include "harness/common/validation.hpp"
#include "harness/ps/ps_inputs.hpp"
#include "harness/ps/ps_rows.hpp"
#include "harness/ps/ps_table.hpp"
#include "harness/run/run_table.hpp"
#include "harness/run/sweep.hpp"

namespace collbench {
namespace {

// Async and bounded servers apply pushes one by one, so the final state may round
// differently from one summed update per step: allow a few ulps per operation.
double final_tolerance(const PsConfig& c, int workers) {
  if (c.mode == PsMode::sync) return 0;
  const double eps =
      c.dtype == DType::f32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  const double ops = static_cast<double>(workers) * kPsCheckSteps;
  return 8 * eps * ops * (7 + std::abs(c.learning_rate) * 4 * ops);
}

// Runs kPsCheckSteps steps with known gradients. The reference is MPI_Allreduce of the
// same gradients (servers add zeros) followed by the same SGD: sync workers must pull
// exactly it after every step; every server's final parameters must equal it.
std::int64_t check_mode(const PsOptions& o, const Registry& registry, const PsConfig& config, PsRoles roles,
                        MpiTransport& transport, MPI_Comm comm) {
  const int rank = transport.rank();
  const bool server = roles.is_server(rank);
  const PsTensor& tensor = config.tensors[0];
  const std::size_t elem = dtype_size(config.dtype), elements = tensor.elements(),
                    row_bytes = tensor.row_elements * elem;
  std::vector<std::byte> ref(elements * elem), gradient(ref.size()), sum(ref.size());
  ps_initial_params(config.dtype, 0, 0, elements, ref.data());
  std::optional<PsStepInputs> inputs;
  if (!server) inputs.emplace(config, o, rank);
  std::vector<std::vector<std::byte>> sums;
  Workspace workspace;
  const AlgorithmEntry* mpi = registry.find(Collective::allreduce, "mpi");
  for (int t = 0; t < kPsCheckSteps; ++t) {
    if (inputs) inputs->dense_gradient(t, gradient.data());
    const CollectiveCall call{Collective::allreduce, config.dtype, ReduceOp::sum, elements, 0,
                              gradient.data(),       sum.data(),   false};
    prepare(*mpi, call, transport, workspace)->run();
    if (server)
      sgd_update(config.dtype, ref.data(), sum.data(), elements, config.learning_rate);
    else
      sums.push_back(sum);
  }

  std::size_t wrong = 0;
  std::string error;
  if (server) {
    const double tol = final_tolerance(config, roles.workers());
    error = run_ps_server(transport, config, roles, [&](const PsPartition& p, const std::byte* params) {
              wrong += count_mismatches(config.dtype, params, ref.data() + p.first_row * row_bytes,
                                        p.rows * tensor.row_elements, tol);
            }).error;
  } else {
    PsWorker worker(transport, config, roles);
    for (int t = 0; t < kPsCheckSteps; ++t) {
      inputs->prepare(t);
      if (!worker.step(inputs->tensors())) break;
      sgd_update(config.dtype, ref.data(), sums[static_cast<std::size_t>(t)].data(), elements, config.learning_rate);
      if (config.mode != PsMode::sync) continue;
      if (!tensor.sparse) {
        wrong += count_mismatches(config.dtype, inputs->pulled(), ref.data(), elements, 0);
        continue;
      }
      const auto& rows = inputs->tensors()[0].rows;
      for (std::size_t j = 0; j < rows.size(); ++j)
        wrong += count_mismatches(config.dtype, inputs->pulled() + j * row_bytes, ref.data() + rows[j] * row_bytes,
                                  tensor.row_elements, 0);
    }
    error = worker.finish().error;
  }
  throw_if_any_rank_failed(error, comm);
  return control_sum(static_cast<std::int64_t>(wrong), comm);
}

// One timed session: warm-up plus timed steps, back to back on each worker.
nlohmann::json timed_session(const PsOptions& o, const PsConfig& config, PsRoles roles, MpiTransport& transport) {
  const int rank = transport.rank();
  if (roles.is_server(rank)) return ps_report_json(run_ps_server(transport, config, roles));
  PsStepInputs inputs(config, o, rank);
  inputs.prepare(0);
  const bool slow = std::find(o.slow_ranks.begin(), o.slow_ranks.end(), rank) != o.slow_ranks.end();
  const auto delay = std::chrono::duration<double, std::micro>(o.slow_us);
  PsWorker worker(transport, config, roles);
  for (int s = 0; s < o.reps.warmup + o.reps.iters; ++s) {
    progress::set_call("step", s, o.reps.warmup + o.reps.iters);
    if (slow) std::this_thread::sleep_for(delay);  // the slow rank's "compute"
    if (s > 0 && config.tensors[0].sparse) inputs.prepare(s);
    if (!worker.step(inputs.tensors())) break;
  }
  return ps_report_json(worker.finish(), o.reps.warmup);
}

// A barrier over the transport's tagged messages, so that ranks waiting in it yield the
// core when the transport does: servers wait here while the workers run the allreduce
// comparison, and spinning in MPI would take a core from them.
void transport_barrier(Transport& tr) {
  constexpr int kTag = 900;
  std::byte none{};
  std::vector<Ticket> tickets;
  if (tr.rank() == 0) {
    for (int r = 1; r < tr.size(); ++r) tickets.push_back(tr.post_recv(r, kTag, &none, 0));
    tr.wait_all(tickets);
    tickets.clear();
    for (int r = 1; r < tr.size(); ++r) tickets.push_back(tr.post_send(r, kTag, &none, 0));
    tr.wait_all(tickets);
    return;
  }
  tr.wait(tr.post_send(0, kTag, &none, 0));
  tr.wait(tr.post_recv(0, kTag, &none, 0));
}

}  // namespace

SweepSpec comparison_sweep(const PsOptions& o, const SizeRange& sizes) {
  SweepSpec s;
  s.collective = Collective::allreduce;
  s.algorithms = o.compare;
  s.sizes = sizes;
  s.reps = o.reps;
  s.dtype = o.dtype;
  s.check = o.check;
  s.timing = TimingPolicy::loop;  // back to back, as the parameter server's steps
  s.segment_bytes = o.segment_bytes;
  return s;
}

std::int64_t run_ps_sweep(const PsOptions& o, Session& session, ResultSink& sink) {
  MpiTransport& transport = session.transport;
  const MPI_Comm comm = session.comm;
  const int rank = transport.rank();
  const PsRoles roles = ps_roles(transport.size(), o.servers);
  const bool server = roles.is_server(rank);
  const std::size_t unit = o.sparse() ? o.row_bytes : dtype_size(o.dtype);
  const auto sizes = sweep_sizes(o.sizes.min_bytes, o.sizes.max_bytes, o.sizes.step_factor, unit);

  // The allreduce comparison runs among the workers only.
  const Communicator group_comm = Communicator::split(comm, server ? 1 : 0, rank);
  Session group(session.registry, group_comm.get(), o.ranks_per_node);
  const bool yield = node_is_oversubscribed(session.topology);
  transport.set_yield_while_waiting(yield);
  group.transport.set_yield_while_waiting(yield);

  std::int64_t wrong = 0;
  for (std::size_t bytes : sizes) {
    std::vector<PsConfig> configs;
    std::vector<std::int64_t> errors;
    for (const ProtocolEntry* mode : o.modes) {
      progress::set_task("ps " + mode->name + ", " + std::to_string(bytes) + " bytes, check");
      configs.push_back(ps_config_for_size(o, *mode, bytes));
      errors.push_back(o.check ? check_mode(o, session.registry, configs.back(), roles, transport, comm) : -1);
    }
    std::vector<std::vector<nlohmann::json>> reports(configs.size());
    for (int round = 0; round < o.reps.rounds; ++round)
      for (std::size_t m = 0; m < configs.size(); ++m) {
        progress::set_task("ps " + o.modes[m]->name + ", " + std::to_string(bytes) + " bytes, round " +
                           std::to_string(round + 1) + " of " + std::to_string(o.reps.rounds));
        const nlohmann::json mine = timed_session(o, configs[m], roles, transport);
        throw_if_any_rank_failed(mine["error"].get<std::string>(), comm);
        for (const std::string& text : control_allgather(mine.dump(), comm))
          reports[m].push_back(nlohmann::json::parse(text));
      }
    if (rank == 0)
      for (std::size_t m = 0; m < configs.size(); ++m) {
        const ResultRow row = ps_result_row(
            {&o, o.modes[m], &configs[m], roles, bytes, std::move(reports[m]), errors[m], &session.topology});
        sink.add(to_row(row, table_line(row, std::nullopt) + ps_detail_line(row)));
        if (row.errors > 0) wrong += row.errors;
      }
    if (!server && !o.compare.empty()) {
      const std::int64_t w = run_sweep(comparison_sweep(o, {bytes, bytes, o.sizes.step_factor}), group, sink).total();
      if (rank == 0) wrong += w;
    }
    transport_barrier(transport);
  }
  return control_sum(rank == 0 ? wrong : 0, comm);
}

}  // namespace collbench
