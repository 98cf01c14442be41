#include "algorithms/catalog.hpp"

#include "algorithms/catalog.hpp"

namespace collbench {

void register_reference_algorithms(Registry& registry) {
  using C = Collective;
  const AlgorithmEntry entries[] = {
      {C::gather, "linear", "every rank sends its block straight to the root", build_linear_gather, {}},
      {C::gather, "binomial", "blocks travel up a binomial tree, log2(n) rounds", build_binomial_gather, {}},
      {C::broadcast, "linear", "the root sends the whole buffer to every rank", build_linear_broadcast, {}},
      {C::broadcast, "binomial", "binomial tree, log2(n) rounds of the whole buffer", build_binomial_broadcast, {}},
      {C::broadcast, "scatter_allgather", "binomial scatter then ring allgather (van de Geijn)",
       build_scatter_allgather_broadcast, {}},
      {C::broadcast, "pipelined_chain", "segments flow down a chain of ranks (--segment-size)",
       build_pipelined_chain_broadcast, {}, kChainSegmentBytes},
      {C::reduce, "linear", "every rank sends to the root, which folds them in", build_linear_reduce, {}},
      {C::reduce, "binomial", "partial sums travel up a binomial tree", build_binomial_reduce, {}},
      {C::reduce, "reduce_scatter_gather", "recursive halving reduce-scatter then binomial gather (Rabenseifner)",
       build_reduce_scatter_gather_reduce, {}},
      {C::allgather, "ring", "n-1 steps around a ring, each passing one block", build_ring_allgather, {}},
      {C::allgather, "recursive_doubling", "log2(n) rounds, each swapping all gathered so far",
       build_recursive_doubling_allgather, {}},
      {C::reduce_scatter, "ring", "n-1 steps around a ring, each folding in one block", build_ring_reduce_scatter, {}},
      {C::reduce_scatter, "recursive_halving", "log2(n) rounds, each swapping and folding half the range",
       build_recursive_halving_reduce_scatter, {}},
      {C::allreduce, "ring", "reduce-scatter then allgather around a ring; sends 2(n-1)/n of the buffer",
       build_ring_allreduce, {}},
      {C::allreduce, "ring_pipelined", "ring with every block cut into segments (--segment-size)",
       build_ring_pipelined_allreduce, {}, kRingSegmentBytes},
      {C::allreduce, "tree", "binomial reduce to rank 0 then binomial broadcast", build_tree_allreduce, {}},
      {C::allreduce, "double_binary_tree", "two complementary binary trees, half the data each, pipelined (NCCL)",
       build_double_binary_tree_allreduce, {}, kDoubleTreeSegmentBytes},
      {C::allreduce, "recursive_doubling", "log2(n) rounds, each swapping the whole vector",
       build_recursive_doubling_allreduce, {}},
      {C::allreduce, "rabenseifner", "recursive halving reduce-scatter then recursive doubling allgather",
       build_rabenseifner_allreduce, {}},
      {C::allreduce, "hierarchical", "reduce to node leaders, ring allreduce among leaders, broadcast in nodes",
       build_hierarchical_allreduce, {}, 0, true},
      {C::allreduce, "hierarchical_2d", "reduce-scatter in nodes, allreduce per shard across nodes, allgather in nodes",
       build_hierarchical_2d_allreduce, {}, 0, true},
  };
  for (const AlgorithmEntry& e : entries) registry.add(e);
}

}  // namespace collbench
