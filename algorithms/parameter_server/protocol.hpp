#pragma once
// The parameter server as a protocol over a Transport's tagged messages. Servers
// answer whatever arrives; workers push a step's gradients, then pull parameters.
// Every error (a tensor definition that differs between ranks, a bad sparse row, a
// lost push) reaches every rank as text, and every rank still shuts down cleanly.
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "algorithms/parameter_server/plan.hpp"
#include "algorithms/parameter_server/wire.hpp"
#include "collectives/schedule/registry.hpp"
#include "collectives/transport/transport.hpp"

namespace collbench {

// One tensor's part of one step on a worker.
struct PsTensorStep {
  const std::byte* gradient = nullptr;  // dense: the whole tensor; sparse: rows.size() rows, packed
  std::byte* params = nullptr;          // where the pull writes, shaped like `gradient`
  std::vector<std::uint64_t> rows;      // sparse: the rows this step touches
};

struct PsStepRecord {
  double push_s = 0, pull_s = 0;  // push: until every server acknowledged; pull: until all values arrived
  std::int64_t staleness = 0;     // the largest any server reported for this pull
  std::size_t bytes_sent = 0, bytes_received = 0;  // payload and headers, this step
};

struct PsWorkerReport {
  std::vector<PsStepRecord> steps;
  std::int64_t pushes_sent = 0;  // push messages, one per server per step
  std::string error;
};

struct PsServerReport {
  std::size_t ingress_bytes = 0, egress_bytes = 0;
  std::int64_t pushes_received = 0, pulls_served = 0;
  std::vector<double> pull_wait_s;  // per pull: how long consistency held it back
  std::map<std::int64_t, std::int64_t> staleness_counts;
  double elapsed_s = 0;  // from start-up to the last worker's finish
  std::string error;
};

class PsWorker {
 public:
  // Introduces this worker to every server; servers compare the definition.
  PsWorker(Transport& transport, PsConfig config, PsRoles roles);
  const std::string& error() const { return error_; }
  // Pushes one step's gradients, then pulls the parameters. Does nothing and returns
  // false once an error is known; the caller then goes straight to finish().
  bool step(std::span<const PsTensorStep> tensors);
  // Tells every server this worker is done and waits for their answer. Call once.
  PsWorkerReport finish();

 private:
  void abort(const std::string& why);
  void route_sparse(std::span<const PsTensorStep> tensors);
  void post_reply_recv(int server);
  void post_request(int server, ps_wire::Kind kind, const std::byte* data, std::size_t bytes);
  void take_replies(std::int64_t* staleness);

  Transport& tr_;
  PsConfig config_;
  PsRoles roles_;
  PsPlan plan_;
  std::string error_;
  std::int64_t clock_ = 0;  // steps pushed
  PsWorkerReport report_;
  std::vector<std::vector<std::byte>> push_msg_, pull_msg_, pull_values_;       // per server
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> sparse_slots_;  // per server: (tensor, position)
  std::vector<ps_wire::Request> requests_;                                      // per server
  std::vector<ps_wire::Reply> replies_;
  std::vector<Ticket> tickets_;
  std::size_t step_bytes_sent_ = 0, step_bytes_received_ = 0;
};

// Registers ps-sync, ps-async and ps-bounded (family "ps"); each entry's mode is its PsMode.
void register_parameter_server(Registry& registry);
PsMode ps_mode_of(const ProtocolEntry& entry);

// Serves until every worker has finished. Collective with the workers' PsWorker.
// `on_final` (optional) sees every owned partition's final parameters before return.
using PsFinalParams = std::function<void(const PsPartition&, const std::byte* params)>;
PsServerReport run_ps_server(Transport& transport, const PsConfig& config, PsRoles roles,
                             const PsFinalParams& on_final = {});

}  // namespace collbench
