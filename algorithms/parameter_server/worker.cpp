#include <algorithm>
#include <chrono>
#include <cstring>

#include "algorithms/parameter_server/protocol.hpp"

namespace collbench {
namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

using ps_wire::Kind;

PsWorker::PsWorker(Transport& transport, PsConfig config, PsRoles roles)
    : tr_(transport), config_(std::move(config)), roles_(roles), plan_(make_ps_plan(config_, roles.servers)) {
  const auto S = static_cast<std::size_t>(roles_.servers);
  push_msg_.resize(S);
  pull_msg_.resize(S);
  pull_values_.resize(S);
  sparse_slots_.resize(S);
  requests_.resize(S);
  replies_.resize(S);

  const std::string definition = ps_definition(config_, roles_.servers);
  tickets_.clear();
  for (int s = 0; s < roles_.servers; ++s) {
    post_reply_recv(s);
    post_request(s, Kind::hello, reinterpret_cast<const std::byte*>(definition.data()), definition.size());
  }
  tr_.wait_all(tickets_);
  take_replies(nullptr);
}

void PsWorker::post_reply_recv(int s) {
  tickets_.push_back(tr_.post_recv(roles_.server_rank(s), ps_wire::kReply,
                                   reinterpret_cast<std::byte*>(&replies_[static_cast<std::size_t>(s)]),
                                   sizeof(ps_wire::Reply)));
}

// Sends request header `kind` to server `s`, and `bytes` of data after it if any.
void PsWorker::post_request(int s, Kind kind, const std::byte* data, std::size_t bytes) {
  ps_wire::Request& r = requests_[static_cast<std::size_t>(s)];
  r = {kind, 0, clock_, static_cast<std::int64_t>(bytes)};
  const int peer = roles_.server_rank(s);
  tickets_.push_back(tr_.post_send(peer, ps_wire::kRequest, reinterpret_cast<const std::byte*>(&r), sizeof r));
  step_bytes_sent_ += sizeof r;
  if (bytes > 0) {
    tickets_.push_back(tr_.post_send(peer, ps_wire::kRequestData, data, bytes));
    step_bytes_sent_ += bytes;
  }
}

void PsWorker::take_replies(std::int64_t* staleness) {
  for (const ps_wire::Reply& r : replies_) {
    step_bytes_received_ += ps_wire::reply_bytes(r);
    if (r.status && error_.empty()) error_ = r.text;
    if (staleness) *staleness = std::max<std::int64_t>(*staleness, r.staleness);
  }
}

void PsWorker::abort(const std::string& why) {
  error_ = why;
  tickets_.clear();
  for (int s = 0; s < roles_.servers; ++s)
    post_request(s, Kind::abort, reinterpret_cast<const std::byte*>(why.data()), why.size());
  tr_.wait_all(tickets_);
}

// Splits the step's sparse rows by owning server into push and pull messages.
void PsWorker::route_sparse(std::span<const PsTensorStep> tensors) {
  const std::vector<std::size_t>& sparse = plan_.sparse_tensors;
  const std::size_t elem = dtype_size(config_.dtype);
  for (int s = 0; s < roles_.servers; ++s) {
    auto& slots = sparse_slots_[static_cast<std::size_t>(s)];
    slots.clear();
    for (std::size_t t : sparse)
      for (std::size_t j = 0; j < tensors[t].rows.size(); ++j)
        if (plan_.partitions[plan_.partition_of(t, tensors[t].rows[j])].server == s) slots.emplace_back(t, j);
    auto& push = push_msg_[static_cast<std::size_t>(s)];
    auto& pull = pull_msg_[static_cast<std::size_t>(s)];
    push.clear();
    pull.clear();
    pull_values_[static_cast<std::size_t>(s)].clear();
    if (sparse.empty()) continue;
    std::size_t value_bytes = 0;
    std::vector<std::uint64_t> header;
    for (std::size_t t : sparse)
      header.push_back(static_cast<std::uint64_t>(
          std::count_if(slots.begin(), slots.end(), [t](const auto& slot) { return slot.first == t; })));
    for (const auto& [t, j] : slots) {
      header.push_back(tensors[t].rows[j]);
      value_bytes += config_.tensors[t].row_elements * elem;
    }
    if (slots.empty()) continue;  // nothing for this server: no data message at all
    const auto* h = reinterpret_cast<const std::byte*>(header.data());
    pull.assign(h, h + header.size() * sizeof(std::uint64_t));
    push = pull;
    for (const auto& [t, j] : slots) {
      const std::size_t row_bytes = config_.tensors[t].row_elements * elem;
      const std::byte* row = tensors[t].gradient + j * row_bytes;
      push.insert(push.end(), row, row + row_bytes);
    }
    pull_values_[static_cast<std::size_t>(s)].resize(value_bytes);
  }
}

bool PsWorker::step(std::span<const PsTensorStep> tensors) {
  if (!error_.empty()) return false;
  const int me = tr_.rank();
  if (tensors.size() != config_.tensors.size()) {
    abort("worker rank " + std::to_string(me) + " stepped with " + std::to_string(tensors.size()) +
          " tensor(s) but the model defines " + std::to_string(config_.tensors.size()));
    return false;
  }
  for (std::size_t t = 0; t < tensors.size(); ++t)
    if (config_.tensors[t].sparse)
      if (std::string p = sparse_indices_problem(tensors[t].rows, config_.tensors[t].rows); !p.empty()) {
        abort("worker rank " + std::to_string(me) + ", tensor '" + config_.tensors[t].name + "': " + p);
        return false;
      }
  route_sparse(tensors);
  const std::size_t elem = dtype_size(config_.dtype);
  auto slice = [&](std::size_t p, std::byte* base) {
    const PsPartition& part = plan_.partitions[p];
    return std::pair{base + part.first_row * part.row_elements * elem, part.elements() * elem};
  };
  step_bytes_sent_ = step_bytes_received_ = 0;
  PsStepRecord record;

  const auto t0 = std::chrono::steady_clock::now();
  tickets_.clear();
  for (int s = 0; s < roles_.servers; ++s) {
    const auto si = static_cast<std::size_t>(s);
    post_reply_recv(s);
    post_request(s, Kind::push, push_msg_[si].data(), push_msg_[si].size());
    for (std::size_t p : plan_.dense_partitions[si]) {
      auto [data, bytes] = slice(p, const_cast<std::byte*>(tensors[plan_.partitions[p].tensor].gradient));
      tickets_.push_back(tr_.post_send(roles_.server_rank(s), ps_wire::kRequestData, data, bytes));
      step_bytes_sent_ += bytes;
    }
  }
  tr_.wait_all(tickets_);
  take_replies(nullptr);
  ++clock_;
  report_.pushes_sent += roles_.servers;
  record.push_s = seconds_since(t0);
  if (!error_.empty()) return false;

  const auto t1 = std::chrono::steady_clock::now();
  tickets_.clear();
  for (int s = 0; s < roles_.servers; ++s) {
    const auto si = static_cast<std::size_t>(s);
    const int peer = roles_.server_rank(s);
    post_reply_recv(s);
    for (std::size_t p : plan_.dense_partitions[si]) {
      auto [data, bytes] = slice(p, tensors[plan_.partitions[p].tensor].params);
      tickets_.push_back(tr_.post_recv(peer, ps_wire::kReplyData, data, bytes));
      step_bytes_received_ += bytes;
    }
    if (!pull_values_[si].empty()) {
      tickets_.push_back(tr_.post_recv(peer, ps_wire::kReplyData, pull_values_[si].data(), pull_values_[si].size()));
      step_bytes_received_ += pull_values_[si].size();
    }
    post_request(s, Kind::pull, pull_msg_[si].data(), pull_msg_[si].size());
  }
  tr_.wait_all(tickets_);
  take_replies(&record.staleness);
  for (int s = 0; s < roles_.servers; ++s) {
    const std::byte* values = pull_values_[static_cast<std::size_t>(s)].data();
    for (const auto& [t, j] : sparse_slots_[static_cast<std::size_t>(s)]) {
      const std::size_t row_bytes = config_.tensors[t].row_elements * elem;
      std::memcpy(tensors[t].params + j * row_bytes, values, row_bytes);
      values += row_bytes;
    }
  }
  record.pull_s = seconds_since(t1);
  record.bytes_sent = step_bytes_sent_;
  record.bytes_received = step_bytes_received_;
  report_.steps.push_back(record);
  return error_.empty();
}

PsWorkerReport PsWorker::finish() {
  tickets_.clear();
  for (int s = 0; s < roles_.servers; ++s) {
    post_reply_recv(s);
    post_request(s, Kind::finish, nullptr, 0);
  }
  tr_.wait_all(tickets_);
  take_replies(nullptr);
  report_.error = error_;
  return std::move(report_);
}

}  // namespace collbench
