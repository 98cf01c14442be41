#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <limits>

#include "algorithms/parameter_server/protocol.hpp"
#include "collectives/kernels/reduce_kernels.hpp"
#include "collectives/schedule/registry.hpp"

namespace collbench {
namespace {

using Clock = std::chrono::steady_clock;
using ps_wire::Kind;

struct WorkerState {
  ps_wire::Request incoming{}, current{};
  int data_pending = 0;
  std::vector<std::byte> push_in;  // dense gradients, laid out like the shard
  std::vector<std::byte> sparse_in, sparse_out;
  std::string text;
  std::int64_t pushes = 0;
  bool finished = false;
  bool pull_pending = false;
  Clock::time_point pull_arrived;
  ps_wire::Reply ack{}, pull_reply{};
  Ticket ack_send = -1, pull_reply_send = -1;
  std::vector<Ticket> pull_sends;  // the pull's values, read from the shard while in flight
};

struct SparseRows {
  std::vector<std::uint64_t> counts;  // per sparse tensor
  const std::uint64_t* rows = nullptr;
  const std::byte* values = nullptr;
};

class PsServer {
 public:
  PsServer(Transport& tr, const PsConfig& config, PsRoles roles)
      : tr_(tr),
        config_(config),
        roles_(roles),
        plan_(make_ps_plan(config, roles.servers)),
        me_(roles.server_index(tr.rank())),
        elem_(dtype_size(config.dtype)),
        workers_(static_cast<std::size_t>(roles.workers())) {
    offset_.assign(plan_.partitions.size(), kNotMine);
    std::size_t bytes = 0;
    for (std::size_t p = 0; p < plan_.partitions.size(); ++p) {
      const PsPartition& part = plan_.partitions[p];
      if (part.server != me_) continue;
      offset_[p] = bytes;
      owned_.push_back(p);
      bytes += part.rows * row_bytes(part.tensor);
    }
    shard_.resize(bytes);
    for (std::size_t p : owned_) {
      const PsPartition& part = plan_.partitions[p];
      ps_initial_params(config_.dtype, part.tensor, part.first_row * part.row_elements, part.elements(),
                        shard_.data() + offset_[p]);
    }
    if (config_.mode == PsMode::sync)
      for (auto& a : sum_) a.assign(bytes, std::byte{0});
  }

  PsServerReport run(const PsFinalParams& on_final) {
    const auto start = Clock::now();
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      workers_[w].push_in.resize(shard_.size());
      post_request_recv(static_cast<int>(w));
    }
    while (!waiting_.empty()) {
      const Completion c = tr_.wait_any(waiting_);
      const Waiting what = owners_[c.index];
      waiting_[c.index] = waiting_.back();
      waiting_.pop_back();
      owners_[c.index] = owners_.back();
      owners_.pop_back();
      report_.ingress_bytes += c.bytes;
      WorkerState& ws = workers_[static_cast<std::size_t>(what.worker)];
      if (what.is_request)
        on_request(what.worker);
      else if (--ws.data_pending == 0)
        on_request_complete(what.worker);
    }
    for (WorkerState& ws : workers_) {
      finish_sends(ws);
      if (ws.ack_send >= 0) tr_.wait(ws.ack_send);
    }
    report_.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
    if (on_final)
      for (std::size_t p : owned_) on_final(plan_.partitions[p], shard_.data() + offset_[p]);
    report_.error = error_;
    return std::move(report_);
  }

 private:
  static constexpr std::size_t kNotMine = std::numeric_limits<std::size_t>::max();
  struct Waiting {
    int worker = 0;
    bool is_request = false;
  };

  std::size_t row_bytes(std::size_t tensor) const { return config_.tensors[tensor].row_elements * elem_; }
  std::string whoami() const { return "server rank " + std::to_string(tr_.rank()); }

