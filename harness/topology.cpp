#include "topology.hpp"

#include <algorithm>
#include <map>

namespace collbench {

Topology discover_topology(MPI_Comm comm, int ranks_per_node) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  Topology t;
  std::vector<int> leader(static_cast<std::size_t>(size));
  if (ranks_per_node > 0) {
    for (int r = 0; r < size; ++r) leader[static_cast<std::size_t>(r)] = r - r % ranks_per_node;
    t.source = "--ranks-per-node " + std::to_string(ranks_per_node) + " (emulated nodes of consecutive ranks)";
  } else {
    // A node is named by its lowest rank, which every rank on it learns from the split.
    MPI_Comm shared;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    int lowest = rank;
    MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, shared);
    MPI_Comm_free(&shared);
    MPI_Allgather(&lowest, 1, MPI_INT, leader.data(), 1, MPI_INT, comm);
    t.source = "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)";
  }
  std::map<int, int> id;
  std::map<int, int> count;
  for (int l : leader) {
    id.try_emplace(l, static_cast<int>(id.size()));
    ++count[l];
  }
  for (int l : leader) t.node_of_rank.push_back(id[l]);
  t.nodes = static_cast<int>(id.size());
  t.max_ranks_per_node = 0;
  for (const auto& [l, c] : count) t.max_ranks_per_node = std::max(t.max_ranks_per_node, c);
  return t;
}

}  // namespace collbench
