#include "collectives/transport/staged_transport.hpp"

#include <stdexcept>

namespace collbench {

StagedTransport::StagedTransport(Transport& host, MemorySpace& space)
    : host_(host), space_(space), name_(std::string(host.name()) + "-staged") {}

OwnedBuffer StagedTransport::take_staging(std::size_t bytes) {
  auto it = spare_.lower_bound(bytes);
  if (it == spare_.end()) return space_.allocate_staging(bytes);
  OwnedBuffer b = std::move(it->second);
  spare_.erase(it);
  return b;
}

Ticket StagedTransport::start_send(const Message& m) {
  Staged s{take_staging(m.bytes), nullptr, m.bytes};
  space_.copy_out(s.staging.data(), m.data, m.bytes);  // after the operations that wrote it
  const Ticket t = host_.start_send({m.peer, s.staging.data(), m.bytes});
  in_flight_.emplace(t, std::move(s));
  return t;
}

Ticket StagedTransport::start_recv(const Message& m) {
  Staged s{take_staging(m.bytes), m.data, m.bytes};
  const Ticket t = host_.start_recv({m.peer, s.staging.data(), m.bytes});
  in_flight_.emplace(t, std::move(s));
  return t;
}

Ticket StagedTransport::post_send(int, int, const std::byte*, std::size_t) {
  throw std::logic_error("the staged transport carries schedule messages only, not tagged ones");
}
Ticket StagedTransport::post_recv(int, int, std::byte*, std::size_t) {
  throw std::logic_error("the staged transport carries schedule messages only, not tagged ones");
}

void StagedTransport::finish(Ticket t) {
  auto it = in_flight_.find(t);
  if (it == in_flight_.end()) throw std::logic_error("staged transport: a ticket it did not start");
  Staged& s = it->second;
  if (s.copy_to) space_.copy_in(s.copy_to, s.staging.data(), s.bytes);
  const std::size_t capacity = s.staging.size();
  spare_.emplace(capacity, std::move(s.staging));
  in_flight_.erase(it);
}

Completion StagedTransport::wait_any(std::span<const Ticket> tickets) {
  const Completion c = host_.wait_any(tickets);
  finish(tickets[c.index]);
  return c;
}

void StagedTransport::wait_some(std::span<const Ticket> tickets, std::vector<std::size_t>& done) {
  const std::size_t before = done.size();
  host_.wait_some(tickets, done);
  for (std::size_t i = before; i < done.size(); ++i) finish(tickets[done[i]]);
}

void StagedTransport::wait_all(std::span<const Ticket> tickets) {
  host_.wait_all(tickets);
  for (Ticket t : tickets) finish(t);
}

}  // namespace collbench