  void wait_for(int worker, bool is_request, Ticket t) {
    waiting_.push_back(t);
    owners_.push_back({worker, is_request});
  }
  void post_request_recv(int w) {
    WorkerState& ws = workers_[static_cast<std::size_t>(w)];
    wait_for(w, true,
             tr_.post_recv(w, ps_wire::kRequest, reinterpret_cast<std::byte*>(&ws.incoming), sizeof ws.incoming));
  }
  void post_data_recv(int w, std::byte* data, std::size_t bytes) {
    ++workers_[static_cast<std::size_t>(w)].data_pending;
    wait_for(w, false, tr_.post_recv(w, ps_wire::kRequestData, data, bytes));
  }

  void on_request(int w) {
    WorkerState& ws = workers_[static_cast<std::size_t>(w)];
    ws.current = ws.incoming;
    const auto bytes = static_cast<std::size_t>(std::max<std::int64_t>(0, ws.current.bytes));
    switch (ws.current.kind) {
      case Kind::hello:
      case Kind::abort:
        ws.text.assign(bytes, '\0');
        if (bytes) post_data_recv(w, reinterpret_cast<std::byte*>(ws.text.data()), bytes);
        break;
      case Kind::push:
        for (std::size_t p : dense_partitions())
          post_data_recv(w, ws.push_in.data() + offset_[p], plan_.partitions[p].elements() * elem_);
        [[fallthrough]];
      case Kind::pull:
        ws.sparse_in.resize(bytes);
        if (bytes) post_data_recv(w, ws.sparse_in.data(), bytes);
        break;
      case Kind::finish: break;
    }
    if (ws.data_pending == 0) on_request_complete(w);
  }

  void on_request_complete(int w) {
    WorkerState& ws = workers_[static_cast<std::size_t>(w)];
    // Only now, so the next request cannot replace this one while its data is on the way
    // (an abort's text, then the finish right behind it). Finish is a worker's last word.
    if (ws.current.kind != Kind::finish) post_request_recv(w);
    switch (ws.current.kind) {
      case Kind::hello: {
        const std::string mine = ps_definition(config_, roles_.servers);
        if (ws.text != mine)
          fail("tensor definitions differ between ranks: worker rank " + std::to_string(w) + " has '" + ws.text +
               "' but " + whoami() + " has '" + mine + "'");
        send_ack(w);
        break;
      }
      case Kind::abort: fail(ws.text); break;
      case Kind::push: apply_push(w); break;
      case Kind::pull:
        ws.pull_pending = true;
        ws.pull_arrived = Clock::now();
        serve_ready_pulls();
        break;
      case Kind::finish:
        ws.finished = true;
        if (ws.current.clock != ws.pushes)
          fail(whoami() + " received " + std::to_string(ws.pushes) + " push(es) from worker rank " + std::to_string(w) +
               ", which sent " + std::to_string(ws.current.clock));
        serve_ready_pulls();
        // Answered together once all have finished, so every worker hears of any error.
        if (std::all_of(workers_.begin(), workers_.end(), [](const WorkerState& x) { return x.finished; }))
          for (std::size_t v = 0; v < workers_.size(); ++v) send_ack(static_cast<int>(v));
        break;
    }
  }

  void fail(const std::string& why) {
    if (!error_.empty()) return;
    error_ = why;
    serve_ready_pulls();
  }

  void send_ack(int w) {
    WorkerState& ws = workers_[static_cast<std::size_t>(w)];
    if (ws.ack_send >= 0) tr_.wait(ws.ack_send);
    ws.ack = {};
    ps_wire::set_error(ws.ack, error_);
    ws.ack_send =
        tr_.post_send(w, ps_wire::kReply, reinterpret_cast<const std::byte*>(&ws.ack), ps_wire::reply_bytes(ws.ack));
    report_.egress_bytes += ps_wire::reply_bytes(ws.ack);
  }

