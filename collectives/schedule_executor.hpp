#pragma once
#include <cstddef>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/dataflow.hpp"
#include "collectives/schedule.hpp"
#include "collectives/transport.hpp"

namespace collbench {

// A schedule resolved to pointers for one call, so running it does no lookups.
// Binding checks every region against the buffer sizes and throws on overflow.
class BoundSchedule {
 public:
  BoundSchedule(const Schedule& schedule, const CollectiveCall& call, const BufferLayout& layout,
                std::byte* scratch, std::size_t scratch_bytes, ExecutionOrder order = ExecutionOrder::dataflow);
  // Starts every transfer and operation as soon as its plan allows (dataflow.hpp),
  // waiting on the transport only when nothing else can start. One thread at a time.
  void run(Transport& transport) const;

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
  std::vector<Message> sends_, recvs_;
  std::vector<Op> ops_;
  DataflowPlan plan_;
  mutable InFlight in_flight_;
  mutable FlowProgress progress_;
  void run_op(const Op& o) const;
};

}  // namespace collbench
