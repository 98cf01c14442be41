// The part of nccl.hpp that needs no NCCL: whether NCCL would take these ranks' GPUs.
#include <cstdio>
#include <map>

#include "collectives/transport/gpu/nccl.hpp"

namespace collbench {
namespace {

// 2.28.9 -> {2, 28}; unparsable: {0, 0}.
std::pair<int, int> major_minor(const std::string& v) {
  int major = 0, minor = 0;
  if (std::sscanf(v.c_str(), "%d.%d", &major, &minor) != 2) return {0, 0};
  return {major, minor};
}

}  // namespace

std::string nccl_layout_refusal(const std::vector<std::string>& gpu_of_rank, const std::string& nccl_version,
                                bool multi_rank_gpu_enabled) {
  std::map<std::string, int> first_on;
  for (int r = 0; r < static_cast<int>(gpu_of_rank.size()); ++r) {
    auto [it, fresh] = first_on.try_emplace(gpu_of_rank[static_cast<std::size_t>(r)], r);
    if (fresh) continue;
    const std::string where =
        "ranks " + std::to_string(it->second) + " and " + std::to_string(r) + " share GPU " + it->first;
    if (major_minor(nccl_version) < std::pair{2, 30})
      return "NCCL " + nccl_version + " refuses two ranks of one communicator on one GPU (" + where +
             "); from NCCL 2.30 NCCL_MULTI_RANK_GPU_ENABLE=1 allows it. Run nccl with one rank per GPU, or use "
             "--transport mpi-staged";
    if (!multi_rank_gpu_enabled)
      return "NCCL refuses two ranks of one communicator on one GPU (" + where +
             ") unless NCCL_MULTI_RANK_GPU_ENABLE=1 is set";
  }
  return {};
}

}  // namespace collbench