  // A sparse message's leading row count per sparse tensor; false if it is too short.
  bool read_counts(const std::vector<std::byte>& msg, std::vector<std::uint64_t>& counts) const {
    counts.assign(plan_.sparse_tensors.size(), 0);
    const std::size_t header = ps_wire::sparse_counts_bytes(counts.size());
    if (msg.size() < header) return false;
    std::memcpy(counts.data(), msg.data(), header);
    return true;
  }
  std::size_t value_bytes(const std::vector<std::uint64_t>& counts) const {
    std::size_t bytes = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) bytes += counts[i] * row_bytes(plan_.sparse_tensors[i]);
    return bytes;
  }

  // Parses a sparse push or pull; rows must be in range, owned here and (in a push) unique.
  bool parse_sparse(const std::vector<std::byte>& msg, bool with_values, SparseRows& out) {
    if (msg.empty()) {
      out.counts.assign(plan_.sparse_tensors.size(), 0);
      return true;
    }
    if (!read_counts(msg, out.counts)) return false;
    const std::size_t header = ps_wire::sparse_counts_bytes(out.counts.size());
    std::size_t total = 0;
    for (std::uint64_t c : out.counts) total += c;
    if (msg.size() != header + total * sizeof(std::uint64_t) + (with_values ? value_bytes(out.counts) : 0))
      return false;
    out.rows = reinterpret_cast<const std::uint64_t*>(msg.data() + header);
    out.values = msg.data() + header + total * sizeof(std::uint64_t);
    const std::uint64_t* r = out.rows;
    for (std::size_t i = 0; i < plan_.sparse_tensors.size(); ++i) {
      const std::size_t t = plan_.sparse_tensors[i];
      std::vector<std::uint64_t> rows(r, r + out.counts[i]);
      r += out.counts[i];
      if (std::string p = sparse_indices_problem(rows, config_.tensors[t].rows); !p.empty()) {
        fail(whoami() + ", tensor '" + config_.tensors[t].name + "': " + p);
        return false;
      }
      for (std::uint64_t row : rows)
        if (offset_[plan_.partition_of(t, row)] == kNotMine) {
          fail(whoami() + " was sent row " + std::to_string(row) + " of tensor '" + config_.tensors[t].name +
               "', which another server owns");
          return false;
        }
    }
    return true;
  }

  // Calls f(offset in the shard, bytes, offset among the message's values) for each
  // sparse row. Tables may differ in row width, so value offsets are summed, not k * rb.
  template <class F>
  void for_each_sparse_row(const SparseRows& rows, F f) const {
    std::size_t k = 0, value_offset = 0;
    for (std::size_t i = 0; i < plan_.sparse_tensors.size(); ++i) {
      const std::size_t t = plan_.sparse_tensors[i];
      const std::size_t rb = row_bytes(t);
      for (std::uint64_t c = 0; c < rows.counts[i]; ++c, ++k, value_offset += rb) {
        const std::uint64_t row = rows.rows[k];
        const std::size_t p = plan_.partition_of(t, row);
        f(offset_[p] + (row - plan_.partitions[p].first_row) * rb, rb, value_offset);
      }
    }
  }

  // A pull's values are read straight from the shard, so no update may start while one is in flight.
  void finish_sends(WorkerState& ws) {
    if (!ws.pull_sends.empty()) tr_.wait_all(ws.pull_sends);
    ws.pull_sends.clear();
    if (ws.pull_reply_send >= 0) tr_.wait(ws.pull_reply_send);
    ws.pull_reply_send = -1;
  }
  void before_update() {
    for (WorkerState& ws : workers_) finish_sends(ws);
  }

  void apply_push(int w) {
    WorkerState& ws = workers_[static_cast<std::size_t>(w)];
    SparseRows rows;
    const bool ok = error_.empty() && parse_sparse(ws.sparse_in, true, rows);
    const std::int64_t step = ws.pushes++;
    ++report_.pushes_received;
    if (ok) {
      if (config_.mode == PsMode::sync)
        accumulate(ws, rows, step);
      else
        update(ws.push_in.data(), rows);
    }
    send_ack(w);
    serve_ready_pulls();
  }

