#pragma once
// Schedule messages between ranks of one node, copied once, straight out of the sender's
// buffer: every buffer comes from allocate() (memory peers can map: POSIX shared memory
// for `shm`, CUDA IPC for `cuda-ipc`), a send only announces where its bytes are, and the
// receiver copies them in its memory space (the CPU, or its GPU stream) instead of
// through a bounce buffer or a kernel copy, as XPMEM or CUDA IPC users do. The
// announcements travel through channels in POSIX shared memory; MPI only starts it: the
// ranks agree on names and check they share a node.
#include <mpi.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collectives/transport/exported_memory.hpp"
#include "collectives/transport/transport.hpp"

namespace collbench {

class MappedTransport final : public Transport {
 public:
  // Collective over `comm`; throws std::runtime_error (on every rank) unless every rank is
  // on this node.
  MappedTransport(MPI_Comm comm, std::unique_ptr<ExportedMemory> memory);
  ~MappedTransport() override;
  MappedTransport(const MappedTransport&) = delete;
  MappedTransport& operator=(const MappedTransport&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string_view name() const override { return memory_->transport_name(); }
  // Messages between two ranks match in posting order and must have the same length.
  Ticket start_send(const Message& m) override;
  Ticket start_recv(const Message& m) override;
  // The reduction runs in the memory space, as a copy would, from the sender's buffer: on
  // the host only, since a GPU kernel reads a peer GPU's IPC buffer only where the two
  // have peer access, which a copy does not need (and nothing here has run on a GPU).
  bool reduces_on_receive() const override { return memory_->space().kind() == MemoryKind::host; }
  Ticket start_recv_reduce(const Message& m, const ReceiveReduction& r) override;
  // Bytes received by a reduction straight from a sender's buffer (tests).
  std::uint64_t bytes_reduced_on_receive() const { return reduced_bytes_; }
  void wait_some(std::span<const Ticket> tickets, std::vector<std::size_t>& done) override;
  void wait_all(std::span<const Ticket> tickets) override;
  Completion wait_any(std::span<const Ticket> tickets) override;
  // Schedule traffic only: the parameter server's tagged messages need the MPI transport.
  Ticket post_send(int peer, int tag, const std::byte* data, std::size_t bytes) override;
  Ticket post_recv(int peer, int tag, std::byte* data, std::size_t capacity) override;
  // Not collective: peers map a buffer when its first message reaches them.
  OwnedBuffer allocate(std::size_t bytes) override;
  MemorySpace& memory() override { return memory_->space(); }

  struct Channel;  // one direction between two ranks, in the receiver's control segment

 private:
  struct Segment {
    std::uint64_t id;
    std::byte* base;
    std::size_t bytes;
    ExportHandle handle;
  };
  struct Record {  // a ticket
    bool in_use = false, is_send = false, done = false;
    int peer = 0;
    std::uint64_t seq = 0;
    std::byte* dst = nullptr;
    std::size_t bytes = 0;
    bool reduces = false;  // a receive reduced as it arrives
    ReceiveReduction reduction;
  };
  struct Pending {  // a send announced once its channel has room
    std::uint64_t segment, offset, bytes;
    ExportHandle handle;
  };
  struct Copying {  // a receive whose copy is queued in the memory space
    Ticket ticket;
    std::uint64_t mark;
  };

  std::unique_ptr<ExportedMemory> memory_;
  int rank_ = 0, size_ = 1;
  std::string prefix_;              // "/collbench-<job>-", then rank and segment id
  std::vector<Channel*> inbound_;   // [source]: in this rank's control segment
  std::vector<Channel*> outbound_;  // [destination]: in the peer's control segment
  std::size_t control_bytes_ = 0;
  std::vector<std::byte*> control_maps_;  // [rank]
  std::vector<std::uint64_t> send_seq_, recv_seq_;
  std::vector<std::vector<Pending>> backlog_;                         // [destination], in order
  std::vector<Segment> own_;                                          // live buffers of this rank
  std::map<std::pair<int, std::uint64_t>, const std::byte*> mapped_;  // peers' buffers
  std::vector<Record> records_;
  std::vector<Ticket> free_;
  std::vector<Ticket> recvs_waiting_;              // posting order
  std::deque<Copying> copying_;                    // in the order queued, so in the order done
  std::uint64_t pass_ = 0;                         // of progress(): when each channel's `posted` was read
  std::vector<std::uint64_t> looked_, announced_;  // [source]
  std::uint64_t reduced_bytes_ = 0;

  const std::byte* peer_buffer(int peer, std::uint64_t id, const ExportHandle& handle);
  Ticket keep(const Record& r);
  bool complete(Ticket t) const;
  void release(Ticket t);
  bool announce(std::size_t peer);  // the backlog's sends the channel has room for
  // Announces what the channels have room for, queues a copy for every message that has
  // arrived and frees the senders of copies done; returns whether anything moved.
  bool progress();
  void pause(int idle_rounds) const;
  // Runs progress() until `finished()` holds, pausing between fruitless rounds.
  template <class Finished>
  void spin_until(Finished finished);
};

}  // namespace collbench
