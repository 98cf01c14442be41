#include "harness/common/device_memory.hpp"

#include <cstdlib>
#include <stdexcept>

#include "collectives/transport/mpi/communicator.hpp"
#include "collectives/transport/mpi/mapped_transport.hpp"
#include "collectives/transport/gpu/nccl.hpp"
#include "collectives/transport/staged_transport.hpp"
#include "harness/common/control.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/topology.hpp"

namespace collbench {
namespace {

void fail_together(const std::string& error, const Invocation& inv) {
  for (const std::string& e : control_allgather(error, inv.comm))
    if (!e.empty()) throw RunError("--memory device: " + e);
}

}  // namespace

std::string memory_refusal(MemoryKind memory, TransportKind transport, const std::function<GpuInventory()>& probe) {
  const std::string name(kTransportKindNames.name(transport));
  if (memory == MemoryKind::host && moves_device_memory(transport))
    return "--transport " + name + " moves device memory: give --memory device";
  if (memory == MemoryKind::host) return {};
  if (!moves_device_memory(transport))
    return "--transport " + name + " moves host memory; with --memory device use mpi-staged, cuda-ipc or nccl";
  const GpuInventory gpus = probe();
  if (const std::string why = device_memory_refusal(gpus); !why.empty()) return why;
  if (transport == TransportKind::nccl && !gpus.built_with_nccl)
    return "--transport nccl: this collbench was built without NCCL (no libnccl and nccl.h at configure time)";
  return {};
}

void keep_runnable(std::vector<const AlgorithmEntry*>& algorithms, MemoryKind memory, TransportKind transport,
                   bool named) {
  // Each baseline runs on its library's memory and transport: MPI's on host memory,
  // NCCL's on device memory over the nccl transport (the MPI library's collective would
  // need a CUDA-aware MPI, which collbench does not assume).
  const std::string library = memory == MemoryKind::host ? "mpi" : transport == TransportKind::nccl ? "nccl" : "";
  auto foreign = [&](const AlgorithmEntry* a) { return a->is_baseline() && a->library != library; };
  if (named)
    for (const AlgorithmEntry* a : algorithms)
      if (foreign(a))
        throw std::invalid_argument(
            a->library == "nccl" ? "-a nccl (NCCL's own collective) runs on --memory device --transport nccl"
                                 : "--memory device runs the MPI library's collective nowhere: it needs host memory "
                                   "here (the nccl baseline runs with --transport nccl)");
  std::erase_if(algorithms, foreign);
}

DeviceMemory DeviceMemory::start(TransportKind kind, Transport& host, const Invocation& inv) {
  DeviceMemory d;
  std::string error;
  const Communicator node = Communicator::split_shared(inv.comm, inv.rank);
  int local = 0;
  MPI_Comm_rank(node.get(), &local);
  const GpuInventory gpus = probe_gpus();
  const int gpu = gpu_of_local_rank(local, static_cast<int>(gpus.devices.size()));
  try {
    d.space = make_gpu_space(gpu);
  } catch (const std::exception& e) {
    error = "rank " + std::to_string(inv.rank) + ": " + e.what();
  }
  fail_together(error, inv);
  if (kind == TransportKind::nccl) {
    // NCCL's own refusal of a shared GPU is obscure: say it first, on every rank alike.
    const std::string here = rank_hosts(inv.comm)[static_cast<std::size_t>(inv.rank)] + "/" +
                             gpus.devices[static_cast<std::size_t>(gpu)].pci_bus_id;
    const char* multi = std::getenv("NCCL_MULTI_RANK_GPU_ENABLE");
    const std::string refusal = nccl_layout_refusal(control_allgather(here, inv.comm), gpus.nccl_version,
                                                    multi && std::string(multi) == "1");
    if (!refusal.empty()) throw RunError("--transport nccl: " + refusal);
    try {
      d.transport = make_nccl_transport(inv.rank, inv.size, *d.space, [&](void* data, std::size_t bytes) {
        MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, inv.comm);
      });
    } catch (const std::exception& e) {
      error = "rank " + std::to_string(inv.rank) + ": " + e.what();
    }
    fail_together(error, inv);
  } else if (kind == TransportKind::cuda_ipc) {
    try {  // collective, and every rank fails alike (not one node)
      d.transport = std::make_unique<MappedTransport>(inv.comm, make_cuda_ipc_memory(*d.space));
    } catch (const std::runtime_error& e) {
      throw RunError(e.what());
    }
    // Said before any buffer is mapped: without peer access the first copy would fail.
    std::vector<int> gpu_of_rank;
    for (const std::string& g : control_allgather(std::to_string(gpu), inv.comm)) gpu_of_rank.push_back(std::stoi(g));
    for (const std::string& refusal : control_allgather(cuda_ipc_layout_refusal(gpus, gpu_of_rank), inv.comm))
      if (!refusal.empty()) throw RunError("--transport cuda-ipc: " + refusal);
  } else {
    d.transport = std::make_unique<StagedTransport>(host, *d.space);
  }
  return d;
}

}  // namespace collbench
