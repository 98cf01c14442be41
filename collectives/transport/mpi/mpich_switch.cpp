#include "collectives/transport/mpi/mpich_switch.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <map>
#include <regex>
#include <sstream>

#include "collectives/transport/mpi/library.hpp"
#include "collectives/transport/mpi/mpi_names.hpp"
#include "collectives/transport/mpi/tool_interface.hpp"

namespace collbench {

std::vector<std::string> mpich_enum_order(const std::string& description, const std::vector<std::string>& names) {
  static const std::regex item("([A-Za-z0-9_]+) +- ");
  std::vector<std::string> order;
  for (auto it = std::sregex_iterator(description.begin(), description.end(), item); it != std::sregex_iterator();
       ++it) {
    const std::string word = (*it)[1];
    const std::string* best = nullptr;
    for (const std::string& n : names)
      if (word.size() >= n.size() && word.compare(word.size() - n.size(), n.size(), n) == 0 &&
          (!best || n.size() > best->size()))
        best = &n;
    if (!best || std::find(order.begin(), order.end(), *best) != order.end()) return {};
    order.push_back(*best);
  }
  if (order.size() != names.size()) return {};
  return order;
}

MpichRestrictions mpich_restrictions(Collective c, const std::string& a) {
  MpichRestrictions r;
  if ((c == Collective::allreduce && a == "reduce_scatter_allgather") ||
      (c == Collective::reduce && a == "reduce_scatter_gather"))
    r.count_ge_pof2 = true;
  if ((c == Collective::broadcast && a == "scatter_recursive_doubling_allgather") ||
      (c == Collective::allgather && a == "recursive_doubling") ||
      (c == Collective::reduce_scatter && a == "noncommutative"))
    r.power_of_two = true;
  if (a == "smp") r.parent_comm = true;
  if (c == Collective::alltoall || c == Collective::alltoallv) {
    r.in_place_only = a == "pairwise_sendrecv_replace";
    r.not_in_place = a == "brucks" || a == "pairwise" || a == "scattered";
  }
  return r;
}

std::string mpich_restriction_refusal(Collective c, const std::string& a, int ranks, int nodes, int max_ranks_per_node,
                                      bool in_place) {
  const MpichRestrictions r = mpich_restrictions(c, a);
  const std::string who = "MPICH's " + a + " " + std::string(collective_name(c));
  if (r.in_place_only && !in_place) return who + " runs only in place (--in-place)";
  if (r.not_in_place && in_place) return who + " does not run in place (--in-place)";
  if (r.parent_comm && !mpich_node_hierarchy(nodes, max_ranks_per_node))
    return who + " needs MPICH's node hierarchy: several nodes, one with several ranks; this run has " +
           std::to_string(nodes) + " node(s), at most " + std::to_string(max_ranks_per_node) + " rank(s) on one";
  if (r.power_of_two && (ranks & (ranks - 1)) != 0)
    return who + " needs a power-of-two number of ranks, not " + std::to_string(ranks);
  return "";
}

std::size_t mpich_smallest_count(Collective c, const std::string& a, int ranks) {
  return mpich_restrictions(c, a).count_ge_pof2 ? mpich_pof2(ranks) : 1;
}

namespace {

constexpr const char* kFallback = "MPIR_CVAR_COLLECTIVE_FALLBACK";

std::vector<std::string> listed_names(Collective c) {
  std::vector<std::string> names{"auto"};
  std::istringstream in{std::string(mpi_names(c).mpich_algorithms)};
  for (std::string n; in >> n;) names.push_back(n);
  return names;
}

// The algorithm CVAR's names in value order, read once per collective, or why they
// cannot be (none outside MPI_Init..MPI_Finalize, where MPI_T cannot be asked: option
// parsing in unit tests).
struct ValueOrder {
  std::vector<std::string> names;
  std::string unavailable;
};

ValueOrder read_value_order(Collective c) {
  if (mpi_library().family != MpiFamily::mpich) return {{}, "not MPICH"};
  const std::string cvar(mpi_names(c).mpich_algorithm_cvar);
  if (cvar.empty()) return {{}, "MPICH has no algorithm control variable for " + std::string(collective_name(c))};
  const auto d = control_variable_description(cvar);
  if (!d) return {{}, "this MPICH's MPI_T does not describe " + cvar + ", so its algorithms cannot be switched"};
  std::vector<std::string> order = mpich_enum_order(*d, listed_names(c));
  if (order.size() < 2 || order.front() != "auto")
    return {{},
            cvar + "'s description in this MPICH does not list exactly the algorithms collbench knows (" +
                std::string(mpi_names(c).mpich_algorithms) + "), so their values are unknown"};
  return {std::move(order), ""};
}

const ValueOrder& value_order(Collective c) {
  static std::map<Collective, ValueOrder> cache;
  static const ValueOrder outside{{}, "asked outside MPI"};
  if (!mpi_is_running()) return outside;
  auto it = cache.find(c);
  if (it == cache.end()) it = cache.emplace(c, read_value_order(c)).first;
  return it->second;
}

std::array<int, 32> current{};  // each collective's switched value; 0: MPICH's own choice

void set_fallback_error() {
  static const bool done = [] {
    const auto d = control_variable_description(kFallback);
    const auto order = d ? mpich_enum_order(*d, {"error", "print", "silent"}) : std::vector<std::string>{};
    const auto it = std::find(order.begin(), order.end(), "error");
    if (it == order.end() || !write_control_variable(kFallback, static_cast<int>(it - order.begin())))
      throw std::runtime_error(std::string("cannot set MPICH's ") + kFallback + "=error through MPI_T");
    return true;
  }();
  (void)done;
}

}  // namespace

std::string mpich_switch_unavailable(Collective c) { return value_order(c).unavailable; }

std::vector<std::string> mpich_switchable_algorithms(Collective c) {
  const auto& order = value_order(c).names;
  return order.empty() ? order : std::vector<std::string>(order.begin() + 1, order.end());
}

std::optional<int> mpich_algorithm_value(Collective c, const std::string& algorithm) {
  const auto& order = value_order(c).names;
  const auto it = std::find(order.begin(), order.end(), algorithm.empty() ? "auto" : algorithm);
  if (it == order.end()) return std::nullopt;
  return static_cast<int>(it - order.begin());
}

void select_mpich_algorithm(Collective c, int value) {
  int& now = current.at(static_cast<std::size_t>(c));
  if (now == value) return;
  set_fallback_error();
  if (!write_control_variable(std::string(mpi_names(c).mpich_algorithm_cvar), value))
    throw std::runtime_error("MPICH refused a write of " + std::string(mpi_names(c).mpich_algorithm_cvar) +
                             " through MPI_T");
  now = value;
}

}  // namespace collbench
