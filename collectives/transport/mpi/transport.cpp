#include "collectives/transport/mpi/transport.hpp"

#include <sched.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace collbench {

namespace {
// Schedule messages use tag 0; tagged messages start above it.
constexpr int kFirstMessageTag = 1;

int message_count(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::length_error("a message of " + std::to_string(bytes) + " bytes is larger than MPI's int count");
  return static_cast<int>(bytes);
}
}  // namespace

MpiTransport::MpiTransport(MPI_Comm parent) : comm_(Communicator::duplicate(parent)) {
  MPI_Comm_rank(comm_.get(), &rank_);
  MPI_Comm_size(comm_.get(), &size_);
}

void MpiTransport::complete_all(std::vector<MPI_Request>& requests) const {
  const int n = static_cast<int>(requests.size());
  if (!yield_) {
    MPI_Waitall(n, requests.data(), MPI_STATUSES_IGNORE);
    return;
  }
  for (int done = 0;; sched_yield()) {
    MPI_Testall(n, requests.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return;
  }
}

void MpiTransport::wait_all(std::span<const Ticket> tickets) {
  waiting_.clear();
  for (Ticket t : tickets) waiting_.push_back(tickets_.at(static_cast<std::size_t>(t)));
  complete_all(waiting_);
  for (Ticket t : tickets) {
    tickets_[static_cast<std::size_t>(t)] = MPI_REQUEST_NULL;
    free_tickets_.push_back(t);
  }
}

Ticket MpiTransport::keep(MPI_Request request, bool is_send) {
  if (free_tickets_.empty()) {
    tickets_.push_back(MPI_REQUEST_NULL);
    ticket_is_send_.push_back(0);
    free_tickets_.push_back(static_cast<Ticket>(tickets_.size() - 1));
  }
  const Ticket t = free_tickets_.back();
  free_tickets_.pop_back();
  tickets_[static_cast<std::size_t>(t)] = request;
  ticket_is_send_[static_cast<std::size_t>(t)] = is_send;
  return t;
}

// One request per message: the executor already cut regions larger than MPI's int count
// (split_large_transfers), so message_count only guards.
Ticket MpiTransport::start_send(const Message& m) {
  MPI_Request req;
  MPI_Isend(m.data, message_count(m.bytes), MPI_BYTE, m.peer, 0, comm_.get(), &req);
  return keep(req, true);
}

Ticket MpiTransport::start_recv(const Message& m) {
  MPI_Request req;
  MPI_Irecv(m.data, message_count(m.bytes), MPI_BYTE, m.peer, 0, comm_.get(), &req);
  return keep(req, false);
}

void MpiTransport::wait_some(std::span<const Ticket> tickets, std::vector<std::size_t>& done) {
  waiting_.clear();
  for (Ticket t : tickets) waiting_.push_back(tickets_.at(static_cast<std::size_t>(t)));
  const int n = static_cast<int>(waiting_.size());
  indices_.resize(waiting_.size());
  int completed = 0;
  if (!yield_) {
    MPI_Waitsome(n, waiting_.data(), &completed, indices_.data(), MPI_STATUSES_IGNORE);
  } else {
    for (;;) {
      MPI_Testsome(n, waiting_.data(), &completed, indices_.data(), MPI_STATUSES_IGNORE);
      if (completed != 0) break;
      sched_yield();
    }
  }
  if (completed == MPI_UNDEFINED) throw std::logic_error("wait_some on tickets that were all spent");
  for (int i = 0; i < completed; ++i) {
    const auto at = static_cast<std::size_t>(indices_[static_cast<std::size_t>(i)]);
    const Ticket spent = tickets[at];
    tickets_[static_cast<std::size_t>(spent)] = MPI_REQUEST_NULL;
    free_tickets_.push_back(spent);
    done.push_back(at);
  }
}

Ticket MpiTransport::post_send(int peer, int tag, const std::byte* data, std::size_t bytes) {
  MPI_Request req;
  MPI_Isend(data, message_count(bytes), MPI_BYTE, peer, kFirstMessageTag + tag, comm_.get(), &req);
  return keep(req, true);
}

Ticket MpiTransport::post_recv(int peer, int tag, std::byte* data, std::size_t capacity) {
  MPI_Request req;
  MPI_Irecv(data, message_count(capacity), MPI_BYTE, peer, kFirstMessageTag + tag, comm_.get(), &req);
  return keep(req, false);
}

Completion MpiTransport::wait_any(std::span<const Ticket> tickets) {
  waiting_.clear();
  for (Ticket t : tickets) waiting_.push_back(tickets_.at(static_cast<std::size_t>(t)));
  int index = MPI_UNDEFINED;
  MPI_Status status;
  const int n = static_cast<int>(waiting_.size());
  if (!yield_) {
    MPI_Waitany(n, waiting_.data(), &index, &status);
  } else {
    for (int flag = 0; !flag;) {
      MPI_Testany(n, waiting_.data(), &index, &flag, &status);
      if (!flag) sched_yield();
    }
  }
  if (index == MPI_UNDEFINED) throw std::logic_error("wait_any on tickets that were all spent");
  const Ticket spent = tickets[static_cast<std::size_t>(index)];
  int count = 0;
  if (!ticket_is_send_[static_cast<std::size_t>(spent)]) MPI_Get_count(&status, MPI_BYTE, &count);
  tickets_[static_cast<std::size_t>(spent)] = MPI_REQUEST_NULL;
  free_tickets_.push_back(spent);
  return {static_cast<std::size_t>(index), static_cast<std::size_t>(std::max(count, 0))};
}

}  // namespace collbench
