// On a GPU (reported skipped where none is visible): every reference algorithm of every
// collective on device memory over mpi-staged and cuda-ipc, for every dtype and op, both
// orders, in place and not, at odd counts, checked exactly. Ranks share the GPUs (local
// rank modulo the GPUs), as `run --memory device` places them.
#include <gtest/gtest.h>
#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collectives/transport/exported_memory.hpp"
#include "collectives/transport/gpu/gpu.hpp"
#include "collectives/transport/mpi/communicator.hpp"
#include "collectives/transport/mpi/mapped_transport.hpp"
#include "collectives/transport/staged_transport.hpp"
#include "harness/common/default_registry.hpp"
#include "harness/common/session.hpp"
#include "tests/mpi/deferred_space.hpp"

using namespace collbench;

namespace {

// This rank's GPU's memory space, or nullptr (with why) where there is no GPU.
std::unique_ptr<MemorySpace> gpu_space(std::string& why_not) {
  const GpuInventory g = probe_gpus();
  if (g.devices.empty()) {
    why_not = "no GPU: " + g.why_none;
    return nullptr;
  }
  int rank = 0, local = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const Communicator node = Communicator::split_shared(MPI_COMM_WORLD, rank);
  MPI_Comm_rank(node.get(), &local);
  return make_gpu_space(gpu_of_local_rank(local, static_cast<int>(g.devices.size())));
}

// Every dtype with every op, the orders and in-place alternating.
std::vector<DeviceCase> every_dtype_and_op() {
  std::vector<DeviceCase> cases;
  for (DType t : kAllDTypes)
    for (ReduceOp op : kAllReduceOps) {
      const bool odd = cases.size() % 2;
      cases.push_back({t, op, odd ? ExecutionOrder::steps : ExecutionOrder::dataflow, odd});
    }
  return cases;
}

// Runs the cases over the transport `make` builds on this rank's GPU, or skips.
void expect_right_on_gpu(TransportKind kind,
                         const std::function<std::unique_ptr<Transport>(Session&, MemorySpace&)>& make) {
  std::string why_not;
  const std::unique_ptr<MemorySpace> space = gpu_space(why_not);
  if (!space) GTEST_SKIP() << why_not;
  Registry r = default_registry();
  Session session(r, MPI_COMM_WORLD, 0);
  const std::unique_ptr<Transport> transport = make(session, *space);
  expect_every_reference_algorithm_right(session, *transport, kind, every_dtype_and_op());
}

}  // namespace

TEST(GpuTransports, EveryReferenceAlgorithmOverMpiStaged) {
  expect_right_on_gpu(TransportKind::mpi_staged, [](Session& s, MemorySpace& space) -> std::unique_ptr<Transport> {
    return std::make_unique<StagedTransport>(s.transport, space);
  });
}

TEST(GpuTransports, EveryReferenceAlgorithmOverCudaIpc) {
  expect_right_on_gpu(TransportKind::cuda_ipc, [](Session&, MemorySpace& space) -> std::unique_ptr<Transport> {
    return std::make_unique<MappedTransport>(MPI_COMM_WORLD, make_cuda_ipc_memory(space));
  });
}
