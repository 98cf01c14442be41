#include "harness/replay/replay.hpp"

#include <algorithm>
#include <map>

#include "collectives/process/page_bytes.hpp"
#include "collectives/process/progress.hpp"
#include "collectives/transport/mpi/communicator.hpp"
#include "collectives/transport/mpi/forced_algorithm.hpp"
#include "harness/common/control.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/writers.hpp"
#include "harness/replay/exchanges.hpp"
#include "harness/replay/replay_rows.hpp"

namespace collbench {
namespace {

struct Configuration {
  const AlgorithmEntry* algorithm = nullptr;
  BucketingPolicy bucketing = BucketingPolicy::ddp;
  SparseStrategy sparse = SparseStrategy::none;
};

// The allgather that goes with an allreduce algorithm: the same name where one is
// registered (ring, mpi, nccl), otherwise the MPI library's, or on device memory (which
// MPI's cannot move) the ring.
const AlgorithmEntry& allgather_for(const Registry& registry, const AlgorithmEntry& allreduce, MemoryKind memory) {
  if (const AlgorithmEntry* e = registry.find(Collective::allgather, allreduce.name)) return *e;
  return *registry.find(Collective::allgather, memory == MemoryKind::host ? "mpi" : "ring");
}

// What one worker measured in one configuration.
struct WorkerRun {
  std::vector<double> durations_ms;  // [timed step][exchange], flattened
  std::vector<std::size_t> bytes;    // per timed step
  std::int64_t wrong = 0;
  std::string error;
};

// One exchange of a step: a bucket (allreduce, or allgather of a sparse tensor), or the
// parameter server's push/pull of every sparse tensor.
struct PlannedExchange {
  enum Kind { bucket, ps_step, all_to_all } kind;
  std::size_t index;  // the bucket's, or the workload's all-to-all's
  bool is_ps() const { return kind == ps_step; }
};

class Replayer {
 public:
  Replayer(const ReplayOptions& r, Session& session, Transport& references)
      : r_(r),
        registry_(session.registry),
        transport_(session.transport),
        references_(references),
        comm_(session.comm),
        topology_(session.topology),
        // NCCL groups one step's sends and receives: its schedules run step by step.
        params_(session.algorithm_params(
            0, transport_row(r.transport).step_order ? ExecutionOrder::steps : ExecutionOrder::dataflow)),
        workload_(r_.loaded),
        compute_(workload_compute(r_, workload_).value()) {
    for (std::size_t i = 0; i < workload_.tensors.size(); ++i) {
      const GradientTensor& t = workload_.tensors[i];
      if (!t.sparse) continue;
      auto it = samplers_.find(t.rows);
      if (it == samplers_.end()) it = samplers_.emplace(t.rows, ZipfSampler(t.rows, workload_.zipf_exponent)).first;
      sampler_of_.push_back(&it->second);
    }
  }

  const Workload& workload() const { return workload_; }
  const ComputeModel& compute() const { return compute_; }

