#pragma once
#include <mpi.h>

#include <vector>

#include "transport.hpp"

namespace collbench {

// MPI point-to-point on host memory, on a private duplicate of the communicator so
// schedule traffic can never match the harness's or the baseline's messages.
class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(MPI_Comm parent);
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string_view name() const override { return "mpi-p2p"; }
  void exchange(std::span<const Message> sends, std::span<const Message> recvs) override;
  MPI_Comm comm() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::vector<MPI_Request> requests_;
};

}  // namespace collbench
