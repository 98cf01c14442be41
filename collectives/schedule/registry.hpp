#pragma once
// Every algorithm of every collective, reference and baseline, and the protocols; binds one to a call.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/schedule/receive_fusion.hpp"
#include "collectives/schedule/schedule.hpp"
#include "collectives/transport/transport.hpp"

namespace collbench {

// One call of one algorithm, set up and ready to run repeatedly (the timed part).
class PreparedCollective {
 public:
  virtual ~PreparedCollective() = default;
  virtual void run() = 0;
  // Untimed work before each timed call, where prepares_each_call(): time_calls runs it,
  // then lines the ranks up before the call (a probe that starts from a state its own
  // call undoes, such as lines just written by their owner).
  virtual bool prepares_each_call() const { return false; }
  virtual void before_call() {}
};

// Scratch memory shared by the algorithms of a run, from the transport that moves it:
// it only grows, so a harness that prepares the largest size first allocates once.
class Workspace {
 public:
  std::byte* reserve(std::size_t bytes, Transport& from);
  std::size_t capacity() const { return storage_.size(); }

 private:
  OwnedBuffer storage_;
};

using LibraryPrepare = std::function<std::unique_ptr<PreparedCollective>(const CollectiveCall&, Transport&)>;

// A registered algorithm: either a schedule builder (reference algorithms, run by the
// executor on any transport) or a library's own collective (the baselines).
struct AlgorithmEntry {
  Collective collective = Collective::allreduce;
  std::string name;
  std::string summary;
  ScheduleBuilder build = nullptr;
  LibraryPrepare prepare_library;
  std::size_t default_segment_bytes = 0;  // pipelined: the segment used unless the run sets one
  bool topology_aware = false;            // its schedule depends on AlgorithmParams::node_of_rank
  // Pipelined, and provably so that every segment adds the same time once the pipeline
  // is full (a chain: each link carries one segment a step); the cost model's periodic path.
  bool linear_in_segments = false;
  // Where its schedules end in a ring allgather over every rank: the steps before it.
  RingAllgatherHead ring_allgather_head = nullptr;
  // A baseline's library: "mpi" (host memory, over the run's MPI) or "nccl" (device
  // memory, over the run's NCCL transport). Reference algorithms run on any transport.
  std::string library = "mpi";
  bool is_baseline() const { return build == nullptr; }
  bool is_baseline_of(std::string_view lib) const { return is_baseline() && library == lib; }
  // Whether a run on host memory can use it: a reference algorithm, or MPI's baseline.
  bool runs_on_host() const { return !is_baseline() || library == "mpi"; }
  bool pipelined() const { return default_segment_bytes > 0; }
  // The segment a run with `params` uses (0 for algorithms that are not pipelined).
  std::size_t segment_bytes(const AlgorithmParams& params) const;
};

// A protocol written as code against the Transport rather than as a schedule (the
// parameter server, DESIGN.md): the harness drives it; the registry names it, so that
// `collbench list` and the result rows see it next to the collectives.
struct ProtocolEntry {
  std::string family;   // what --collective names, e.g. "ps"
  std::string name;     // the result rows' algorithm, e.g. "ps-sync"
  std::string variant;  // what users type to choose it, e.g. "sync"
  std::string summary;
  int mode = 0;  // the protocol's own enum value for this variant (e.g. PsMode::sync)
};

// The names of registered entries, in order.
template <class Entry>
std::vector<std::string> names_of(const std::vector<const Entry*>& entries) {
  std::vector<std::string> out;
  for (const Entry* e : entries) out.push_back(e->name);
  return out;
}

class Registry {
 public:
  void add(AlgorithmEntry entry);  // throws on a duplicate (collective, name)
  const AlgorithmEntry* find(Collective c, const std::string& name) const;
  std::vector<const AlgorithmEntry*> for_collective(Collective c) const;
  std::string names(Collective c) const;  // "mpi, ring, ...", in registration order
  // The same, of the algorithms a run on host memory can use: the reference algorithms
  // and the MPI library's baseline (not NCCL's).
  std::string host_names(Collective c) const;
  const AlgorithmEntry* find_on_host(Collective c, const std::string& name) const;
  void add_protocol(ProtocolEntry entry);  // throws on a duplicate name
  const ProtocolEntry* find_protocol(const std::string& family, const std::string& variant) const;
  std::vector<const ProtocolEntry*> protocols() const;
  std::string variant_names(const std::string& family) const;  // "sync, async, bounded"

 private:
  std::vector<AlgorithmEntry> entries_;
  std::vector<ProtocolEntry> protocols_;
};

// What each of `nranks` ranks copies and reduces running reference algorithm `entry` on
// `call` over a transport whose receivers move the data, fusing receives where `fuse`,
// and of it what the senders write in the call (receive_fusion.hpp: memory_work_of_ranks).
std::vector<MemoryWork> memory_work_of_ranks(const AlgorithmEntry& entry, const CollectiveCall& call, int nranks,
                                             const AlgorithmParams& params, bool fuse);

// Sets up `entry` for `call`: builds and binds the schedule, or prepares the library call.
std::unique_ptr<PreparedCollective> prepare(const AlgorithmEntry& entry, const CollectiveCall& call,
                                            Transport& transport, Workspace& workspace,
                                            const AlgorithmParams& params = {});

}  // namespace collbench
