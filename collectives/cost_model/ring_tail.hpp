#pragma once
// A call that ends in a ring allgather over every rank (a scatter-allgather broadcast),
// step by step: the ring's n-1 steps follow from when each rank ends the steps before
// it, without simulating n(n-1) messages. Member i of the ring is rank root + i (mod n);
// in ring step j member i sends block i - j to member i + 1 and receives block i - j - 1
// (mod n), each whole, a step with no bytes either way left out (as builders drop
// empty transfers).
//
// Step by step, a ring message waits only for its two ranks to post it: each rank's port
// and core carry one ring message each way per step, and each host's link one message
// each way (its last rank's to the next host, into its first rank). So message j from
// member i starts at max(T_i(j-1), T_i+1(j-1)), T the time a rank ends a step, and ends
// as the simulator ends a message on idle ports (done_on_idle_ports). That holds only if
// the steps before the ring are done with a host's link by the time the first ring
// message between hosts starts on it (links_free_us), else the ring is not computed.
//
// Block sizes repeat every p members (p = n / gcd(count, n) for even splits, 1 where
// all are alike), so ring steps after the first repeat their costs every p steps: once
// every rank ends a step the same time after it ended the step p before, every later p
// steps repeat that (the recurrence is a max-plus map: adding a constant to every input
// adds it to every output), and whole periods are added at once.
#include <cstddef>
#include <optional>
#include <vector>

#include "collectives/cost_model/cost_simulator.hpp"
#include "collectives/schedule/schedule.hpp"

namespace collbench {

struct RingTail {
  int ranks = 0;
  int root = 0;
  std::size_t first_step = 0;  // the ring's step 0 in the call's numbering
  std::vector<Region> blocks;  // by member; count 0 where the block is empty
};

// The ring a root's whole schedule ends in from `first_step`, its blocks read off the
// root's own ring steps; none where those steps are not such a ring (a step with more
// than one send or receive, another peer, an operation, a block seen twice apart).
std::optional<RingTail> ring_tail_of(const Schedule& root_whole, int ranks, int root, std::size_t first_step);

// The span of one buffer the ring's blocks tile; none where they do not.
std::optional<Region> ring_span(const RingTail& t);
// What the ring writes on its member `member`: every block of `span` but its own, as one
// step's receives (two regions around its own block).
Schedule ring_writes(const RingTail& t, const Region& span, int member);

// Whether rank r's whole schedule is `head` (every step before the ring) then exactly
// the ring's steps for r.
bool follows_ring_tail(const RingTail& t, int r, const Schedule& whole, const Schedule& head);

struct RingTailTimes {
  double time_us = 0;              // the last rank's end of the ring
  std::size_t steps_computed = 0;  // ring steps computed (the others added as whole periods)
  bool settled = false;            // whole periods added at once,
  std::size_t repeating_from = 0;  // after this many ring steps,
  std::size_t period = 0;          // each this many steps
  std::size_t messages = 0;        // the ring's
  bool hosts_busy = false;         // a ring message would have waited for a host's link: not computed
  bool closed_form = false;        // dataflow, every gap-th block with bytes, alike: a longest path
};

// The ring's end, each rank starting it at start_us[r] (where the steps before left
// it); written_first[r]: whether rank r's first ring send carries bytes it wrote before
// the ring (priced as written where the model does; every later ring send forwards a
// block it received); links_free_us[r]: when the links between rank r's host and the
// next rank's (r's way out, its way in) are done with the steps before the ring (where
// they are one host: any time). Stops and returns none once `most_updates` rank steps
// are computed without the rest repeating.
std::optional<RingTailTimes> ring_tail_times(const RingTail& t, const std::vector<double>& start_us,
                                             const std::vector<bool>& written_first,
                                             const std::vector<double>& links_free_us, const CostParams& p,
                                             const CostLayout& l, double most_updates);

// The ring's steps [from, to) for member `member`, numbered as in the call (its steps
// before the ring and the first ring steps are what the dataflow path simulates).
Schedule ring_steps(const RingTail& t, int member, std::size_t from, std::size_t to);

// In dataflow order (run's default) the ring overlaps the steps before it: a rank
// forwards its block as soon as it has it, while others still scatter. The steps before
// the ring and the ring's first `from` steps are simulated for every rank (with a
// trace); from there each ring message follows from its sender's and receiver's posting
// and the ports its stream holds alone: message j from member i is posted once i's
// receives through ring step j-1 are complete (it forwards what it received there),
// member i+1 posts its receive once the steps before the ring are done with that block
// (RingTailRank::touched) and its receives before it are posted; the message starts when
// both are posted and its ports (i's way out, i+1's way in and core, their hosts' links)
// are free, as the simulator starts a message. That holds where each stream's first
// computed message takes every port after all simulated messages did (or at the same
// instant, posted by the same sender after them): else `apart` is false and more ring
// steps must be simulated. The ring does not repeat (the scatter's blocks arrive at
// different times; the latest reaches each member at a different step), so each step is
// computed, for the blocks with bytes only; where every gap-th block has bytes, all alike
// (every block, or fewer elements than ranks spread evenly), the first `gap` steps are,
// and every later start is the longest path to it from those or from a receive that
// waited for the steps before, each step either a stay on the same stream (its port
// time) or a hop one member on (a whole message): the ring's end per path start in O(1)
// range maxima (closed_form), not in n(n-1) updates.
struct RingTailRank {
  double finish_us = 0;                            // when it ended all that was simulated
  double send_posted_us = 0;                       // its latest send posted
  double recv_posted_us = 0;                       // its latest receive posted
  double recvs_done_us = 0;                        // every receive simulated complete
  std::vector<std::pair<Region, double>> touched;  // what the steps before touch, and when a receive there may start
  PortTrace out, in, core;
  std::size_t local = 0;             // its place among its host's ranks
  std::size_t sends = 0, recvs = 0;  // transfers simulated: its first computed ones' items
};

struct RingTailDataflow {
  RingTailTimes times;
  bool apart = true;  // false: a computed message would take a port beside a simulated one
};

std::optional<RingTailDataflow> ring_tail_dataflow_times(const RingTail& t, std::size_t from,
                                                         const std::vector<RingTailRank>& ranks,
                                                         const std::vector<PortTrace>& host_out,
                                                         const std::vector<PortTrace>& host_in, const CostParams& p,
                                                         const CostLayout& l, double most_updates);

}  // namespace collbench
