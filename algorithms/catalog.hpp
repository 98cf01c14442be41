#pragma once
// Every reference algorithm: its builder's declaration and its registry row, by
// collective. Adding an algorithm is its builder (in algorithms/builders/) plus one
// declaration and one row here; `collbench list`, the command line, the symbolic and
// MPI test suites and the sweeps all read the rows.
#include <array>
#include <cstddef>
#include <string_view>

#include "collectives/schedule/registry.hpp"
#include "collectives/schedule/schedule.hpp"

namespace collbench {

Schedule build_linear_gather(const ScheduleRequest& q);
Schedule build_binomial_gather(const ScheduleRequest& q);

Schedule build_linear_broadcast(const ScheduleRequest& q);
Schedule build_binomial_broadcast(const ScheduleRequest& q);
Schedule build_scatter_allgather_broadcast(const ScheduleRequest& q);
std::size_t scatter_allgather_head(const ScheduleRequest& q, Schedule& head);  // its binomial scatter
Schedule build_pipelined_chain_broadcast(const ScheduleRequest& q);

Schedule build_linear_reduce(const ScheduleRequest& q);
Schedule build_binomial_reduce(const ScheduleRequest& q);
Schedule build_reduce_scatter_gather_reduce(const ScheduleRequest& q);

Schedule build_ring_allgather(const ScheduleRequest& q);
Schedule build_recursive_doubling_allgather(const ScheduleRequest& q);

Schedule build_ring_reduce_scatter(const ScheduleRequest& q);
Schedule build_recursive_halving_reduce_scatter(const ScheduleRequest& q);

Schedule build_ring_allreduce(const ScheduleRequest& q);
Schedule build_ring_pipelined_allreduce(const ScheduleRequest& q);
Schedule build_tree_allreduce(const ScheduleRequest& q);
Schedule build_double_binary_tree_allreduce(const ScheduleRequest& q);
Schedule build_recursive_doubling_allreduce(const ScheduleRequest& q);
Schedule build_rabenseifner_allreduce(const ScheduleRequest& q);
Schedule build_hierarchical_allreduce(const ScheduleRequest& q);
Schedule build_hierarchical_2d_allreduce(const ScheduleRequest& q);

// alltoall and alltoallv alike (they read ScheduleRequest::blocks()), but Bruck's equal blocks.
Schedule build_linear_all_to_all(const ScheduleRequest& q);
Schedule build_pairwise_all_to_all(const ScheduleRequest& q);
Schedule build_bruck_alltoall(const ScheduleRequest& q);
Schedule build_hierarchical_all_to_all(const ScheduleRequest& q);

// Default pipeline segments (a run's --segment-size overrides them).
inline constexpr std::size_t kRingSegmentBytes = 256 * 1024;
inline constexpr std::size_t kChainSegmentBytes = 128 * 1024;
inline constexpr std::size_t kDoubleTreeSegmentBytes = 512 * 1024;

struct ReferenceAlgorithm {
  Collective collective;
  std::string_view name;
  std::string_view summary;
  ScheduleBuilder build;
  std::size_t default_segment_bytes = 0;  // pipelined algorithms only
  bool topology_aware = false;            // reads AlgorithmParams::node_of_rank
  bool linear_in_segments = false;        // see AlgorithmEntry
  RingAllgatherHead ring_allgather_head = nullptr;
};

// The all-to-all rows that serve alltoallv too (all but Bruck, which needs equal blocks).
inline constexpr ReferenceAlgorithm kLinearAllToAll{
    Collective::alltoall, "linear", "every block to its rank at once, in rotated order", build_linear_all_to_all};
inline constexpr ReferenceAlgorithm kPairwiseAllToAll{
    Collective::alltoall, "pairwise", "n-1 steps, one partner each (XOR for powers of two, else r+k / r-k)",
    build_pairwise_all_to_all};
inline constexpr ReferenceAlgorithm kHierarchicalAllToAll{
    Collective::alltoall,
    "hierarchical",
    "blocks for other nodes through node leaders: one message per pair of nodes",
    build_hierarchical_all_to_all,
    0,
    true};
constexpr ReferenceAlgorithm same_for(Collective c, ReferenceAlgorithm row) {
  row.collective = c;
  return row;
}

// In the order `collbench list` and a sweep show them, after the `mpi` baseline.
inline constexpr std::array kReferenceAlgorithms{
    ReferenceAlgorithm{Collective::gather, "linear", "every rank sends its block straight to the root",
                       build_linear_gather},
    ReferenceAlgorithm{Collective::gather, "binomial", "blocks travel up a binomial tree, log2(n) rounds",
                       build_binomial_gather},
    ReferenceAlgorithm{Collective::broadcast, "linear", "the root sends the whole buffer to every rank",
                       build_linear_broadcast},
    ReferenceAlgorithm{Collective::broadcast, "binomial", "binomial tree, log2(n) rounds of the whole buffer",
                       build_binomial_broadcast},
    ReferenceAlgorithm{Collective::broadcast, "scatter_allgather",
                       "binomial scatter then ring allgather (van de Geijn)", build_scatter_allgather_broadcast, 0,
                       false, false, scatter_allgather_head},
    ReferenceAlgorithm{Collective::broadcast, "pipelined_chain", "segments flow down a chain of ranks (--segment-size)",
                       build_pipelined_chain_broadcast, kChainSegmentBytes, false, true},
    ReferenceAlgorithm{Collective::reduce, "linear", "every rank sends to the root, which folds them in",
                       build_linear_reduce},
    ReferenceAlgorithm{Collective::reduce, "binomial", "partial sums travel up a binomial tree", build_binomial_reduce},
    ReferenceAlgorithm{Collective::reduce, "reduce_scatter_gather",
                       "recursive halving reduce-scatter then binomial gather (Rabenseifner)",
                       build_reduce_scatter_gather_reduce},
    ReferenceAlgorithm{Collective::allgather, "ring", "n-1 steps around a ring, each passing one block",
                       build_ring_allgather},
    ReferenceAlgorithm{Collective::allgather, "recursive_doubling", "log2(n) rounds, each swapping all gathered so far",
                       build_recursive_doubling_allgather},
    ReferenceAlgorithm{Collective::reduce_scatter, "ring", "n-1 steps around a ring, each folding in one block",
                       build_ring_reduce_scatter},
    ReferenceAlgorithm{Collective::reduce_scatter, "recursive_halving",
                       "log2(n) rounds, each swapping and folding half the range",
                       build_recursive_halving_reduce_scatter},
    ReferenceAlgorithm{Collective::allreduce, "ring",
                       "reduce-scatter then allgather around a ring; sends 2(n-1)/n of the buffer",
                       build_ring_allreduce},
    ReferenceAlgorithm{Collective::allreduce, "ring_pipelined",
                       "ring with every block cut into segments (--segment-size)", build_ring_pipelined_allreduce,
                       kRingSegmentBytes},
    ReferenceAlgorithm{Collective::allreduce, "tree", "binomial reduce to rank 0 then binomial broadcast",
                       build_tree_allreduce},
    ReferenceAlgorithm{Collective::allreduce, "double_binary_tree",
                       "two complementary binary trees, half the data each, pipelined (NCCL)",
                       build_double_binary_tree_allreduce, kDoubleTreeSegmentBytes},
    ReferenceAlgorithm{Collective::allreduce, "recursive_doubling", "log2(n) rounds, each swapping the whole vector",
                       build_recursive_doubling_allreduce},
    ReferenceAlgorithm{Collective::allreduce, "rabenseifner",
                       "recursive halving reduce-scatter then recursive doubling allgather",
                       build_rabenseifner_allreduce},
    ReferenceAlgorithm{Collective::allreduce, "hierarchical",
                       "reduce to node leaders, ring allreduce among leaders, broadcast in nodes",
                       build_hierarchical_allreduce, 0, true},
    ReferenceAlgorithm{Collective::allreduce, "hierarchical_2d",
                       "reduce-scatter in nodes, allreduce per shard across nodes, allgather in nodes",
                       build_hierarchical_2d_allreduce, 0, true},
    kLinearAllToAll,
    kPairwiseAllToAll,
    ReferenceAlgorithm{Collective::alltoall, "bruck",
                       "log2(n) rounds of n/2 packed blocks, with local rotations (Bruck et al.)",
                       build_bruck_alltoall},
    kHierarchicalAllToAll,
    same_for(Collective::alltoallv, kLinearAllToAll),
    same_for(Collective::alltoallv, kPairwiseAllToAll),
    same_for(Collective::alltoallv, kHierarchicalAllToAll),
};

// Registers every row of kReferenceAlgorithms.
void register_reference_algorithms(Registry& registry);

}  // namespace collbench
