#pragma once
// Predicts a collective's time from its schedules, without running them: every rank's
// transfers and operations in the executor's order (its dataflow plan, or step by step:
// a step's transfers posted together, its operations run when they have all completed;
// operations one at a time on the rank's core), each message costing the link's latency plus its bytes at
// the link's inverse bandwidth (Hockney), matched in posting order per pair of ranks as
// the executor matches them. A rank's sends leave one at a time through its port and
// its receives arrive one at a time; messages between hosts also queue for their hosts'
// links, so ranks of one host share its bandwidth. With shared ports, messages a port
// carries at once (to or from different peers) share its bandwidth instead, as TCP
// streams do; one pair's messages still go one after another (unless its link shares
// them too: LinkCost::pair_shares_from_bytes). Reductions and copies cost their
// bytes at a per-byte rate. No MPI, no memory of the data: only sizes and times.
//
// Symmetric schedules need not be simulated rank by rank. Where rank r + h*block (or
// r XOR h*block) does exactly what rank r does with every peer moved the same way, all
// blocks run in lockstep: simulating one block, with each message to another block
// standing for the one its mirror image receives, gives the same times exactly.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "collectives/schedule/dataflow.hpp"
#include "collectives/schedule/schedule.hpp"

namespace collbench {

// alpha + bytes * us_per_byte, with alpha and the rate of the size range the bytes fall
// in: protocols change with size (eager, rendezvous), and so do caches.
struct CostPiece {
  double from_bytes = 0;
  double alpha_us = 0;     // per message or operation
  double us_per_byte = 0;  // 1 / bandwidth
};

struct Piecewise {
  std::vector<CostPiece> pieces;  // from_bytes ascending; the first applies below its start too
  Piecewise() = default;
  Piecewise(double alpha_us, double us_per_byte) : pieces{{0, alpha_us, us_per_byte}} {}
  const CostPiece& at(double bytes) const;
  double us(double bytes) const { return bytes > 0 ? at(bytes).alpha_us + bytes * at(bytes).us_per_byte : 0; }
};

struct LinkCost : Piecewise {
  using Piecewise::Piecewise;
  // A message whose sender also receives, or whose receiver also sends, costs this
  // instead where given: both ways at once is not free on every transport (TCP over
  // loopback copies both ways on the same cores; rendezvous handshakes cross). With
  // shared ports, while that happens (the message slows and speeds up as the messages
  // beside it start and end; its alpha is this one's if it ever did); without, where
  // its step sends and receives.
  Piecewise exchange;
  // A message whose bytes its sender wrote earlier in the call (received or reduced
  // there) costs this where given: the receiving core fetches lines modified in the
  // sender's cache, slower on shared memory than the untouched buffer a ping-pong sends.
  // Measured as an exchange (p2p's written test), it stands for one way too.
  Piecewise written;
  // An operation whose result lands in bytes this rank sends to a peer on its host (its
  // reduction or copy rewriting what the peer's core read from this rank's memory, as
  // shared memory's receiver does) costs this instead of the reduction's or copy's cost
  // where given (p2p's rewrite test): every line it stores must first be taken back from
  // the reader's cache, which costs several times a plain store where the two cores share
  // no cache (results/README.md). A receive from a peer on the host into such bytes holds
  // its ports for the excess over a reduction too. Only the host's link (intra) has one.
  Piecewise rewrite;
  // Whether the receiver's core copies each message (shared memory's single copy by the
  // receiver, a socket's copy out of the kernel): the message then waits for that core
  // and holds it, so the receiver's reductions and other copies do not overlap it. A
  // NIC's DMA leaves the cores free (false).
  bool receiver_copies = false;
  // A message's time in a stream of them where given (p2p's bandwidth test: a window of
  // messages in flight, per message): the part of its alpha that a stream does not
  // overlap (software per message: handshakes, posting, completion) holds its ports, as
  // LogGP's gap, and only the rest is latency. One message alone costs the same.
  Piecewise stream;
  // With shared ports: from this message size on, one pair's messages in flight at once
  // share the pair's bandwidth too instead of going one after another (UCX over TCP
  // interleaves its rendezvous transfers; shared memory's go in turn). p2p's pair test
  // tells them apart (link_fit.cpp).
  double pair_shares_from_bytes = std::numeric_limits<double>::infinity();
  bool pair_shares(std::size_t bytes) const { return static_cast<double>(bytes) >= pair_shares_from_bytes; }
  const Piecewise& cost(bool both_ways, bool written_first = false) const {
    if (written_first && !written.pieces.empty()) return written;
    return both_ways && !exchange.pieces.empty() ? exchange : *this;
  }
};

struct CostParams {
  LinkCost intra, inter;  // between ranks of one host, and of different hosts
  Piecewise reduce;       // gamma: per reduction, by bytes of its result
  Piecewise copy;
  double overhead_us = 0;  // per message, on each side's port before its bytes (software)
  // Messages in flight at once through a port (a rank's way out or in, a host's link)
  // share it: each moves at an equal share of its most crowded port's bandwidth (not
  // max-min: a share one port leaves unused is not handed to the others). Without,
  // they cross it one after another in the order they were matched.
  bool shared_ports = false;
  // Whether a link prices sends of bytes written earlier in the call apart.
  bool prices_written() const { return !intra.written.pieces.empty() || !inter.written.pieces.empty(); }
  bool prices_rewrite() const { return !intra.rewrite.pieces.empty(); }
  // Whether a message's cost follows, as the simulation runs, whether its ends also move
  // messages the other way (shared ports and a link with an exchange cost).
  bool exchanges_as_they_happen() const {
    return shared_ports && (!intra.exchange.pieces.empty() || !inter.exchange.pieces.empty());
  }
  // Whether any link lets a pair's messages share its bandwidth (from some size on).
  bool interleaves_pairs() const {
    return shared_ports && (std::isfinite(intra.pair_shares_from_bytes) || std::isfinite(inter.pair_shares_from_bytes));
  }
};

struct CostLayout {
  std::size_t element_size = 4;
  std::vector<int> node_of_rank;  // empty: every rank on one host; else one entry per rank
  // Bytes of buffers the call's ranks on one host touch. Memory-bound costs depend on
  // whether the data still sits in cache, which the call's buffers decide, not one
  // message's size: a message or operation is charged the per-byte rate measured where
  // the measurement touched as much (a p2p pair on one host touches 4x its message size,
  // across hosts 2x per host; a timed reduction 3x), its alpha at its own size.
  double host_footprint_bytes = 0;
  // As the executor runs them: step by step (the published closed forms' assumption),
  // or each transfer and operation as soon as its data allows (run's default).
  ExecutionOrder order = ExecutionOrder::steps;
};

// What the simulation charges one message: its latency, after its bytes, and how long it
// holds its ports (the overhead and its bytes, priced as the call's footprint says).
struct MessageCost {
  double alpha_us = 0, port_us = 0;
};
// `rewrites`: a receive into bytes the receiver sends to a peer on its host (the receiving
// core's stores take each line back from that peer's cache first): its ports are held
// for the rewrite cost's excess over a reduction of as many bytes (rewrite_extra_us).
MessageCost message_cost(const CostParams& p, const CostLayout& l, bool local, std::size_t bytes, bool both_ways,
                         bool written, bool rewrites = false);
double rewrite_extra_us(const CostParams& p, const CostLayout& l, double bytes);
// When a message matched at `start` completes where nothing else holds its ports, its
// receiver's core or its hosts' links: the simulation's own arithmetic, so that a path
// that computes such messages outside it gets the same times to the last bit.
inline double done_on_idle_ports(const CostParams& p, double start, const MessageCost& c) {
  return p.shared_ports ? start + c.port_us + c.alpha_us : start + c.alpha_us + c.port_us;
}

// Whether a schedule writes (receives into, or computes) any of `r`: what makes a send
// of r's bytes a written one. Anywhere in the call: bytes written late in one call are
// still in the writer's cache when the next of back-to-back calls sends them.
bool wrote(const Schedule& s, const Region& r);

// Elements of each buffer a schedule touches (send, receive and scratch, to the end of
// the furthest region), summed.
std::size_t touched_elements(const Schedule& s);

// How the ranks' schedules repeat: none (every rank's schedule given), or blocks of
// `block` consecutive ranks that are images of block 0 under a shift by whole blocks
// (rank r -> r + h*block mod n) or under XOR with h*block (block and n powers of two).
struct Symmetry {
  enum class Kind { none, shift, xor_blocks } kind = Kind::none;
  int block = 0;
};

// What a path that computes the rest of a call apart needs of the part simulated (the
// ring tail in dataflow order): when each queue's last item was posted, when each item
// completed, and who holds each port. A port's `last` is the latest time a message took
// it (when matched; ports the messages share are known by `free` only); `last_order` the
// highest tie_order of those that took it then (an operation taking a core: 0).
// One message's hold on a port, where a trace keeps every one (CostSimulation::trace):
// when it was matched, and when its bytes began and ended there.
struct PortHold {
  double matched = 0, start = 0, end = 0;
};
struct PortTrace {
  double free = 0;
  double last = -std::numeric_limits<double>::infinity();
  std::uint64_t last_order = 0;
  std::vector<PortHold> holds;  // in the order matched, where asked for
  void take(double at, std::uint64_t order) {
    if (at > last)
      last = at, last_order = order;
    else if (at == last)
      last_order = std::max(last_order, order);
  }
};

// Where ports are not shared, messages matched at one instant take their ports in this
// order, lowest first, after every completion learnt then (each rank learning its own
// in the order of its items, receives first): by their sender's place among its host's
// ranks and its send's item, then the receiver's. The same for ranks that are images of
// each other (a shift or XOR by whole hosts), so a symmetric call is simulated
// symmetrically and one block stands for all; the order messages were made in (the
// ranks' numbers) is not. Places from 1024 and items from 2^21 on tie.
std::uint64_t tie_order(std::size_t sender_local, std::size_t send_item, std::size_t receiver_local,
                        std::size_t recv_item);
// Each of the first `ranks` ranks' place among its host's ranks (0 for all on one host).
std::vector<std::uint32_t> places_on_hosts(const CostLayout& l, int ranks);
struct RankTrace {
  // Per queue: when its last item was posted (an operation: began); per item, when it
  // completed (an operation: ended).
  std::array<double, 3> last_posted{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity()};
  std::array<std::vector<double>, 3> done;
  PortTrace out, in, core;  // its way out, its way in, its core (operations and copies in)
  // Where asked for: when each transfer was posted, and the completions in the order the
  // rank learnt them (ties at one instant included).
  std::array<std::vector<double>, 2> posted;
  struct Learned {
    FlowQueue queue;
    std::uint32_t item;
    double at;
  };
  std::vector<Learned> learned;
};

struct CostResult {
  std::vector<double> finish_us;  // per simulated rank
  double time_us = 0;             // the last rank's finish
  std::size_t messages = 0;       // simulated (with a symmetry: block 0's sends)
  // Per host of the simulated ranks: when its link to other hosts was last busy, out of
  // the host and into it (a later phase's message between hosts could wait for it).
  std::vector<double> host_out_busy_us, host_in_busy_us;
  // Whether two messages matched at the same time wanted one port (or one pair of ranks,
  // with shared ports): the one matched first went first, an order another simulation
  // of the same transfers (a split into phases) need not repeat.
  bool ties_ordered = false;
  // With earlier phases given (CostSimulation::add with a mirror): false where the
  // later phase would have changed them, so that the times are not those of one
  // simulation of the whole call.
  bool phases_apart = true;
  // Where CostSimulation::trace() asked: per simulated rank, and per host's link out and in.
  std::vector<RankTrace> ranks;
  std::vector<PortTrace> host_out, host_in;
};

// A simulation fed one schedule at a time: add() each simulated rank's in rank order
// (every rank's for Kind::none, else block 0's), then run(). A rank whose schedule is a
// later phase of the call starts at `start_us`, where the earlier phase (`earlier`: its
// steps, for what they wrote) left it. A caller need not hold
// every schedule at once (at 65,536 ranks freeing them cost as much as simulating).
// `ranks` is the whole job's; hosts must not straddle blocks (std::invalid_argument).
// run() throws std::runtime_error when the schedules cannot complete (a message with no
// match, or mismatched sizes).
class CostSimulation {
 public:
  CostSimulation(int ranks, const Symmetry& symmetry, const CostParams& p, const CostLayout& layout);
  ~CostSimulation();
  // `earlier` and `later`: the rank's steps before and after `s` in the same call, where
  // a path simulates a call in parts; only what they write counts (written sends).
  void add(const Schedule& s, double start_us = 0, const Schedule* earlier = nullptr, const Schedule* later = nullptr);
  // The same with its plan in the simulation's order already made (plan_execution).
  void add(const Schedule& s, DataflowPlan plan);
  // A rank's whole schedule whose first items were simulated apart (one block of a
  // symmetric first phase): rank `mirror` of that simulation, traced with every hold
  // (trace(true)) and handed to run(), stands for it. The first items (as many per queue
  // as the trace has) complete when the trace says, the executor replayed from them
  // posts the later items as it would, and the later messages take the ports (the
  // mirror's and its host's) after or between the earlier ones the trace holds. Exact
  // where nothing later changes the earlier phase (CostResult::phases_apart says): no
  // earlier transfer posted at another time, no later message completing at a rank
  // before its earlier phase ended or delaying an earlier one on a port. Not where ports
  // are shared or receivers copy (phases_apart false).
  void add(const Schedule& whole, DataflowPlan plan, int mirror);
  void set_host_footprint_bytes(double bytes);  // known once every schedule is seen
  // Fill CostResult's ranks, host_out and host_in; with `every_hold`, also the ports'
  // holds, the transfers' posting and the completions learnt (what EarlierPhase needs).
  void trace(bool every_hold = false);
  // `earlier`: the traced first phase that ranks added with a mirror follow.
  CostResult run(const CostResult* earlier = nullptr);

 private:
  class Simulation;
  std::unique_ptr<Simulation> impl_;
};

// The same with every simulated rank's schedule at hand: schedules[r] is rank r's.
CostResult simulate_schedules(const std::vector<Schedule>& schedules, int ranks, const Symmetry& symmetry,
                              const CostParams& p, const CostLayout& layout);

inline CostResult simulate_schedules(const std::vector<Schedule>& schedules, const CostParams& p,
                                     const CostLayout& layout) {
  return simulate_schedules(schedules, static_cast<int>(schedules.size()), {}, p, layout);
}

// Where symmetry claims rank r's image under block move h is: the rank that plays r's
// part in block h.
int mirror_rank(const Symmetry& s, int ranks, int r, int h);

}  // namespace collbench