  const std::vector<std::size_t>& dense_partitions() const {
    return plan_.dense_partitions[static_cast<std::size_t>(me_)];
  }

  // SGD on the dense partitions, with `gradient` laid out like the shard.
  void update_dense(const std::byte* gradient) {
    for (std::size_t p : dense_partitions())
      sgd_update(config_.dtype, shard_.data() + offset_[p], gradient + offset_[p], plan_.partitions[p].elements(),
                 config_.learning_rate);
  }

  // Applies `gradient` (dense, shard layout) and the sparse rows to the shard.
  void update(const std::byte* gradient, const SparseRows& rows) {
    before_update();
    update_dense(gradient);
    for_each_sparse_row(rows, [&](std::size_t off, std::size_t rb, std::size_t value) {
      sgd_update(config_.dtype, shard_.data() + off, rows.values + value, rb / elem_, config_.learning_rate);
    });
  }

  // Sync: sums the step's pushes; once every worker has pushed it, applies the sum once.
  // Steps in flight differ by at most one (a worker pushes step t+1 only after pulling
  // step t), so two sums suffice.
  void accumulate(WorkerState& ws, const SparseRows& rows, std::int64_t step) {
    const auto slot = static_cast<std::size_t>(step % 2);
    auto& sum = sum_[slot];
    for (std::size_t p : dense_partitions()) {
      const std::size_t n = plan_.partitions[p].elements();
      std::byte* s = sum.data() + offset_[p];
      if (arrived_[slot] == 0)
        std::memcpy(s, ws.push_in.data() + offset_[p], n * elem_);
      else
        reduce(config_.dtype, ReduceOp::sum, s, s, ws.push_in.data() + offset_[p], n);
    }
    for_each_sparse_row(rows, [&](std::size_t off, std::size_t rb, std::size_t value) {
      reduce(config_.dtype, ReduceOp::sum, sum.data() + off, sum.data() + off, rows.values + value, rb / elem_);
      touched_[slot].emplace_back(off, rb);
    });
    if (++arrived_[slot] < roles_.workers() || step != applied_) return;
    before_update();
    update_dense(sum.data());
    auto& touched = touched_[slot];
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (auto [off, rb] : touched) {
      sgd_update(config_.dtype, shard_.data() + off, sum.data() + off, rb / elem_, config_.learning_rate);
      std::memset(sum.data() + off, 0, rb);
    }
    touched.clear();
    arrived_[slot] = 0;
    ++applied_;
  }

  std::int64_t slowest_clock() const {
    std::int64_t m = std::numeric_limits<std::int64_t>::max();
    for (const WorkerState& ws : workers_)
      if (!ws.finished) m = std::min(m, ws.pushes);
    return m;
  }

