#pragma once
// NCCL for device buffers, with no NCCL header (collectives/transport/gpu/nccl.cpp implements it
// where NCCL was found at build time; no_nccl.cpp refuses with the reason elsewhere): a
// communicator of the run's ranks whose point-to-point carries the reference algorithms
// (`--transport nccl`), and NCCL's own collectives as the `nccl` baselines.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collectives/schedule/registry.hpp"
#include "collectives/transport/memory_space.hpp"
#include "collectives/transport/transport.hpp"

namespace collbench {

// Why NCCL would refuse these ranks' GPUs, or "". `gpu_of_rank` names each rank's GPU
// uniquely ("host/pci-bus-id"). Up to 2.29 NCCL refuses two ranks of one communicator on
// one GPU ("Duplicate GPU detected"); from 2.30 NCCL_MULTI_RANK_GPU_ENABLE=1 allows it.
std::string nccl_layout_refusal(const std::vector<std::string>& gpu_of_rank, const std::string& nccl_version,
                                bool multi_rank_gpu_enabled);

// Hands rank 0's bytes to every rank (the caller's MPI_Bcast): NCCL's unique id.
using BroadcastBytes = std::function<void(void* data, std::size_t bytes)>;

// NCCL point-to-point among every rank, on `space`'s stream. The sends and receives
// posted before a wait go out together in one ncclGroupStart/End, so schedules must run
// step by step (ExecutionOrder::steps): a group holds one step. Collective; throws
// std::runtime_error with NCCL's reason.
std::unique_ptr<Transport> make_nccl_transport(int rank, int size, MemorySpace& space, const BroadcastBytes& bcast);

// The `nccl` baseline: NCCL's own collective (gather: grouped sends and receives) on a
// transport from make_nccl_transport; std::logic_error on any other.
std::unique_ptr<PreparedCollective> prepare_nccl_collective(const CollectiveCall& call, Transport& transport);

}  // namespace collbench
