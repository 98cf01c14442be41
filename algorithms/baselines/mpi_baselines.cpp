#include "algorithms/baselines/mpi_baselines.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "collectives/transport/mpi/library.hpp"
#include "collectives/transport/mpi/library_call.hpp"
#include "collectives/transport/mpi/mpi_names.hpp"
#include "collectives/transport/mpi/mpich_switch.hpp"
#include "collectives/transport/mpi/open_mpi_switch.hpp"
#include "collectives/transport/mpi/transport.hpp"

namespace collbench {
namespace {

// Set once a run uses a switched MPICH algorithm: from then on the plain "mpi" switches
// the library back to its own choice before its calls.
bool switching = false;

bool open_mpi() { return mpi_library().family == MpiFamily::open_mpi; }

class MpiCollective final : public PreparedCollective {
 public:
  MpiCollective(Collective c, const MpiCallArgs& a, std::optional<int> select) : c_(c), select_(select), call_(c, a) {}
  void run() override {
    if (select_) select_mpich_algorithm(c_, *select_);
    call_.run();
  }

 private:
  Collective c_;
  std::optional<int> select_;
  MpiLibraryCall call_;
};

MpiCallArgs args_on(const CollectiveCall& call, Transport& transport) {
  auto* mpi = dynamic_cast<MpiTransport*>(&transport);
  if (!mpi) throw std::invalid_argument("the mpi baseline needs the MPI transport");
  return mpi_call_args(call, mpi->comm(), mpi->rank());
}

std::unique_ptr<PreparedCollective> prepare_mpi(const CollectiveCall& call, Transport& transport) {
  return std::make_unique<MpiCollective>(call.collective, args_on(call, transport),
                                         switching ? std::optional{0} : std::nullopt);
}

}  // namespace

void register_mpi_baselines(Registry& registry) {
  for (const CollectiveTraits& c : kCollectiveTraits)
    registry.add({c.id, "mpi", "the MPI library's own " + std::string(mpi_names(c.id).function), nullptr, prepare_mpi});
}

std::vector<std::string> mpi_switchable_algorithms(Collective c) {
  return open_mpi() ? open_mpi_switchable_algorithms(c) : mpich_switchable_algorithms(c);
}

std::string mpi_switch_unavailable(Collective c) {
  if (open_mpi()) return open_mpi_switch_unavailable(c);
  if (mpi_library().family == MpiFamily::mpich) return mpich_switch_unavailable(c);
  return "only MPICH's and Open MPI's algorithms can be switched in a run, not this MPI library's";
}

std::vector<std::string> mpi_segmented_algorithms(Collective c) {
  std::vector<std::string> out;
  if (open_mpi())
    for (const std::string& a : open_mpi_switchable_algorithms(c))
      if (open_mpi_takes_segments(c, a)) out.push_back(a);
  return out;
}

std::string mpi_switch_refusal(Collective c, const std::string& algorithm, int ranks, int nodes, int max_ranks_per_node,
                               bool in_place, std::size_t dtype_bytes) {
  if (!open_mpi()) return mpich_restriction_refusal(c, algorithm, ranks, nodes, max_ranks_per_node, in_place);
  const SegmentedAlgorithm a = split_segmented_name(algorithm);
  const std::size_t segment = a.segment_bytes.value_or(open_mpi_segment_bytes(c));
  if (a.segment_bytes && segment % dtype_bytes != 0)
    return "mpi[" + algorithm + "]: a segment of " + std::to_string(segment) + " bytes is not a whole number of " +
           std::to_string(dtype_bytes) + "-byte elements";
  return open_mpi_restriction_refusal(c, a.algorithm, ranks, dtype_bytes, segment);
}

SwitchCountLimit mpi_switch_count_limit(Collective c, const std::string& algorithm, int ranks,
                                        std::size_t dtype_bytes) {
  std::string who, what;
  SwitchCountLimit limit;
  if (open_mpi()) {
    const SegmentedAlgorithm a = split_segmented_name(algorithm);
    const std::size_t segment = a.segment_bytes.value_or(open_mpi_segment_bytes(c));
    const OpenMpiFallback f = open_mpi_fallback(c, a.algorithm, ranks, dtype_bytes, segment);
    limit.smallest = f.smallest_count;
    who = "Open MPI's " + std::string(mpi_names(c).open_mpi_name) + " " + a.algorithm;
    what = " runs " + f.runs + " below ";
    // A call of one segment runs as the algorithm unsegmented, measured as mpi[NAME].
    const std::size_t two_segments = 2 * (segment / std::max<std::size_t>(dtype_bytes, 1));
    if (a.segment_bytes && two_segments > limit.smallest) {
      limit.smallest = two_segments;
      who = "mpi[" + algorithm + "]";
      what = " is mpi[" + a.algorithm + "] (one segment) below ";
    }
  } else {
    limit.smallest = mpich_smallest_count(c, algorithm, ranks);
    who = "MPICH's " + std::string(collective_name(c)) + " " + algorithm;
    what = " needs at least ";
  }
  if (limit.smallest > 1)
    limit.below =
        who + what + std::to_string(limit.smallest) + " elements per call on " + std::to_string(ranks) + " ranks";
  return limit;
}

const AlgorithmEntry* mpi_switched_algorithm(Collective c, const std::string& name) {
  static std::deque<AlgorithmEntry> entries;  // stable addresses for the run's algorithm list
  static std::map<std::pair<Collective, std::string>, const AlgorithmEntry*> made;
  if (auto it = made.find({c, name}); it != made.end()) return it->second;
  const bool duplicates = open_mpi();
  SegmentedAlgorithm named{name, std::nullopt};
  if (duplicates) try {
      named = split_segmented_name(name);
    } catch (const std::invalid_argument&) {
      return nullptr;
    }
  if (named.segment_bytes && !open_mpi_takes_segments(c, named.algorithm)) return nullptr;
  const std::optional<int> value = name.empty() ? std::nullopt
                                   : duplicates ? open_mpi_algorithm_value(c, named.algorithm)
                                                : mpich_algorithm_value(c, name);
  if (!value) return nullptr;
  if (!duplicates) switching = true;
  const int v = *value;
  const std::string what =
      named.segment_bytes ? named.algorithm + " with " + std::to_string(*named.segment_bytes) + "-byte segments" : name;
  entries.push_back({c, "mpi[" + name + "]", "the MPI library's own " + what + ", switched to in the run", nullptr,
                     [v, duplicates, segment = named.segment_bytes](
                         const CollectiveCall& call, Transport& transport) -> std::unique_ptr<PreparedCollective> {
                       if (!duplicates)
                         return std::make_unique<MpiCollective>(call.collective, args_on(call, transport), v);
                       MpiCallArgs a = args_on(call, transport);
                       a.comm = open_mpi_switched_comm(call.collective, v, segment, a.comm);
                       return std::make_unique<MpiCollective>(call.collective, a, std::nullopt);
                     }});
  return made[{c, name}] = &entries.back();
}

}  // namespace collbench
