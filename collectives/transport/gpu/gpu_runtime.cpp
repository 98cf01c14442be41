// What this process's CUDA runtime sees (and NCCL's version, where NCCL was found).
#include <cuda_runtime.h>

#include <string>

#include "collectives/transport/gpu/gpu.hpp"

#if COLLBENCH_HAVE_NCCL
#include <nccl.h>
#endif

namespace collbench {

GpuInventory probe_gpus() {
  GpuInventory g;
  g.built_with_cuda = true;
  g.built_with_nccl = COLLBENCH_HAVE_NCCL;
  cudaRuntimeGetVersion(&g.runtime_version);
  if (cudaDriverGetVersion(&g.driver_version) != cudaSuccess) g.driver_version = 0;
#if COLLBENCH_HAVE_NCCL
  if (int v = 0; ncclGetVersion(&v) == ncclSuccess)
    g.nccl_version = std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
#endif
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it for whoever asks next
    g.why_none = std::string(g.driver_version == 0 ? "no NVIDIA driver is loaded" : "the CUDA runtime sees no GPU") +
                 " (cudaGetDeviceCount: " + cudaGetErrorString(e) + ")";
    return g;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    char bus[32] = {};
    cudaDeviceGetPCIBusId(bus, sizeof bus, i);
    g.devices.push_back({i, p.name, bus, p.totalGlobalMem, p.major, p.minor});
  }
  const auto n = g.devices.size();
  g.peer_access.assign(n, std::vector<bool>(n, true));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      if (int can = 0; a != b) {
        cudaDeviceCanAccessPeer(&can, g.devices[a].index, g.devices[b].index);
        g.peer_access[a][b] = can != 0;
      }
  if (g.devices.empty()) g.why_none = "the CUDA runtime lists no GPU";
  return g;
}

}  // namespace collbench
