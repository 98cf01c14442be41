#include "algorithms/baselines/nccl_baselines.hpp"

#include <string>

#include "collectives/transport/gpu/nccl.hpp"

namespace collbench {

void register_nccl_baselines(Registry& registry) {
  for (Collective c : kAllCollectives) {
    AlgorithmEntry e{c, "nccl",
                     "NCCL's own " + std::string(collective_name(c)) +
                         (c == Collective::gather ? " (grouped ncclSend/ncclRecv to the root)"
                          : c == Collective::alltoall || c == Collective::alltoallv
                              ? " (grouped ncclSend/ncclRecv to every peer, as nccl-tests)"
                              : "") +
                         "; device memory, --transport nccl",
                     nullptr, prepare_nccl_collective};
    e.library = "nccl";
    registry.add(std::move(e));
  }
}

}  // namespace collbench
