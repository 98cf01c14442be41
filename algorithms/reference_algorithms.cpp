#include "reference_algorithms.hpp"

#include "ring_allreduce.hpp"

namespace collbench {

void register_reference_algorithms(Registry& registry) {
  registry.add({Collective::allreduce, "ring",
                "reduce-scatter then allgather around a ring; sends 2(n-1)/n of the buffer",
                build_ring_allreduce, {}});
}

}  // namespace collbench
