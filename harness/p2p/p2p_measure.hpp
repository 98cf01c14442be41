#pragma once
// The two point-to-point tests between one pair of ranks, on any Transport (so they
// time what the reference algorithms' messages cost): ping-pong, and a window of
// messages in flight answered by an ack. Rank `first` times, rank `second` answers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/transport/transport.hpp"
#include "harness/common/timing.hpp"
#include "harness/p2p/p2p_options.hpp"

namespace collbench {

struct LinkPair {
  std::string link;  // "intra-host" or "inter-host"
  int first = 0, second = 1;
};

// Rank 0 with the lowest rank on its own node (intra-host) and with the lowest rank on
// another node (inter-host), for the link classes these ranks have.
std::vector<LinkPair> choose_pairs(const std::vector<int>& node_of_rank);

// Buffers the tests move, from the transport (shm moves only its own memory).
struct P2pBuffers {
  // `receives_at_once`: messages of up to max_bytes a test receives together (the pair
  // test's two).
  P2pBuffers(Transport& t, std::size_t max_bytes, std::size_t receives_at_once);
  OwnedBuffer send, recv, control;
};

struct PairRound {
  std::vector<double> us;  // per message, on `first` (latency: half the round trip)
  int warmup = 0;
  std::int64_t wrong = 0;  // bytes of the checked messages that arrived wrong, on this rank
};

// One round of `test` at `bytes` (warm-up, then timed iterations, then, with `check`,
// one untimed message each way whose bytes are checked). Both ranks of the pair call
// it; `first` picks the iteration count after the warm-up (Repetitions, within the
// budget) and tells `second`. Per call: the pair meets before each timed iteration.
PairRound run_pair_round(Transport& t, P2pBuffers& b, const LinkPair& pair, P2pTest test, std::size_t bytes, int window,
                         const Repetitions& reps, TimingPolicy timing, int round, bool check);

}  // namespace collbench
