#pragma once
// GPUs as collbench sees them, with no CUDA header: collectives/transport/gpu/ implements this
// where nvcc was found at build time, no_cuda.cpp everywhere else (no GPU, and why).
// Device memory and the work on it go through a GPU's MemorySpace (memory_space.hpp).
#include <cstddef>
#include <string>
#include <vector>

#include "collectives/names.hpp"

namespace collbench {

// Where a run's buffers live.
enum class MemoryKind { host, device };
inline constexpr NameTable<MemoryKind, 2> kMemoryKindNames{
    {{{MemoryKind::host, "host"}, {MemoryKind::device, "device"}}}};

struct GpuDevice {
  int index = 0;
  std::string name, pci_bus_id;
  std::size_t memory_bytes = 0;
  int compute_major = 0, compute_minor = 0;
};

struct GpuInventory {
  bool built_with_cuda = false;
  bool built_with_nccl = false;
  int driver_version = 0;    // CUDA's encoding (13000 is 13.0); 0: no driver
  int runtime_version = 0;   // the CUDA runtime collbench was linked with
  std::string nccl_version;  // the NCCL library loaded, as "2.28.3"; empty: none
  std::vector<GpuDevice> devices;
  // [a][b]: GPU a can read GPU b's memory directly (cudaDeviceCanAccessPeer; true for a == b).
  std::vector<std::vector<bool>> peer_access;
  std::string why_none;  // where `devices` is empty: what CUDA said
};

// What this process sees: asks the CUDA runtime (no GPU is touched beyond that).
GpuInventory probe_gpus();

// The GPU a rank uses: its index on its node modulo the GPUs it sees, so several ranks
// may share one.
int gpu_of_local_rank(int local_rank, int gpu_count);

// Why device memory cannot be used with `g`, as one sentence; empty where it can.
std::string device_memory_refusal(const GpuInventory& g);

// Why the cuda-ipc transport cannot join these ranks (every one on this node, using
// GPU gpu_of_rank[r] of `g`), or "": each GPU must reach every other one's memory.
std::string cuda_ipc_layout_refusal(const GpuInventory& g, const std::vector<int>& gpu_of_rank);

// "13.0" from CUDA's 13000; "none" for 0.
std::string cuda_version_text(int version);

}  // namespace collbench
