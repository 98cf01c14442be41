#pragma once
// The ranks of a request grouped by node (ScheduleRequest::node_of), for the
// topology-aware algorithms.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "collectives/schedule/schedule.hpp"

namespace collbench {

// Ranks grouped by node, nodes in order of their lowest rank; each list ascending.
struct NodeGroups {
  std::vector<std::vector<int>> ranks;
  std::vector<int> node_of_rank;   // each rank's node, as an index into `ranks`
  std::vector<int> local_of_rank;  // each rank's index on its node
  std::size_t smallest = 0;
};

// The grouping of q's layout. Every rank's schedule needs the same one, and building it
// costs O(n log n): predicting 65,536 ranks would spend minutes on it, so the last
// layout's grouping is kept (per thread) and reused while the layout is unchanged.
std::shared_ptr<const NodeGroups> node_groups(const ScheduleRequest& q);

// The grouping as one rank sees it.
struct Nodes {
  std::shared_ptr<const NodeGroups> groups;
  const std::vector<std::vector<int>>& ranks;
  const std::vector<int>& node_of_rank;
  int mine = 0, local = 0;  // this rank's node and index on it
  std::size_t smallest = 0;

  explicit Nodes(const ScheduleRequest& q)
      : groups(node_groups(q)),
        ranks(groups->ranks),
        node_of_rank(groups->node_of_rank),
        mine(groups->node_of_rank.at(static_cast<std::size_t>(q.rank))),
        local(groups->local_of_rank.at(static_cast<std::size_t>(q.rank))),
        smallest(groups->smallest) {}
  // The longest of a per-node phase, so that the next phase starts together.
  template <class F>
  std::size_t longest(F steps_for_size) const {
    std::size_t most = 0;
    for (const auto& n : ranks) most = std::max(most, steps_for_size(static_cast<int>(n.size())));
    return most;
  }
};

}  // namespace collbench
