#include "algorithms/phases/nodes.hpp"

#include <map>

namespace collbench {
namespace {

std::shared_ptr<const NodeGroups> group(const ScheduleRequest& q) {
  auto g = std::make_shared<NodeGroups>();
  std::map<int, int> index;
  for (int r = 0; r < q.nranks; ++r) {
    auto [it, fresh] = index.try_emplace(q.node_of(r), static_cast<int>(g->ranks.size()));
    if (fresh) g->ranks.emplace_back();
    g->local_of_rank.push_back(static_cast<int>(g->ranks[static_cast<std::size_t>(it->second)].size()));
    g->ranks[static_cast<std::size_t>(it->second)].push_back(r);
    g->node_of_rank.push_back(it->second);
  }
  g->smallest = g->ranks[0].size();
  for (const auto& n : g->ranks) g->smallest = std::min(g->smallest, n.size());
  return g;
}

}  // namespace

std::shared_ptr<const NodeGroups> node_groups(const ScheduleRequest& q) {
  struct Cached {
    int nranks = 0;
    std::vector<int> layout;  // the request's node_of_rank as given
    std::shared_ptr<const NodeGroups> groups;
  };
  thread_local Cached last;
  static const std::vector<int> kOneNode;
  const std::vector<int>& layout = q.params ? q.params->node_of_rank : kOneNode;
  if (!last.groups || last.nranks != q.nranks || last.layout != layout) {
    last.groups = group(q);
    last.nranks = q.nranks;
    last.layout = layout;
  }
  return last.groups;
}

}  // namespace collbench
