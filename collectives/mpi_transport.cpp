#include "mpi_transport.hpp"

#include <algorithm>

namespace collbench {

namespace {
// MPI counts are int; larger messages go as several pieces, which MPI's
// non-overtaking rule delivers in order.
constexpr std::size_t kMaxPiece = std::size_t{1} << 30;
}  // namespace

MpiTransport::MpiTransport(MPI_Comm parent) {
  MPI_Comm_dup(parent, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiTransport::~MpiTransport() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiTransport::exchange(std::span<const Message> sends, std::span<const Message> recvs) {
  requests_.clear();
  auto post = [&](const Message& m, bool is_send) {
    std::size_t done = 0;
    do {
      const int n = static_cast<int>(std::min(kMaxPiece, m.bytes - done));
      MPI_Request req;
      if (is_send) MPI_Isend(m.data + done, n, MPI_BYTE, m.peer, 0, comm_, &req);
      else MPI_Irecv(m.data + done, n, MPI_BYTE, m.peer, 0, comm_, &req);
      requests_.push_back(req);
      done += static_cast<std::size_t>(n);
    } while (done < m.bytes);
  };
  for (const Message& m : recvs) post(m, false);
  for (const Message& m : sends) post(m, true);
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

}  // namespace collbench
