#pragma once
// What moves bytes between ranks: tagged sends and receives, tickets, waits, buffers it can move.
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "collectives/elementwise.hpp"

namespace collbench {

struct Message {
  int peer = 0;
  std::byte* data = nullptr;
  std::size_t bytes = 0;
};

class MemorySpace;

// A receive reduced as it arrives (Transport::start_recv_reduce): the message's data
// `dst = local op sent`, or `sent op local` where `sent_first` (the order matters for NaN
// payloads and signed zeros).
struct ReceiveReduction {
  DType dtype = DType::f32;
  ReduceOp op = ReduceOp::sum;
  const std::byte* local = nullptr;  // count elements; may be dst itself
  bool sent_first = false;
};

// A posted tagged message (see Transport::post_send); -1 is "none".
using Ticket = int;

// Which of the tickets passed to wait_any completed, and what arrived.
struct Completion {
  std::size_t index = 0;  // position in the span given to wait_any
  std::size_t bytes = 0;  // bytes received (0 for a send)
};

// Memory for the buffers a transport moves (Transport::allocate), on the host or in its
// memory space: zeroed, released by its owner's deleter.
class OwnedBuffer {
 public:
  using Release = std::function<void(std::byte*, std::size_t)>;
  OwnedBuffer() = default;
  OwnedBuffer(std::byte* data, std::size_t bytes, Release release)
      : data_(data, Deleter{bytes, std::move(release)}), bytes_(bytes) {}
  std::byte* data() const { return data_.get(); }
  std::size_t size() const { return bytes_; }

 private:
  struct Deleter {
    std::size_t bytes;
    Release release;
    void operator()(std::byte* p) const { release(p, bytes); }
  };
  std::unique_ptr<std::byte, Deleter> data_{nullptr, Deleter{}};
  std::size_t bytes_ = 0;
};

// Moves bytes between ranks. Schedules start messages one at a time; protocols
// that answer whatever arrives (the parameter server) post tagged messages and wait for
// any of them. The two kinds of traffic never match each other.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string_view name() const = 0;
  // Schedule traffic, one message at a time: between two ranks, matched in posting order.
  virtual Ticket start_send(const Message& m) = 0;
  virtual Ticket start_recv(const Message& m) = 0;
  // Transports that read their peers' buffers can reduce a message straight from the
  // sender's buffer into m.data (schedule traffic, matched like start_recv; the sender's
  // send completes once the reduction is done): the executor then fuses a receive with
  // the reduction it feeds (collectives/schedule/receive_fusion.hpp).
  virtual bool reduces_on_receive() const { return false; }
  virtual Ticket start_recv_reduce(const Message& m, const ReceiveReduction& r);

  // Tagged messages: between two ranks, messages with the same tag are matched in
  // posting order. A receive may be larger than what arrives. Buffers must stay
  // untouched until the ticket completes.
  virtual Ticket post_send(int peer, int tag, const std::byte* data, std::size_t bytes) = 0;
  virtual Ticket post_recv(int peer, int tag, std::byte* data, std::size_t capacity) = 0;
  // Blocks until one of `tickets` (none may be -1) completes; that ticket is then spent.
  virtual Completion wait_any(std::span<const Ticket> tickets) = 0;
  // Blocks until at least one of `tickets` completes; appends to `done` the positions
  // (in `tickets`) of every one that has completed by then, and spends those tickets.
  virtual void wait_some(std::span<const Ticket> tickets, std::vector<std::size_t>& done) = 0;
  // Blocks until every ticket has completed.
  virtual void wait_all(std::span<const Ticket> tickets) = 0;
  void wait(Ticket t) { wait_any(std::span<const Ticket>(&t, 1)); }

  // Memory for every buffer that schedule messages use. A transport that maps its
  // peers' memory (shm) can only move bytes between buffers from here; the default is
  // memory of its space (below), which it can move.
  virtual OwnedBuffer allocate(std::size_t bytes);
  // Where its buffers are, and where the executor runs local operations on them: the
  // host unless the transport moves device memory (memory_space.hpp).
  virtual MemorySpace& memory();
};

}  // namespace collbench
