#include "collectives/transport/mpi/open_mpi_switch.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "collectives/transport/mpi/forced_algorithm.hpp"
#include "collectives/transport/mpi/library.hpp"
#include "collectives/transport/mpi/mpi_names.hpp"
#include "collectives/transport/mpi/mpich_switch.hpp"
#include "collectives/transport/mpi/tool_interface.hpp"

namespace collbench {
namespace {

constexpr const char* kDynamic = "coll_tuned_use_dynamic_rules";
constexpr const char* kRulesFile = "coll_tuned_dynamic_rules_filename";

// The algorithm variable's values and names (0: the library's own choice).
std::map<long long, std::string> choices(Collective c) {
  const std::string var = open_mpi_algorithm_variable(c);
  auto vars = read_control_variables({var});
  return vars.count(var) ? vars.at(var).choices : std::map<long long, std::string>{};
}

}  // namespace

bool open_mpi_takes_segments(Collective c, const std::string& algorithm) {
  static const std::map<Collective, std::set<std::string>> takes = {
      {Collective::allreduce, {"segmented_ring"}},
      {Collective::broadcast, {"chain", "pipeline", "split_binary_tree", "binary_tree", "binomial", "knomial"}},
      {Collective::reduce, {"chain", "pipeline", "binary", "binomial", "in-order_binary"}},
      {Collective::gather, {"linear_sync"}}};
  const auto it = takes.find(c);
  return it != takes.end() && it->second.count(algorithm) > 0;
}

SegmentedAlgorithm split_segmented_name(const std::string& name) {
  const std::size_t at = name.find(kSegmentTag);
  if (at == std::string::npos) return {name, std::nullopt};
  const std::string digits = name.substr(at + kSegmentTag.size());
  // coll/tuned's segment size is an int.
  const bool whole =
      !digits.empty() && digits.size() <= 10 && digits.find_first_not_of("0123456789") == std::string::npos;
  const unsigned long long bytes = whole ? std::stoull(digits) : 0;
  if (bytes == 0 || bytes > static_cast<unsigned long long>(std::numeric_limits<int>::max()))
    throw std::invalid_argument("'" + name + "': a segment is " + std::string(kSegmentTag) +
                                "BYTES, a whole number of bytes from 1 to 2^31-1");
  return {name.substr(0, at), static_cast<std::size_t>(bytes)};
}

std::string segmented_name(const std::string& algorithm, std::size_t segment_bytes) {
  return algorithm + std::string(kSegmentTag) + std::to_string(segment_bytes);
}

std::size_t open_mpi_segment_bytes(Collective c) {
  const std::string var = open_mpi_algorithm_variable(c) + "_segmentsize";
  const auto vars = read_control_variables({var});
  return vars.count(var) && vars.at(var).number > 0 ? static_cast<std::size_t>(vars.at(var).number) : 0;
}

std::string open_mpi_switch_unavailable(Collective c) {
  if (mpi_library().family != MpiFamily::open_mpi) return "not Open MPI";
  if (!mpi_is_running()) return "asked outside MPI";
  const std::string var = open_mpi_algorithm_variable(c);
  const auto vars = read_control_variables({var, kDynamic, kRulesFile});
  if (!vars.count(var)) return "coll/tuned is not in use, so Open MPI's algorithms cannot be switched";
  if (!vars.count(kDynamic) || vars.at(kDynamic).number == 0)
    return std::string("Open MPI switches its algorithms in a run only with OMPI_MCA_") + kDynamic + "=1 set at launch";
  if (vars.count(kRulesFile) && !vars.at(kRulesFile).text.empty())
    return "Open MPI's rules file (" + vars.at(kRulesFile).text + ") wins over a switched algorithm";
  return open_mpi_tuned_unavailable(c, "a switched algorithm");
}

std::vector<std::string> open_mpi_switchable_algorithms(Collective c) {
  std::vector<std::string> names;
  if (!open_mpi_switch_unavailable(c).empty()) return names;
  for (const auto& [value, name] : choices(c))
    if (value > 0) names.push_back(name);
  return names;
}

std::optional<int> open_mpi_algorithm_value(Collective c, const std::string& algorithm) {
  if (!open_mpi_switch_unavailable(c).empty()) return std::nullopt;
  for (const auto& [value, name] : choices(c))
    if (name == (algorithm.empty() ? "ignore" : algorithm)) return static_cast<int>(value);
  return std::nullopt;
}

std::string open_mpi_restriction_refusal(Collective c, const std::string& algorithm, int ranks, std::size_t dtype_bytes,
                                         std::size_t segment_bytes) {
  const std::string who = "Open MPI's " + std::string(mpi_names(c).open_mpi_name) + " " + algorithm;
  if (algorithm == "two_proc" && ranks != 2 && (c == Collective::allgather || c == Collective::alltoall))
    return who + " runs on exactly 2 ranks, not " + std::to_string(ranks);
  if (c == Collective::allgather && algorithm == "recursive_doubling" && (ranks & (ranks - 1)) != 0)
    return who + " runs bruck on " + std::to_string(ranks) + " ranks (a power of two only)";
  if (c == Collective::allgather && algorithm == "neighbor" && ranks % 2 != 0)
    return who + " runs ring on " + std::to_string(ranks) + " ranks (an even number only)";
  if (c == Collective::allreduce && algorithm == "segmented_ring" && segment_bytes < dtype_bytes)
    return who + " runs ring at every count with a segment size of " + std::to_string(segment_bytes) +
           " bytes: set OMPI_MCA_" + open_mpi_algorithm_variable(c) + "_segmentsize to the bytes of a segment";
  return "";
}

OpenMpiFallback open_mpi_fallback(Collective c, const std::string& algorithm, int ranks, std::size_t dtype_bytes,
                                  std::size_t segment_bytes) {
  const auto n = static_cast<std::size_t>(ranks);
  const std::size_t t = std::max<std::size_t>(dtype_bytes, 1), s = segment_bytes;
  if (c == Collective::allreduce) {
    if (algorithm == "ring") return {n, "recursive_doubling"};
    // Open MPI's flp2(comm_size) is MPICH's pof2.
    if (algorithm == "rabenseifner") return {mpich_pof2(ranks), "basic_linear"};
    // COLL_BASE_COMPUTED_SEGCOUNT rounds to the nearer element; below ranks segments, ring.
    if (algorithm == "segmented_ring" && s >= t) return {n * (s / t + (s % t > t / 2 ? 1 : 0)), "ring"};
  }
  if (c == Collective::broadcast) {
    if (algorithm == "scatter_allgather" || algorithm == "scatter_allgather_ring") return {n, "basic_linear"};
    // Both halves of the message must hold a segment (at least one element).
    if (algorithm == "split_binary_tree") return {2 * std::max<std::size_t>(1, (s + t - 1) / t), "chain"};
  }
  if (c == Collective::reduce && algorithm == "rabenseifner") return {mpich_pof2(ranks), "linear"};
  return {};
}

MPI_Comm open_mpi_switched_comm(Collective c, int value, std::optional<std::size_t> segment_bytes, MPI_Comm comm) {
  static std::map<std::tuple<Collective, int, std::optional<std::size_t>, MPI_Comm>, MPI_Comm> made;
  const auto key = std::tuple{c, value, segment_bytes, comm};
  if (auto it = made.find(key); it != made.end()) return it->second;
  const std::string var = open_mpi_algorithm_variable(c), segsize = var + "_segmentsize";
  auto write = [](const std::string& name, std::size_t v) {
    if (!write_control_variable(name, static_cast<int>(v)))
      throw std::runtime_error("Open MPI refused a write of " + name);
  };
  const std::size_t usual = segment_bytes ? open_mpi_segment_bytes(c) : 0;
  MPI_Comm dup = MPI_COMM_NULL;
  write(var, value);
  if (segment_bytes) write(segsize, *segment_bytes);
  MPI_Comm_dup(comm, &dup);
  // Back to the library's choice, so communicators made later (e.g. a transport's) keep it.
  write(var, 0);
  if (segment_bytes) write(segsize, usual);
  return made[key] = dup;
}

}  // namespace collbench
