#pragma once
// A host transport (MPI point-to-point) carrying buffers that live in another memory
// space, as users get it from an MPI that is not CUDA-aware: each send is copied out to
// host staging memory (after the work queued before it) and sent from there; each
// receive lands in staging memory and is copied in as it completes. Schedule messages
// only: the parameter server's tagged messages stay on host memory.
#include <map>
#include <string>
#include <unordered_map>

#include "collectives/transport/memory_space.hpp"
#include "collectives/transport/transport.hpp"

namespace collbench {

class StagedTransport final : public Transport {
 public:
  StagedTransport(Transport& host, MemorySpace& space);
  int rank() const override { return host_.rank(); }
  int size() const override { return host_.size(); }
  std::string_view name() const override { return name_; }
  Ticket start_send(const Message& m) override;
  Ticket start_recv(const Message& m) override;
  Ticket post_send(int peer, int tag, const std::byte* data, std::size_t bytes) override;
  Ticket post_recv(int peer, int tag, std::byte* data, std::size_t capacity) override;
  Completion wait_any(std::span<const Ticket> tickets) override;
  void wait_some(std::span<const Ticket> tickets, std::vector<std::size_t>& done) override;
  void wait_all(std::span<const Ticket> tickets) override;
  OwnedBuffer allocate(std::size_t bytes) override { return space_.allocate(bytes); }
  MemorySpace& memory() override { return space_; }

 private:
  // A message in flight: its staging memory, and for a receive where the bytes go.
  struct Staged {
    OwnedBuffer staging;
    std::byte* copy_to = nullptr;  // receives only
    std::size_t bytes = 0;
  };
  OwnedBuffer take_staging(std::size_t bytes);
  void finish(Ticket t);  // copies a receive in, returns the staging memory

  Transport& host_;
  MemorySpace& space_;
  std::string name_;
  std::unordered_map<Ticket, Staged> in_flight_;
  std::multimap<std::size_t, OwnedBuffer> spare_;  // staging memory by size, for reuse
};

}  // namespace collbench
