#pragma once
// Every reference algorithm's schedule builder, by collective.
#include <cstddef>

#include "collectives/registry.hpp"
#include "collectives/schedule.hpp"

namespace collbench {

Schedule build_linear_gather(const ScheduleRequest& q);
Schedule build_binomial_gather(const ScheduleRequest& q);

Schedule build_linear_broadcast(const ScheduleRequest& q);
Schedule build_binomial_broadcast(const ScheduleRequest& q);
Schedule build_scatter_allgather_broadcast(const ScheduleRequest& q);
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

// Default pipeline segments (a run's --segment-size overrides them).
inline constexpr std::size_t kRingSegmentBytes = 256 * 1024;
inline constexpr std::size_t kChainSegmentBytes = 128 * 1024;
inline constexpr std::size_t kDoubleTreeSegmentBytes = 512 * 1024;

// Registers every schedule-based reference algorithm.
void register_reference_algorithms(Registry& registry);

}  // namespace collbench