  ReplayConfigResult run(const Configuration& c, bool check) {
    const int rank = transport_.rank(), n = transport_.size();
    const bool ps = c.sparse == SparseStrategy::ps;
    const PsRoles roles = ps ? ps_roles(n, r_.servers) : PsRoles{n, 0};
    ReplayConfigResult res;
    res.workload = workload_.name;
    res.algorithm = result_row_name(*c.algorithm);
    res.bucketing = std::string(kBucketingNames.name(c.bucketing));
    res.sparse_strategy = std::string(kSparseStrategyNames.name(c.sparse));
    res.ps_mode = ps ? r_.ps_mode->variant : "";
    res.ranks = n;
    res.workers = roles.workers();
    res.servers = roles.servers;

    BucketingOptions bo = r_.bucketing;
    bo.policy = c.bucketing;
    const bool rows = c.sparse == SparseStrategy::allgather || ps;
    const std::vector<Bucket> buckets = make_buckets(workload_, compute_.ready_ms, bo, rows);
    describe_exchanges(buckets, ps, res);

    WorkerRun mine;
    if (ps && roles.is_server(rank)) {
      Communicator::split(comm_, 1, rank);  // the split is collective: servers join it, and drop their part
      transport_.set_yield_while_waiting(node_is_oversubscribed(topology_));
      mine.error = run_ps_server(transport_, replay_ps_config(workload_, *r_.ps_mode), roles).error;
      transport_.set_yield_while_waiting(false);
    } else if (ps) {
      const Communicator workers = Communicator::split(comm_, 0, rank);
      mine = run_worker(c, buckets, ps, roles, workers.get(), check);
    } else {
      mine = run_worker(c, buckets, ps, roles, comm_, check);
    }

    throw_if_any_rank_failed(mine.error, comm_);
    const std::int64_t wrong = control_sum(mine.wrong, comm_);
    res.errors = check ? wrong : -1;
    const std::vector<std::string> all = control_allgather(doubles_to_bytes(mine.durations_ms), comm_);
    if (rank == 0) {
      const std::size_t k = res.exchanges.size();
      res.steps.assign(r_.steps, {});
      for (int w = 0; w < roles.workers(); ++w) {
        const std::vector<double> d = bytes_to_doubles(all[w]);
        for (int s = 0; s < r_.steps; ++s)
          res.steps[s].push_back(
              lay_out_step(compute_, ready_, {d.begin() + s * k, d.begin() + (s + 1) * k}, blocking_));
      }
      res.comm_bytes = mine.bytes;
    }
    return res;
  }

 private:
  // Exchanges in issue order: buckets as made, except that a ps step carries every
  // sparse tensor at once, when the last of them is ready.
  void describe_exchanges(const std::vector<Bucket>& buckets, bool ps, ReplayConfigResult& res) {
    plan_.clear();
    ready_.clear();
    blocking_.clear();
    const auto bucket = [](std::size_t i) { return PlannedExchange{PlannedExchange::bucket, i}; };
    double ps_ready = -1;
    std::size_t ps_tensors = 0;
    for (std::size_t i = 0; i < buckets.size(); ++i) {
      const Bucket& b = buckets[i];
      if (ps && b.sparse) {
        ps_ready = std::max(ps_ready, b.ready_ms);
        ps_tensors += b.tensors.size();
        continue;
      }
      const GradientTensor& first = workload_.tensors[b.tensors.front()];
      plan_.push_back(bucket(i));
      res.exchanges.push_back({b.sparse ? "allgather " + first.name : "bucket " + std::to_string(i),
                               b.sparse ? "allgather" : "allreduce", b.tensors.size(), b.bytes, b.ready_ms});
    }
    if (ps_ready >= 0) {
      auto at = std::find_if(res.exchanges.begin(), res.exchanges.end(),
                             [&](const ReplayExchangeInfo& e) { return e.ready_ms > ps_ready; });
      const auto pos = at - res.exchanges.begin();
      res.exchanges.insert(at, {"ps push/pull", "ps", ps_tensors, 0, ps_ready});
      plan_.insert(plan_.begin() + pos, PlannedExchange{PlannedExchange::ps_step, 0});
    }
    add_all_to_alls(res);
    for (const ReplayExchangeInfo& e : res.exchanges) {
      ready_.push_back(e.ready_ms);
      blocking_.push_back(e.kind == "alltoallv");
    }
  }

  // The workload's all-to-alls, each where its pass reaches it: forward ones before
  // backward starts (negative ready times), among the buckets by readiness.
  void add_all_to_alls(ReplayConfigResult& res) {
    for (std::size_t k = 0; k < workload_.all_to_alls.size(); ++k) {
      const AllToAllCall& a = workload_.all_to_alls[k];
      const double ready =
          a.backward ? a.position * compute_.backward_total_ms() : (a.position - 1) * compute_.forward_ms;
      auto at = std::find_if(res.exchanges.begin(), res.exchanges.end(),
                             [&](const ReplayExchangeInfo& e) { return e.ready_ms > ready; });
      const auto pos = at - res.exchanges.begin();
      res.exchanges.insert(at, {a.name, "alltoallv", 1, a.bytes_per_rank(), ready});
      plan_.insert(plan_.begin() + pos, PlannedExchange{PlannedExchange::all_to_all, k});
    }
  }

