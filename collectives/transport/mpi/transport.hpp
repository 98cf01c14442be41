#pragma once
// MPI point-to-point as a Transport (the `mpi` transport).
#include <mpi.h>

#include <vector>

#include "collectives/transport/mpi/communicator.hpp"
#include "collectives/transport/transport.hpp"

namespace collbench {

// MPI point-to-point on host memory, on a private duplicate of the communicator so
// schedule traffic can never match the harness's or the baseline's messages.
class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(MPI_Comm parent);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string_view name() const override { return "mpi-p2p"; }
  Ticket start_send(const Message& m) override;
  Ticket start_recv(const Message& m) override;
  void wait_some(std::span<const Ticket> tickets, std::vector<std::size_t>& done) override;
  Ticket post_send(int peer, int tag, const std::byte* data, std::size_t bytes) override;
  Ticket post_recv(int peer, int tag, std::byte* data, std::size_t capacity) override;
  Completion wait_any(std::span<const Ticket> tickets) override;
  void wait_all(std::span<const Ticket> tickets) override;
  MPI_Comm comm() const { return comm_.get(); }
  // With more ranks than cores, a rank that spins in MPI steals the core of the rank it
  // waits for; yielding between polls lets that rank run. Off by default (MPI's own spin).
  void set_yield_while_waiting(bool yield) { yield_ = yield; }
  bool yields_while_waiting() const { return yield_; }

 private:
  Communicator comm_;
  int rank_ = 0, size_ = 1;
  bool yield_ = false;
  std::vector<MPI_Request> tickets_;  // indexed by Ticket; MPI_REQUEST_NULL when free
  std::vector<char> ticket_is_send_;
  std::vector<Ticket> free_tickets_;
  std::vector<MPI_Request> waiting_;
  std::vector<int> indices_;
  Ticket keep(MPI_Request request, bool is_send);
  void complete_all(std::vector<MPI_Request>& requests) const;
};

}  // namespace collbench