  void serve_ready_pulls() {
    const std::int64_t slowest = slowest_clock();
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      WorkerState& ws = workers_[w];
      if (!ws.pull_pending) continue;
      const std::int64_t clock = ws.current.clock;
      if (error_.empty() && config_.mode == PsMode::sync)
        for (std::size_t v = 0; v < workers_.size(); ++v)
          if (workers_[v].finished && workers_[v].pushes < clock) {
            fail("worker rank " + std::to_string(v) + " finished after " + std::to_string(workers_[v].pushes) +
                 " step(s) while worker rank " + std::to_string(w) + " waits for step " + std::to_string(clock) +
                 "; sync needs every worker to push every step");
            return;  // fail() served every pull
          }
      if (error_.empty() && !ps_pull_may_proceed(config_.mode, config_.staleness, clock, slowest, applied_)) continue;
      serve_pull(static_cast<int>(w), slowest == std::numeric_limits<std::int64_t>::max() ? clock : slowest);
    }
  }

  void serve_pull(int w, std::int64_t slowest) {
    WorkerState& ws = workers_[static_cast<std::size_t>(w)];
    ws.pull_pending = false;
    finish_sends(ws);
    SparseRows rows;
    const bool ok = error_.empty() && parse_sparse(ws.sparse_in, false, rows);
    const auto waited = Clock::now() - ws.pull_arrived;
    ws.pull_reply = {};
    ps_wire::set_error(ws.pull_reply, error_);
    ws.pull_reply.staleness = ps_pull_staleness(ws.current.clock, slowest);
    ws.pull_reply.wait_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count();
    ws.pull_reply_send = tr_.post_send(w, ps_wire::kReply, reinterpret_cast<const std::byte*>(&ws.pull_reply),
                                       ps_wire::reply_bytes(ws.pull_reply));
    report_.egress_bytes += ps_wire::reply_bytes(ws.pull_reply);
    for (std::size_t p : dense_partitions()) {
      const std::size_t bytes = plan_.partitions[p].elements() * elem_;
      ws.pull_sends.push_back(tr_.post_send(w, ps_wire::kReplyData, shard_.data() + offset_[p], bytes));
      report_.egress_bytes += bytes;
    }
    if (!ws.sparse_in.empty()) {
      // The worker expects one value message sized by its counts, even when the request was bad.
      ws.sparse_out.clear();
      if (ok)
        for_each_sparse_row(rows, [&](std::size_t off, std::size_t rb, std::size_t) {
          ws.sparse_out.insert(ws.sparse_out.end(), shard_.data() + off, shard_.data() + off + rb);
        });
      else if (std::vector<std::uint64_t> counts; read_counts(ws.sparse_in, counts))
        ws.sparse_out.resize(value_bytes(counts));
      ws.pull_sends.push_back(tr_.post_send(w, ps_wire::kReplyData, ws.sparse_out.data(), ws.sparse_out.size()));
      report_.egress_bytes += ws.sparse_out.size();
    }
    ++report_.pulls_served;
    report_.pull_wait_s.push_back(std::chrono::duration<double>(waited).count());
    ++report_.staleness_counts[ws.pull_reply.staleness];
  }

  Transport& tr_;
  const PsConfig& config_;
  PsRoles roles_;
  PsPlan plan_;
  int me_;
  std::size_t elem_;
  std::vector<std::size_t> offset_;  // per partition: byte offset in the shard, or kNotMine
  std::vector<std::size_t> owned_;   // partitions held here, in shard order
  std::vector<std::byte> shard_;
  std::array<std::vector<std::byte>, 2> sum_;
  std::array<std::vector<std::pair<std::size_t, std::size_t>>, 2> touched_;  // sparse rows summed: (offset, bytes)
  std::array<int, 2> arrived_{0, 0};
  std::int64_t applied_ = 0;
  std::vector<WorkerState> workers_;
  std::vector<Ticket> waiting_;
  std::vector<Waiting> owners_;
  std::string error_;
  PsServerReport report_;
};

}  // namespace

PsServerReport run_ps_server(Transport& transport, const PsConfig& config, PsRoles roles,
                             const PsFinalParams& on_final) {
  return PsServer(transport, config, roles).run(on_final);
}

void register_parameter_server(Registry& registry) {
  const char* summaries[] = {
      "parameter server: a step's pushes are summed and applied once; pulls wait for that",
      "parameter server: each push applied on arrival; pulls answered at once",
      "parameter server: applied on arrival; a pull waits while its worker is over --staleness steps ahead of the "
      "slowest"};
  for (PsMode m : kPsModeNames.values()) {
    const std::string variant(kPsModeNames.name(m));
    registry.add_protocol({"ps", "ps-" + variant, variant, summaries[static_cast<int>(m)], static_cast<int>(m)});
  }
}

PsMode ps_mode_of(const ProtocolEntry& entry) { return static_cast<PsMode>(entry.mode); }

}  // namespace collbench