  WorkerRun run_worker(const Configuration& c, const std::vector<Bucket>& buckets, bool ps, PsRoles roles,
                       MPI_Comm workers, bool check_first_step) {
    // The parameter server's workers run their collectives on a communicator of their own.
    std::optional<MpiTransport> own;
    Transport* tr = &references_;
    if (ps) tr = &own.emplace(workers);
    ExchangeContext ctx{tr, workers, &workspace_, params_, r_.seed, ps ? tr : &transport_};
    ctx.params.node_of_rank.resize(tr->size());
    // Dense buckets live in one arena, as DDP's flat bucket views do.
    std::vector<std::size_t> offset(buckets.size(), 0);
    std::size_t arena = 0;
    for (std::size_t i = 0; i < buckets.size(); ++i)
      if (!buckets[i].sparse) {
        offset[i] = arena;
        arena += (buckets[i].bytes + 63) / 64 * 64;
      }
    if (arena_.size() < arena) arena_ = tr->allocate(arena);
    const auto [a2a_send, a2a_recv] = all_to_all_buffer_bytes(workload_.all_to_alls, tr->rank(), tr->size());
    if (a2a_send_.size() < a2a_send) a2a_send_ = tr->allocate(a2a_send);
    if (a2a_recv_.size() < a2a_recv) a2a_recv_ = tr->allocate(a2a_recv);
    std::vector<std::unique_ptr<Exchange>> ex(plan_.size());
    // Largest first, so the shared scratch has grown to its final size before any
    // prepared call keeps a pointer into it.
    std::vector<std::size_t> order(plan_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto bytes_of = [&](std::size_t i) {
      return plan_[i].kind == PlannedExchange::bucket ? buckets[plan_[i].index].bytes : 0;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return bytes_of(a) > bytes_of(b); });
    for (int attempt = 0; attempt < 2; ++attempt) {
      const std::size_t capacity = workspace_.capacity();
      for (std::size_t i : order) {
        if (plan_[i].is_ps()) {
          if (!ex[i])
            ex[i] = make_ps_exchange(workload_, sampler_of_, replay_ps_config(workload_, *r_.ps_mode), roles,
                                     transport_, r_.seed);
          continue;
        }
        if (plan_[i].kind == PlannedExchange::all_to_all) {
          ex[i] = make_all_to_all_exchange(workload_.all_to_alls[plan_[i].index], *r_.all_to_all,
                                           {a2a_send_.data(), a2a_recv_.data()}, ctx);
          continue;
        }
        const Bucket& b = buckets[plan_[i].index];
        if (b.sparse)
          ex[i] = make_allgather_exchange(workload_, b.tensors.front(), *sampler_for(b.tensors.front()),
                                          allgather_for(registry_, *c.algorithm, r_.memory), ctx);
        else
          ex[i] = make_allreduce_exchange(b, *c.algorithm, arena_.data() + offset[plan_[i].index], ctx);
      }
      if (workspace_.capacity() == capacity) break;
    }
    WorkerRun out;
    const int total = r_.warmup + r_.steps;
    for (int s = 0; s < total; ++s) {
      progress::set_call(s < r_.warmup ? "warm-up step" : "step", s, total);
      const bool check = check_first_step && s == 0;
      for (auto& e : ex) e->prepare_step(s, check);
      MPI_Barrier(workers);
      std::vector<double> ms;
      for (auto& e : ex) ms.push_back(e->run(s) * 1e3);
      if (s >= r_.warmup) out.durations_ms.insert(out.durations_ms.end(), ms.begin(), ms.end());
      if (check)
        for (auto& e : ex) out.wrong += e->wrong();
    }
    std::vector<std::vector<std::size_t>> bytes;
    for (auto& e : ex) {
      if (std::string err = e->finish(); !err.empty() && out.error.empty()) out.error = err;
      bytes.push_back(e->bytes_per_run());
    }
    for (int s = r_.warmup; s < total; ++s) {
      std::size_t sum = 0;
      for (const auto& b : bytes)
        if (static_cast<std::size_t>(s) < b.size()) sum += b[s];
      out.bytes.push_back(sum);
    }
    return out;
  }

