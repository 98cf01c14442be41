#include "harness/common/topology.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>

#include "collectives/transport/mpi/communicator.hpp"
#include "collectives/transport/mpi/forced_algorithm.hpp"
#include "harness/common/control.hpp"

namespace collbench {

namespace {
std::string any_forced_algorithm() {
  for (Collective c : kAllCollectives)
    if (const std::string& f = forced_mpi_algorithm(c).algorithm; !f.empty()) return f;
  return "";
}
}  // namespace

std::vector<std::string> rank_hosts(MPI_Comm comm) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return control_allgather(std::string(name, static_cast<std::size_t>(len)), comm);
}

std::string kernel_boot_id() {
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(f, id);
  return id;
}

std::string host_identity_here() {
  char net[128] = {};
  const ssize_t n = readlink("/proc/self/ns/net", net, sizeof net - 1);
  return kernel_boot_id() + " " + (n > 0 ? std::string(net, static_cast<std::size_t>(n)) : std::string("net:unknown"));
}

std::string host_name_conflict(const std::vector<std::string>& names, const std::vector<std::string>& identities) {
  const auto boot_id = [](const std::string& identity) { return identity.substr(0, identity.find(' ')); };
  std::map<std::string, std::size_t> first_of;  // host name -> its lowest rank
  for (std::size_t r = 0; r < names.size() && r < identities.size(); ++r) {
    const auto [it, fresh] = first_of.emplace(names[r], r);
    if (fresh || identities[it->second] == identities[r]) continue;
    const bool same_machine = boot_id(identities[it->second]) == boot_id(identities[r]);
    return "ranks " + std::to_string(it->second) + " and " + std::to_string(r) + " both report host name '" + names[r] +
           "' but run " +
           (same_machine ? "in different network namespaces of one machine"
                         : "on different machines (kernel boot ids differ)") +
           ": collbench groups ranks into nodes by host name and would merge them; give every host its own name";
  }
  return "";
}

long cores_here() { return sysconf(_SC_NPROCESSORS_ONLN); }

bool exceeds_cores(long ranks, long cores) { return cores > 0 && ranks > cores; }

bool node_is_oversubscribed(const Topology& topology) {
  return exceeds_cores(topology.max_ranks_per_node, cores_here());
}

Topology discover_topology(MPI_Comm comm, int ranks_per_node) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  Topology t;
  std::vector<int> leader(static_cast<std::size_t>(size));
  if (ranks_per_node > 0) {
    for (int r = 0; r < size; ++r) leader[static_cast<std::size_t>(r)] = r - r % ranks_per_node;
    t.source = "--ranks-per-node " + std::to_string(ranks_per_node) + " (emulated nodes of consecutive ranks)";
  } else if (const std::string forced = any_forced_algorithm(); !forced.empty()) {
    // The library's split runs small collectives internally, which a forced algorithm
    // may refuse; ranks with the same host name share a node just as well.
    const auto hosts = rank_hosts(comm);
    for (int r = 0; r < size; ++r)
      leader[static_cast<std::size_t>(r)] =
          static_cast<int>(std::find(hosts.begin(), hosts.end(), hosts[static_cast<std::size_t>(r)]) - hosts.begin());
    t.source = "host names (MPI_Comm_split_type is skipped while the MPI library is forced to " + forced + ")";
  } else {
    // A node is named by its lowest rank, which every rank on it learns from the split.
    const Communicator shared = Communicator::split_shared(comm, rank);
    std::vector<double> lowest{static_cast<double>(rank)};
    control_allreduce(
        lowest, [](double a, double b) { return std::min(a, b); }, shared.get());
    const auto all = control_allgather(std::to_string(static_cast<int>(lowest[0])), comm);
    for (int r = 0; r < size; ++r) leader[static_cast<std::size_t>(r)] = std::stoi(all[static_cast<std::size_t>(r)]);
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
