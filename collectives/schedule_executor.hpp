#pragma once
#include <cstddef>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/schedule.hpp"
#include "collectives/transport.hpp"

namespace collbench {

// A schedule resolved to pointers for one call, so running it does no lookups.
// Binding checks every region against the buffer sizes and throws on overflow.
class BoundSchedule {
 public:
  BoundSchedule(const Schedule& schedule, const CollectiveCall& call, const BufferLayout& layout,
                std::byte* scratch, std::size_t scratch_bytes);
  void run(Transport& transport) const;

 private:
  struct Op {
    LocalOp::Kind kind;
    std::byte* dst;
    const std::byte* a;
    const std::byte* b;
    std::size_t count;
  };
  struct StepRange {
    std::size_t sends_end, recvs_end, ops_end;
  };
  DType dtype_;
  ReduceOp op_;
  std::vector<Message> sends_, recvs_;
  std::vector<Op> ops_;
  std::vector<StepRange> steps_;
};

}  // namespace collbench
