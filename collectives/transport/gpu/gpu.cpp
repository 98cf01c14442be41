// The parts of the GPU interface that need no CUDA.
#include "collectives/transport/gpu/gpu.hpp"

namespace collbench {

int gpu_of_local_rank(int local_rank, int gpu_count) { return gpu_count > 0 ? local_rank % gpu_count : -1; }

std::string cuda_version_text(int version) {
  if (version <= 0) return "none";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string device_memory_refusal(const GpuInventory& g) {
  if (!g.devices.empty()) return {};
  return "--memory device needs a GPU, and none is usable: " + g.why_none;
}

std::string cuda_ipc_layout_refusal(const GpuInventory& g, const std::vector<int>& gpu_of_rank) {
  for (std::size_t a = 0; a < gpu_of_rank.size(); ++a)
    for (std::size_t b = 0; b < gpu_of_rank.size(); ++b) {
      const int from = gpu_of_rank[a], to = gpu_of_rank[b];
      const bool reaches =
          from == to || (from >= 0 && to >= 0 && static_cast<std::size_t>(from) < g.peer_access.size() &&
                         static_cast<std::size_t>(to) < g.peer_access[static_cast<std::size_t>(from)].size() &&
                         g.peer_access[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)]);
      if (!reaches)
        return "rank " + std::to_string(a) + "'s GPU " + std::to_string(from) + " cannot read rank " +
               std::to_string(b) + "'s GPU " + std::to_string(to) +
               " directly (no peer access), so CUDA IPC copies between them are not "
               "possible; use --transport mpi-staged or nccl";
    }
  return {};
}

}  // namespace collbench