  const ZipfSampler* sampler_for(std::size_t tensor) const {
    std::size_t j = 0;
    for (std::size_t i = 0; i < tensor; ++i) j += workload_.tensors[i].sparse;
    return sampler_of_[j];
  }

  const ReplayOptions& r_;
  const Registry& registry_;
  MpiTransport& transport_;  // the session's: the parameter server's, and the harness's own traffic
  Transport& references_;    // carries the dense and allgather exchanges (device memory's, or transport_)
  MPI_Comm comm_;
  const Topology& topology_;
  AlgorithmParams params_;
  const Workload& workload_;  // r_.loaded
  ComputeModel compute_;
  std::map<std::size_t, ZipfSampler> samplers_;  // by table rows
  std::vector<const ZipfSampler*> sampler_of_;   // per sparse tensor, in workload order
  std::vector<PlannedExchange> plan_;            // per exchange, in issue order
  std::vector<double> ready_;                    // per exchange
  std::vector<bool> blocking_;                   // per exchange: an all-to-all the compute waits for
  Workspace workspace_;
  OwnedBuffer arena_;                // the dense buckets, in references_' memory
  OwnedBuffer a2a_send_, a2a_recv_;  // every all-to-all's, one at a time
};

}  // namespace

std::int64_t run_replay(const ReplayOptions& r, Session& session, ResultSink& sink, Transport* references) {
  const int rank = session.rank();

  Replayer replayer(r, session, references ? *references : session.transport);
  const Workload& w = replayer.workload();
  const ComputeModel& c = replayer.compute();
  if (rank == 0)
    print_replay_header(w.description, w.tensors.size(), w.parameters(), w.bytes(), w.sparse_tensors(), c,
                        !r.profile_path.empty(), session.size(), r.steps, r.warmup, r.rounds);
  std::vector<Configuration> configs;
  for (SparseStrategy sparse : r.sparse_strategies)
    for (BucketingPolicy b : r.bucketings)
      for (const AlgorithmEntry* a : r.algorithms) configs.push_back({a, b, sparse});
  // Rounds interleave the configurations, so a machine that drifts between a fast and
  // a slow state shows as spread rather than as a difference between configurations.
  std::vector<ReplayConfigResult> results(configs.size());
  std::int64_t wrong = 0;
  for (int round = 0; round < r.rounds; ++round)
    for (std::size_t i = 0; i < configs.size(); ++i) {
      progress::set_task("replay " + configs[i].algorithm->name + ", " +
                         std::string(kBucketingNames.name(configs[i].bucketing)) + " buckets, round " +
                         std::to_string(round + 1) + " of " + std::to_string(r.rounds));
      ReplayConfigResult res = replayer.run(configs[i], round == 0 && r.check);
      wrong += std::max<std::int64_t>(0, res.errors);
      if (rank != 0) continue;
      ReplayConfigResult& all = results[i];
      const std::size_t first = all.steps.size();
      if (round == 0) {
        all = std::move(res);
      } else {
        all.steps.insert(all.steps.end(), res.steps.begin(), res.steps.end());
        all.comm_bytes.insert(all.comm_bytes.end(), res.comm_bytes.begin(), res.comm_bytes.end());
      }
      for (std::size_t s = first; s < all.steps.size(); ++s) sink.add({replay_step_fields(all, c, s, round)});
      if (round + 1 < r.rounds) continue;
      sink.add({replay_mean_fields(all, c), replay_details(all), replay_line(all, c)});
    }
  if (rank == 0) {
    print_replay_winner(results, c);
    if (!r.timeline_path.empty()) {
      std::vector<std::string> names;
      for (const GradientTensor& t : w.tensors) names.push_back(t.name);
      sink.write_other(timeline_output(r), json_text(replay_trace(results, c, names)) + '\n');
      std::printf("# timeline: %s (open in https://ui.perfetto.dev or chrome://tracing)\n", r.timeline_path.c_str());
    }
  }
  return wrong;
}

}  // namespace collbench

