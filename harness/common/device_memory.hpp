#pragma once
// Where a run's buffers live and what carries its reference algorithms' messages, shared
// by `run` and `replay`: the choice, why it cannot be made here, and the device side set
// up on every rank.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collectives/transport/gpu/gpu.hpp"
#include "collectives/transport/memory_space.hpp"
#include "collectives/names.hpp"
#include "collectives/schedule/registry.hpp"
#include "collectives/transport/transport.hpp"
#include "harness/common/invocation.hpp"

namespace collbench {

// What carries the reference algorithms' messages: MPI point-to-point, or this node's
// shared memory, copied once (collectives/transport/mpi/mapped_transport.hpp); for device memory
// MPI through host copies (staged_transport.hpp), NCCL send/receive (nccl.hpp), or this
// node's GPU memory mapped through CUDA IPC and copied once on the receiver's stream
// (mapped_transport.hpp again).
enum class TransportKind { mpi, shm, mpi_staged, cuda_ipc, nccl };
inline constexpr NameTable<TransportKind, 5> kTransportKindNames{{{{TransportKind::mpi, "mpi"},
                                                                    {TransportKind::shm, "shm"},
                                                                    {TransportKind::mpi_staged, "mpi-staged"},
                                                                    {TransportKind::cuda_ipc, "cuda-ipc"},
                                                                    {TransportKind::nccl, "nccl"}}}};
inline constexpr bool moves_device_memory(TransportKind t) { return t != TransportKind::mpi && t != TransportKind::shm; }

// Why this build and machine cannot run `transport` on buffers in `memory`, as one
// sentence; empty where they can. `probe` is asked only where device memory is.
std::string memory_refusal(MemoryKind memory, TransportKind transport, const std::function<GpuInventory()>& probe);

// Why this build and machine cannot run `transport` on buffers in `memory`, as one
// sentence; empty where they can. `probe` is asked only where device memory is.
std::string memory_refusal(MemoryKind memory, TransportKind transport, const std::function<GpuInventory()>& probe);

// Keeps the algorithms a run on `memory` over `transport` can use: the reference ones, and
// the baseline of the library that runs there. Where the user `named` them, a baseline
// that cannot run is refused (std::invalid_argument) instead of dropped.
void keep_runnable(std::vector<const AlgorithmEntry*>& algorithms, MemoryKind memory, TransportKind transport, bool named);

// Device buffers: this rank's GPU (local rank modulo the GPUs it sees) and the transport
// that carries them: MPI through host copies over `host`, CUDA IPC or NCCL. Collective;
// one rank failing fails all with RunError. The transport goes before the space.
struct DeviceMemory {
  std::unique_ptr<MemorySpace> space;
  std::unique_ptr<Transport> transport;
  static DeviceMemory start(TransportKind kind, Transport& host, const Invocation& inv);
};

}  // namespace collbench
