#include "algorithms/catalog.hpp"

#include <string>

namespace collbench {

void register_reference_algorithms(Registry& registry) {
  for (const ReferenceAlgorithm& a : kReferenceAlgorithms)
    registry.add({a.collective,
                  std::string(a.name),
                  std::string(a.summary),
                  a.build,
                  {},
                  a.default_segment_bytes,
                  a.topology_aware,
                  a.linear_in_segments,
                  a.ring_allgather_head});
}

}  // namespace collbench
