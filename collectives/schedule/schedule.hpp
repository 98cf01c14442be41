#pragma once
// An algorithm is a schedule: for one rank, an ordered list of steps. Each step posts
// its sends and receives, waits for all of them, then runs its local operations in
// order. Regions are in elements, so one schedule serves every dtype.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/names.hpp"

namespace collbench {

enum class BufferId : std::uint8_t { send, recv, scratch };

struct Region {
  BufferId buffer = BufferId::recv;
  std::size_t offset = 0;
  std::size_t count = 0;
};

struct Transfer {
  int peer = 0;
  Region region;
};

struct LocalOp {
  enum class Kind : std::uint8_t { copy, reduce };
  Kind kind = Kind::copy;
  Region dst;
  Region a;  // copy: dst = a; reduce: dst = a op b
  Region b;
};

struct Step {
  std::vector<Transfer> sends;
  std::vector<Transfer> recvs;
  std::vector<LocalOp> ops;
};

struct Schedule {
  std::size_t scratch_count = 0;  // elements of scratch this rank needs
  std::vector<Step> steps;
  // Each step's number in the collective's sequence of steps, which every rank counts
  // alike (the step semantics match messages across ranks by it), increasing. Builders
  // leave out the steps where a rank has nothing to do, so a rank idle for most of a
  // long collective (far down a chain, a ring's empty blocks) holds only what it does;
  // executors need no idle step. Empty: the steps are numbered 0, 1, 2, ...
  std::vector<std::size_t> numbers;
  std::size_t number(std::size_t k) const { return numbers.empty() ? k : numbers[k]; }
  // Steps counted with the idle ones: the last step's number + 1.
  std::size_t span() const { return steps.empty() ? 0 : number(steps.size() - 1) + 1; }
};

// How an executor orders a schedule's work (dataflow.hpp).
enum class ExecutionOrder : std::uint8_t {
  dataflow,  // each transfer and operation as soon as its dependencies allow
  steps,     // step by step: a step's transfers after all of the previous step, its operations after all its transfers
};
inline constexpr NameTable<ExecutionOrder, 2> kExecutionOrderNames{
    {{{ExecutionOrder::dataflow, "dataflow"}, {ExecutionOrder::steps, "steps"}}}};

// Settings that shape a schedule, or its execution, beyond the call itself.
struct AlgorithmParams {
  std::size_t segment_bytes = 0;  // pipelined algorithms: 0 picks the algorithm's default
  std::vector<int> node_of_rank;  // node id of every rank; empty: all ranks share one node
  ExecutionOrder order = ExecutionOrder::dataflow;
};

// What a schedule builder is asked for.
struct ScheduleRequest {
  Collective collective = Collective::allreduce;
  int nranks = 1;
  int rank = 0;
  std::size_t count = 0;
  int root = 0;
  std::size_t element_size = 4;             // bytes; builders use it to size pipeline segments
  const AlgorithmParams* params = nullptr;  // nullptr: defaults
  // Whether the send buffer is the receive buffer (BufferLayout): most builders write
  // schedules right either way; an all-to-all must set its input aside first.
  bool in_place = false;
  const CountMatrix* counts = nullptr;  // alltoallv's matrix; null: `count` to every peer
  PeerBlocks blocks() const { return {nranks, count, counts}; }

  // Elements per pipeline segment (at least 1): the requested size, else `default_bytes`.
  std::size_t segment_elements(std::size_t default_bytes) const;
  int node_of(int r) const;
};

using ScheduleBuilder = Schedule (*)(const ScheduleRequest&);
// Writes the steps a schedule has before it ends in a ring allgather over every rank
// (member i is rank root + i, mod n; each step one block on to the next member, whole)
// into `head`, and returns the step number the ring starts at: the cost model's
// ring-tail path (collectives/cost_model/README.md).
using RingAllgatherHead = std::size_t (*)(const ScheduleRequest&, Schedule& head);

LocalOp copy_op(Region dst, Region src);

// `r` as the memory it names: a send-buffer region of an in-place call is in recv.
Region in_memory(const Region& r, const BufferLayout& layout);

// The same schedule with every transfer longer than `max_count` elements cut into
// pieces of at most that many, in order, in the same step (both sides cut alike).
Schedule split_large_transfers(const Schedule& s, std::size_t max_count);
LocalOp reduce_op(Region dst, Region a, Region b);

// Human-readable listing of a schedule, one line per transfer or operation, with
// bytes for elements of `element_size`.
std::string describe(const Schedule& s, std::size_t element_size);

// What one rank's schedule does, in elements.
struct ScheduleStats {
  std::size_t steps = 0;  // steps with any transfer or operation
  std::size_t messages_sent = 0, messages_received = 0;
  std::size_t elements_sent = 0, elements_received = 0, elements_reduced = 0, elements_copied = 0;
};
ScheduleStats schedule_stats(const Schedule& s);
std::string_view buffer_name(BufferId b);

}  // namespace collbench
