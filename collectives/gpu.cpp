// The parts of the GPU interface that need no CUDA.
#include "collectives/gpu.hpp"

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

}  // namespace collbench
