#pragma once
// Runs one rank's schedule over a Transport, in dataflow order or step by step.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/schedule/dataflow.hpp"
#include "collectives/schedule/schedule.hpp"
#include "collectives/transport/transport.hpp"

namespace collbench {

// A schedule resolved to pointers for one call, so running it does no lookups.
// Binding checks every region against the buffer sizes and throws on overflow.
class BoundSchedule {
 public:
  // `space`: where the buffers are when not on the host (memory_space.hpp); the
  // operations are queued there, and run() returns when they are done.
  // `fuse_receives`: for a transport that reduces on receive, receives that only feed a
  // reduction or a copy are fused with it (receive_fusion.hpp).
  BoundSchedule(const Schedule& schedule, const CollectiveCall& call, const BufferLayout& layout, std::byte* scratch,
                std::size_t scratch_bytes, ExecutionOrder order = ExecutionOrder::dataflow,
                MemorySpace* space = nullptr, bool fuse_receives = false);
  // Starts every transfer and operation as soon as its plan allows (dataflow.hpp),
  // waiting on the transport only when nothing else can start. One thread at a time.
  void run(Transport& transport) const;
  // Whether run() replays a sequence fixed when binding (see Action) rather than
  // deciding as it goes.
  bool precompiled() const { return !program_.empty(); }
  // Decides as it goes even where a program was recorded (tests compare the two).
  void run_deciding(Transport& transport) const { run_dynamic(transport); }

 private:
  struct Op {
    LocalOp::Kind kind;
    std::byte* dst;
    const std::byte* a;
    const std::byte* b;
    std::size_t count;
  };
  // Transfers in flight: the transport's ticket and which receive or send it is.
  struct InFlight {
    std::vector<Ticket> tickets;
    std::vector<std::pair<FlowQueue, std::size_t>> items;
    std::vector<std::size_t> done, subset;
    std::vector<Ticket> subset_tickets;
  };
  DType dtype_;
  ReduceOp op_;
  MemorySpace* space_ = nullptr;  // null: host memory, the kernels called directly
  std::vector<Message> sends_, recvs_;
  std::vector<ReceiveReduction> recv_reductions_;  // per receive; local == nullptr: a plain receive
  Ticket start_recv(Transport& t, std::size_t i) const;
  std::vector<Op> ops_;
  // When every wait the executor would make is for a set of transfers known in advance
  // (no "whichever completes first"), its decisions do not depend on timing: binding
  // records them once and run() replays the list, without the per-call bookkeeping
  // that small messages feel.
  struct Action {
    enum class Kind : std::uint8_t { send, recv, op, wait } kind;
    std::uint32_t index;  // send/recv/op: which; wait: into waits_
  };
  struct Wait {
    std::size_t first, last;  // slots_[first, last): transfers (sends, then receives, by index)
    int step;                 // for the watchdog
  };
  DataflowPlan plan_;
  std::size_t steps_ = 0;
  std::vector<std::vector<int>> step_peers_;  // per step, the ranks it sends to or receives from
  std::span<const int> peers_of(int step) const {
    return step >= 0 && static_cast<std::size_t>(step) < step_peers_.size()
               ? std::span<const int>(step_peers_[static_cast<std::size_t>(step)])
               : std::span<const int>();
  }
  std::vector<Action> program_;
  std::vector<Wait> waits_;
  std::vector<std::uint32_t> slots_;
  mutable std::vector<Ticket> slot_tickets_, wait_tickets_;
  mutable InFlight in_flight_;
  mutable FlowProgress progress_;
  void run_op(const Op& o) const;
  // The one set of decisions both run paths take; `driver` either carries them out or
  // records them (and gives up where it would have to wait for any).
  template <class Driver>
  bool drive(Driver& driver) const;
  // drive()'s steps: start every ready item; the earliest step not complete (for the
  // watchdog); fill in_flight_.subset with a set it is safe to wait for, or leave it
  // empty for "whichever completes first"; retire in_flight_.done.
  template <class Driver>
  void start_ready(Driver& driver) const;
  std::size_t earliest_open_step() const;
  void choose_wait_set() const;
  void retire_done() const;
  struct Recording;
  struct Executing;
  void precompile();
  void run_dynamic(Transport& transport) const;
  void run_program(Transport& transport) const;
};

}  // namespace collbench
