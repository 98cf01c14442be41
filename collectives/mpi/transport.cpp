#include "collectives/mpi/transport.hpp"

#include <sched.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace collbench {

namespace {
// MPI counts are int; larger messages go as several pieces, which MPI's
// non-overtaking rule delivers in order.
constexpr std::size_t kMaxPiece = std::size_t{1} << 30;
// exchange() uses tag 0; tagged messages start above it.
constexpr int kFirstMessageTag = 1;

int message_count(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::length_error("a tagged message of " + std::to_string(bytes) + " bytes is larger than MPI's int count");
  return static_cast<int>(bytes);
}
}  // namespace

MpiTransport::MpiTransport(MPI_Comm parent) : comm_(Communicator::duplicate(parent)) {
  MPI_Comm_rank(comm_.get(), &rank_);
  MPI_Comm_size(comm_.get(), &size_);
}

void MpiTransport::exchange(std::span<const Message> sends, std::span<const Message> recvs) {
  requests_.clear();
  auto post = [&](const Message& m, bool is_send) {
    std::size_t done = 0;
    do {
      const int n = static_cast<int>(std::min(kMaxPiece, m.bytes - done));
      MPI_Request req;
      if (is_send) MPI_Isend(m.data + done, n, MPI_BYTE, m.peer, 0, comm_.get(), &req);
      else MPI_Irecv(m.data + done, n, MPI_BYTE, m.peer, 0, comm_.get(), &req);
      requests_.push_back(req);
      done += static_cast<std::size_t>(n);
    } while (done < m.bytes);
  };
  for (const Message& m : recvs) post(m, false);
  for (const Message& m : sends) post(m, true);
  complete_all(requests_);
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
    for (int flag = 0; !flag; ) {
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