namespace collbench {

void add_replay_metadata(nlohmann::json& m, const ReplayOptions& r) {
  const Workload& w = r.loaded;
  const ComputeModel c = workload_compute(r, w).value();
  std::vector<std::string> buckets, sparse;
  for (BucketingPolicy b : r.bucketings) buckets.emplace_back(kBucketingNames.name(b));
  for (SparseStrategy s : r.sparse_strategies) sparse.emplace_back(kSparseStrategyNames.name(s));
  m["options"] = {{"command", "replay"},
                  {"workload", r.workload},
                  {"batch", r.workload_options.batch},
                  {"seq_len", r.workload_options.seq_len},
                  {"zipf", w.zipf_exponent},
                  {"seed", r.seed},
                  {"algorithms", names_of(r.algorithms)},
                  {"bucketing", buckets},
                  {"ddp_bucket_bytes", r.bucketing.ddp_bucket_bytes},
                  {"ddp_first_bucket_bytes", r.bucketing.ddp_first_bucket_bytes},
                  {"fusion_threshold_bytes", r.bucketing.fusion_threshold_bytes},
                  {"fusion_cycle_ms", r.bucketing.cycle_ms},
                  {"sparse_strategies", sparse},
                  {"servers", r.servers},
                  {"ps_mode", r.ps_mode ? r.ps_mode->variant : ""},
                  {"steps", r.steps},
                  {"rounds", r.rounds},
                  {"warmup", r.warmup},
                  {"check", r.check},
                  {"memory", kMemoryKindNames.name(r.memory)},
                  {"transport", kTransportKindNames.name(r.transport)},
                  {"ranks_per_node", r.ranks_per_node}};
  m["workload"] = {{"name", w.name},
                   {"description", w.description},
                   {"tensors", w.tensors.size()},
                   {"sparse_tensors", w.sparse_tensors()},
                   {"parameters", w.parameters()},
                   {"bytes", w.bytes()}};
  m["compute"] = {{"source", r.profile_path.empty() ? "--compute-ms " + std::to_string(r.compute_ms) +
                                                          " spread by FLOPs, backward twice forward"
                                                    : "profile " + r.profile_path},
                  {"forward_ms", c.forward_ms},
                  {"backward_ms", c.backward_total_ms()},
                  {"optimizer_ms", c.optimizer_ms},
                  {"total_ms", c.total_ms()}};
  m["definitions"] = {
      {"compute_ms", "emulated forward + backward + optimizer of one step"},
      {"comm_ms", "the step's exchanges, measured, summed (slowest worker)"},
      {"step_ms",
       "forward, then backward with each exchange starting when its gradients are ready or the previous "
       "exchange ends, then the optimizer after both; the slowest worker's"},
      {"exposed_ms", "step_ms - compute_ms"},
      {"efficiency", "compute_ms / step_ms"},
      {"comm_bytes",
       "rank 0's payload per step: allreduce buckets' bytes, allgathers' gathered bytes (all ranks' "
       "padded blocks), ps bytes sent and received with headers"},
      {"errors",
       "wrong results of the first warm-up step (ps exchanges are not value-checked here); -1 when not "
       "checked"},
      {"step", "the timed step, or 'mean' for a configuration's summary row"}};
}

}  // namespace collbench
