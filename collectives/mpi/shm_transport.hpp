#pragma once
// Schedule messages between ranks of one node through shared memory, copied once: every
// buffer comes from allocate() (a POSIX shared-memory segment), a send only announces
// where its bytes are, and the receiver copies them straight from the sender's buffer
// (as XPMEM or CUDA IPC do) instead of through a bounce buffer or a kernel copy. MPI
// only starts it: the ranks agree on segment names and check they share a node.
#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "collectives/transport.hpp"

namespace collbench {

// Removes the names of every shared-memory segment this process still owns (what is
// mapped stays valid): for exits that skip destructors (_Exit, MPI_Abort), so that an
// interrupted, stalled or failed run leaves nothing in /dev/shm. Safe to call again.
void remove_shm_names() noexcept;

class ShmTransport final : public Transport {
 public:
  // Collective over `comm`; throws std::runtime_error unless every rank is on this node.
  explicit ShmTransport(MPI_Comm comm);
  ~ShmTransport() override;
  ShmTransport(const ShmTransport&) = delete;
  ShmTransport& operator=(const ShmTransport&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string_view name() const override { return "shm"; }
  // Messages between two ranks match in posting order and must have the same length.
  Ticket start_send(const Message& m) override;
  Ticket start_recv(const Message& m) override;
  void wait_some(std::span<const Ticket> tickets, std::vector<std::size_t>& done) override;
  void wait_all(std::span<const Ticket> tickets) override;
  Completion wait_any(std::span<const Ticket> tickets) override;
  // Schedule traffic only: the parameter server's tagged messages need the MPI transport.
  Ticket post_send(int peer, int tag, const std::byte* data, std::size_t bytes) override;
  Ticket post_recv(int peer, int tag, std::byte* data, std::size_t capacity) override;
  // Not collective: peers map a segment when its first message reaches them.
  OwnedBuffer allocate(std::size_t bytes) override;

  struct Channel;  // one direction between two ranks, in the receiver's control segment

 private:
  struct Segment {
    std::uint64_t id;
    std::byte* base;
    std::size_t bytes;
  };
  struct Record {  // a ticket
    bool in_use = false, is_send = false, done = false;
    int peer = 0;
    std::uint64_t seq = 0;
    std::byte* dst = nullptr;
    std::size_t bytes = 0;
  };
  struct Pending {  // a send announced once its channel has room
    std::uint64_t segment, offset, bytes;
  };

  int rank_ = 0, size_ = 1;
  std::string prefix_;                    // "/collbench-<job>-", then rank and segment id
  std::vector<Channel*> inbound_;         // [source]: in this rank's control segment
  std::vector<Channel*> outbound_;        // [destination]: in the peer's control segment
  std::size_t control_bytes_ = 0;
  std::vector<std::byte*> control_maps_;  // [rank]
  std::vector<std::uint64_t> send_seq_, recv_seq_;
  std::vector<std::vector<Pending>> backlog_;  // [destination], in order
  std::vector<Segment> own_;                   // live segments of this rank
  std::uint64_t next_segment_ = 1;
  std::map<std::pair<int, std::uint64_t>, std::pair<std::byte*, std::size_t>> mapped_;  // peers'
  std::vector<Record> records_;
  std::vector<Ticket> free_;
  std::vector<Ticket> recvs_waiting_;  // posting order
  std::uint64_t pass_ = 0;             // of progress(): when each channel's `posted` was read
  std::vector<std::uint64_t> looked_, announced_;  // [source]

  std::string segment_name(int rank, std::uint64_t id) const;
  const std::byte* peer_segment(int peer, std::uint64_t id);
  Ticket keep(const Record& r);
  bool complete(Ticket t) const;
  void release(Ticket t);
  bool announce(std::size_t peer);  // the backlog's sends the channel has room for
  // Announces what the channels have room for and copies every message that has
  // arrived; returns whether anything moved.
  bool progress();
  void pause(int idle_rounds) const;
  // Runs progress() until `finished()` holds, pausing between fruitless rounds.
  template <class Finished>
  void spin_until(Finished finished);
};

}  // namespace collbench
