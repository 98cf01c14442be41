#pragma once
// Predicts a collective's time from its schedules, without running them: every rank's
// steps in step order (a step's transfers are posted together, its operations run when
// they have all completed), each message costing the link's latency plus its bytes at
// the link's inverse bandwidth (Hockney), matched in posting order per pair of ranks as
// the executor matches them. A rank's sends leave one at a time through its port and
// its receives arrive one at a time; messages between hosts also queue for their hosts'
// links, so ranks of one host share its bandwidth. Reductions and copies cost their
// bytes at a per-byte rate. No MPI, no memory of the data: only sizes and times.
//
// Symmetric schedules need not be simulated rank by rank. Where rank r + h*block (or
// r XOR h*block) does exactly what rank r does with every peer moved the same way, all
// blocks run in lockstep: simulating one block, with each message to another block
// standing for the one its mirror image receives, gives the same times exactly.
#include <cstddef>
#include <vector>

#include "collectives/schedule.hpp"

namespace collbench {

struct LinkCost {
  double alpha_us = 0;      // latency per message
  double us_per_byte = 0;   // 1 / bandwidth
};

struct CostParams {
  LinkCost intra, inter;          // between ranks of one host, and of different hosts
  double reduce_us_per_byte = 0;  // gamma: per byte of a reduction's result
  double copy_us_per_byte = 0;
  double overhead_us = 0;         // per message, on each side's port before its bytes (software)
};

struct CostLayout {
  std::size_t element_size = 4;
  std::vector<int> node_of_rank;  // empty: every rank on one host; else one entry per rank
};

// How the ranks' schedules repeat: none (every rank's schedule given), or blocks of
// `block` consecutive ranks that are images of block 0 under a shift by whole blocks
// (rank r -> r + h*block mod n) or under XOR with h*block (block and n powers of two).
struct Symmetry {
  enum class Kind { none, shift, xor_blocks } kind = Kind::none;
  int block = 0;
};

struct CostResult {
  std::vector<double> finish_us;  // per simulated rank
  double time_us = 0;             // the last rank's finish
  std::size_t messages = 0;       // simulated (with a symmetry: block 0's sends)
};

// schedules[r] is rank r's, for every rank (Kind::none) or for block 0's ranks; `ranks`
// is the whole job's. Hosts must not straddle blocks. Throws std::runtime_error when the
// schedules cannot complete (a message with no match, or mismatched sizes).
CostResult simulate_schedules(const std::vector<Schedule>& schedules, int ranks, const Symmetry& symmetry,
                              const CostParams& p, const CostLayout& layout);

inline CostResult simulate_schedules(const std::vector<Schedule>& schedules, const CostParams& p, const CostLayout& layout) {
  return simulate_schedules(schedules, static_cast<int>(schedules.size()), {}, p, layout);
}

// Where symmetry claims rank r's image under block move h is: the rank that plays r's
// part in block h.
int mirror_rank(const Symmetry& s, int ranks, int r, int h);

}  // namespace collbench
