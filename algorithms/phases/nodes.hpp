#pragma once
// The ranks of a request grouped by node (ScheduleRequest::node_of), for the
// topology-aware algorithms.
#include <algorithm>
#include <cstddef>
#include <map>
#include <vector>

#include "collectives/schedule/schedule.hpp"

namespace collbench {

// Ranks grouped by node, nodes in order of their lowest rank; each list ascending.
struct Nodes {
  std::vector<std::vector<int>> ranks;
  int mine = 0, local = 0;  // this rank's node and index on it
  std::size_t smallest = 0;
  std::vector<int> node_of_rank;  // each rank's node, as an index into `ranks`

  Nodes(const ScheduleRequest& q) {
    std::map<int, int> index;
    for (int r = 0; r < q.nranks; ++r) {
      auto [it, fresh] = index.try_emplace(q.node_of(r), static_cast<int>(ranks.size()));
      if (fresh) ranks.emplace_back();
      ranks[it->second].push_back(r);
      node_of_rank.push_back(it->second);
      if (r == q.rank) {
        mine = it->second;
        local = static_cast<int>(ranks[it->second].size()) - 1;
      }
    }
    smallest = ranks[0].size();
    for (const auto& n : ranks) smallest = std::min(smallest, n.size());
  }
  // The longest of a per-node phase, so that the next phase starts together.
  template <class F>
  std::size_t longest(F steps_for_size) const {
    std::size_t most = 0;
    for (const auto& n : ranks) most = std::max(most, steps_for_size(static_cast<int>(n.size())));
    return most;
  }
};

}  // namespace collbench
