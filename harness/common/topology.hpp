#pragma once
// Which ranks share a node (by host name), real or emulated; host identity checks; cores and oversubscription.
#include <mpi.h>

#include <string>
#include <vector>

namespace collbench {

// Which node each rank is on, as ids 0..nodes-1 in order of each node's lowest rank.
struct Topology {
  std::vector<int> node_of_rank;
  int nodes = 1;
  int max_ranks_per_node = 1;
  std::string source;  // how the nodes were found, for the metadata
};

// Node boundaries from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), or, with
// ranks_per_node > 0, consecutive groups of that many ranks (emulated nodes).
// Collective over comm.
Topology discover_topology(MPI_Comm comm, int ranks_per_node);

// Host names of all ranks, in rank order (collective over comm).
std::vector<std::string> rank_hosts(MPI_Comm comm);

// This kernel's boot id: one per machine, shared by its containers and namespaces.
std::string kernel_boot_id();
// Where a rank runs: the kernel's boot id and the network namespace ("BOOT net:[INODE]").
std::string host_identity_here();
// Ranks that report one host name from different machines or network namespaces (a
// cloned image, emulated hosts given one name) would be merged into one node: the
// message naming them, or "" when each name belongs to one place. Pure.
std::string host_name_conflict(const std::vector<std::string>& names, const std::vector<std::string>& identities);

// The cores this machine has online.
long cores_here();
// Whether `ranks` busy-polling ranks on a host of `cores` cores must take turns on them
// (false when the core count is unknown).
bool exceeds_cores(long ranks, long cores);
// Whether a node has more ranks than this machine has cores: waits then yield the
// core between polls (see MpiTransport), or the spinning ranks starve the others.
bool node_is_oversubscribed(const Topology& topology);

}  // namespace collbench
