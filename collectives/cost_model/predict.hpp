#pragma once
// One prediction: an algorithm's time on `ranks` ranks at one size, from its schedules
// (collectives/cost_model/cost_simulator.hpp). The symmetric path simulates one block (one host's
// ranks, or one rank where hosts hold one or all): it is taken when sampled blocks (the
// second, the middle, the last) are images of block 0 under a shift or an XOR by whole
// blocks at sampled ranks (each block's first and last), step by step:
// same sizes, operations, and peers moved alike. Otherwise every rank's schedule is
// built and simulated, up to kMostSimulatedTransfers; 64 ranks spread evenly are built
// first, and a full simulation whose typical rank has too much, or whose schedules would
// take longer than kMostBuildSeconds to build, is refused at once.
//
// The split path, where no symmetry holds for the whole call: a first phase (the steps
// before some step K) whose blocks are images of block 0 is simulated as one block, the
// rest for every rank from where the first phase left it (in dataflow order, replayed
// from its mirror's trace, as the phases overlap); declined where the two could interact
// (collectives/cost_model/README.md). Unless asked for, it is not tried where more than kMostSplitTail of the call
// (ranks spread evenly, transfers and steps) comes after K: the full simulation costs little more.
//
// The periodic path, for an algorithm whose every segment adds the same time once its
// pipeline is full (AlgorithmEntry::linear_in_segments: the chain) when no symmetry holds
// and it has at least kLeastPeriodicSegments segments: the same request is predicted with
// k0, k0+1, k0+2 and k0+5 segments (the last, partial one kept) and, where the three
// differences agree to 1e-9 of the time (a check, k0 = 2, then 8, then 16), the line is
// extended to the whole count. The samples are charged per byte as the whole count's
// buffers are (rank 0's and the root's). Sampled lines are not proofs: a double binary
// tree's times pass the check at some n and still miss, so it is not taken there.
//
// The ring-tail path, for an algorithm whose schedules end in a ring allgather over every
// rank (AlgorithmEntry::ring_allgather_head: scatter_allgather): the steps before the
// ring simulated for every rank (in dataflow order with the ring's first steps, where
// the ring overlaps them), the ring by a recurrence (collectives/cost_model/ring_tail.hpp),
// checked on sampled ranks' whole schedules.
#include <cstddef>
#include <string>

#include "collectives/cost_model/cost_simulator.hpp"
#include "collectives/schedule/registry.hpp"

namespace collbench {

enum class PredictMethod { automatic, full, symmetric, split, periodic, ring_tail };
inline constexpr NameTable<PredictMethod, 6> kPredictMethodNames{{{{PredictMethod::automatic, "auto"},
                                                                   {PredictMethod::full, "full"},
                                                                   {PredictMethod::symmetric, "symmetric"},
                                                                   {PredictMethod::split, "split"},
                                                                   {PredictMethod::periodic, "periodic"},
                                                                   {PredictMethod::ring_tail, "ring_tail"}}}};

inline constexpr double kMostSimulatedTransfers = 5e7;
inline constexpr double kMostBuildSeconds = 60;
inline constexpr std::size_t kLeastPeriodicSegments = 64;
inline constexpr double kMostSplitTail = 0.5;
inline constexpr double kMostRingTailUpdates = 5e8;  // rank steps of a ring tail's recurrence

struct PredictRequest {
  const AlgorithmEntry* algorithm = nullptr;  // a schedule builder
  Collective collective = Collective::allreduce;
  int ranks = 2;
  std::size_t count = 0;  // elements per rank, as builders take it
  std::size_t element_size = 4;
  int root = 0;
  int ranks_per_node = 1;  // consecutive ranks per host
  std::size_t segment_bytes = 0;
  ExecutionOrder order = ExecutionOrder::dataflow;
};

struct Prediction {
  double time_us = 0;
  PredictMethod method = PredictMethod::full;
  std::size_t messages = 0;  // simulated (the symmetric path: one block's sends)
  std::string symmetry;      // e.g. "shift by 8 ranks"; periodic, ring_tail: how; empty for the full simulation
  double seconds = 0;        // what predicting took
};

// Throws std::invalid_argument when a path asked for (symmetric, split, periodic,
// ring_tail) does not hold, when the full simulation would be too large, or when a ring
// tail's recurrence does not repeat within kMostRingTailUpdates.
Prediction predict(const PredictRequest& q, const CostParams& p, PredictMethod method = PredictMethod::automatic);

}  // namespace collbench
