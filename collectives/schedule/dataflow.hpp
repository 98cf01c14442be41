#pragma once
// What each transfer and local operation of a schedule must wait for, so an executor
// can start it as soon as the data it reads is there and the data it overwrites is no
// longer needed, rather than at the next step boundary. Receives of step k+1 can then
// be posted, and the reductions of step k can run segment by segment, while other
// transfers are still in flight.
//
// The rules, from the step semantics (a step's transfers run concurrently, then its
// operations in order): an item waits for every earlier item that writes what it reads
// or writes, and for every earlier item that reads what it writes (a send reads its
// region until it completes). Transfers of one step never wait for each other. Each
// kind of item is started in program order, so messages between two ranks are still
// matched in the order the step semantics match them.
//
// Waiting for a set (the executor's choose_wait_set): waiting for all of a set X of
// transfers in flight cannot deadlock when every transfer of this rank through X's
// latest step has started. Take the blocked rank whose X ends earliest, at step k: a
// transfer of X still open is matched by a peer's of the same step (step order matches
// them), which the peer has started (it is blocked on a set ending at k or later, under
// the same condition, or it runs on), and a transfer started on both sides completes
// while both wait in the transport. Otherwise the executor waits for whichever
// transfer completes first.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/schedule/schedule.hpp"

namespace collbench {

enum class FlowQueue : std::uint8_t { recvs, sends, ops };
inline constexpr std::size_t kFlowQueues = 3;

struct FlowItem {
  std::size_t step = 0;
  // Per queue: the item of that queue which, together with all before it in that
  // queue, must have completed before this one starts; -1 for none. (Waiting for a
  // whole prefix is slightly stricter than the exact dependencies and keeps the
  // executor's bookkeeping to one counter per queue.)
  std::array<std::ptrdiff_t, kFlowQueues> after{-1, -1, -1};
};

// The items of a schedule, per queue in program order: step by step, each step's
// receives (sends, operations) in the order the step lists them.
struct DataflowPlan {
  std::array<std::vector<FlowItem>, kFlowQueues> items;
  const std::vector<FlowItem>& of(FlowQueue q) const { return items[static_cast<std::size_t>(q)]; }
};

// How far one rank's run of a plan has got: per queue, the items started and the items
// completed together with all before them (operations complete when they start). The
// executor and the symbolic executor's dataflow play both run plans with it, so the
// play checks the very rule the executor follows.
class FlowProgress {
 public:
  FlowProgress() = default;
  explicit FlowProgress(const DataflowPlan& plan);  // sized for it; pass the same plan below
  void reset();
  bool ready(const FlowItem& it) const;
  // The next item of `q` that has not started, if it may start now; nullptr otherwise.
  const FlowItem* next_ready(const DataflowPlan& plan, FlowQueue q) const;
  std::size_t started(FlowQueue q) const { return started_[index(q)]; }
  std::size_t complete(FlowQueue q) const { return complete_[index(q)]; }
  void start(FlowQueue q);                                // an operation also completes
  void complete_transfer(FlowQueue q, std::size_t item);  // in any order
  bool finished() const;

 private:
  static std::size_t index(FlowQueue q) { return static_cast<std::size_t>(q); }
  std::array<std::size_t, kFlowQueues> sizes_{}, started_{}, complete_{};
  std::array<std::vector<char>, 2> done_;  // receives, sends: completed, by position
};

// A transfer in flight: its queue and position there.
using FlowRef = std::pair<FlowQueue, std::size_t>;
// What the executor waits for next, given the transfers in flight (`items`, all
// started and not yet known complete): the positions in `items` of a set to wait for
// all of, where that is safe ("Waiting for a set" above), else empty: whichever
// completes first. The cost simulation waits as the executor does (cost_simulator.hpp).
void choose_wait_set(const DataflowPlan& plan, const FlowProgress& p, std::span<const FlowRef> items,
                     std::vector<std::size_t>& subset);

// `layout` says where the send buffer really is (inside the receive buffer when in place).
// A buffer's ranges are kept in a sorted array up to `most_flat_ranges`, in one with a
// gap that follows the accesses beyond (the same plan either way).
inline constexpr std::size_t kMostFlatRanges = 128;
DataflowPlan plan_dataflow(const Schedule& s, const BufferLayout& layout,
                           std::size_t most_flat_ranges = kMostFlatRanges);
// The step-by-step order, as a plan for the same executor.
DataflowPlan plan_steps(const Schedule& s);
DataflowPlan plan_execution(const Schedule& s, const BufferLayout& layout, ExecutionOrder order);

}  // namespace collbench
