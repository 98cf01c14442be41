// The GPU parts that need no GPU (which transport and memory a run may use, the
// inventory's metadata), and the device kernels against the host ones where a GPU is
// visible (skipped, not passed, where none is).
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "collectives/kernels/reduce_kernels.hpp"
#include "collectives/transport/gpu/gpu.hpp"
#include "collectives/transport/gpu/nccl.hpp"
#include "collectives/transport/memory_space.hpp"
#include "harness/common/default_registry.hpp"
#include "harness/common/metadata.hpp"
#include "harness/replay/replay_options.hpp"
#include "harness/run/run_options.hpp"

using namespace collbench;

namespace {

GpuInventory with_gpus(int n, bool nccl = true) {
  GpuInventory g;
  g.built_with_cuda = true;
  g.built_with_nccl = nccl;
  g.driver_version = 13000;
  g.runtime_version = 13000;
  for (int i = 0; i < n; ++i)
    g.devices.push_back({i, "NVIDIA H100", "0000:0" + std::to_string(i) + ":00.0", 80ull << 30, 9, 0});
  if (n == 0) g.why_none = "no NVIDIA driver is loaded";
  return g;
}

std::string refusal(MemoryKind m, TransportKind t, const GpuInventory& g) {
  bool asked = false;
  const std::string why = memory_refusal(m, t, [&] {
    asked = true;
    return g;
  });
  // The GPUs are probed only for device memory: host runs must not start CUDA.
  EXPECT_EQ(asked, m == MemoryKind::device && moves_device_memory(t));
  return why;
}

// A command's ARGS resolved on a machine with `gpus` into `out`; the error's text, or "".
template <class Flags, class Options>
std::string parse_and_resolve(const std::string& command, std::vector<std::string> args, const GpuInventory& gpus,
                              Options* out) {
  CLI::App app;
  Flags f;
  add_command(app, f);
  args.insert(args.begin(), command);
  std::reverse(args.begin(), args.end());  // CLI11 parses a vector back to front
  try {
    app.parse(args);
    const Options o = resolve_command(f, CommandContext{default_registry(), 2, this_machine(2), [&] { return gpus; }});
    if (out) *out = o;
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// `collbench run ARGS`.
std::string resolve(std::vector<std::string> args, const GpuInventory& gpus, RunOptions* out = nullptr) {
  return parse_and_resolve<RunFlags>("run", std::move(args), gpus, out);
}

// `collbench replay ARGS --compute-ms 10`.
std::string resolve_replay_args(std::vector<std::string> args, const GpuInventory& gpus, ReplayOptions* out = nullptr) {
  args.insert(args.end(), {"--compute-ms", "10"});
  return parse_and_resolve<ReplayFlags>("replay", std::move(args), gpus, out);
}

}  // namespace

// Replay on device memory: buckets over a device transport, no MPI baseline, no
// parameter server; NCCL's allreduce joins over nccl.
TEST(GpuReplay, DeviceMemoryChoices) {
  ReplayOptions r;
  ASSERT_EQ(resolve_replay_args({"--memory", "device"}, with_gpus(1), &r), "");
  EXPECT_EQ(r.memory, MemoryKind::device);
  EXPECT_EQ(r.transport, TransportKind::mpi_staged) << "the default with device memory";
  EXPECT_EQ(names_of(r.algorithms), std::vector<std::string>{"ring"}) << "the default without MPI's";
  ASSERT_EQ(resolve_replay_args({"--memory", "device", "--transport", "cuda-ipc", "-a", "ring,rabenseifner"},
                                with_gpus(1), &r),
            "");
  EXPECT_EQ(r.transport, TransportKind::cuda_ipc);
  EXPECT_EQ(names_of(r.algorithms), (std::vector<std::string>{"ring", "rabenseifner"}));
  ASSERT_EQ(resolve_replay_args({}, with_gpus(0), &r), "") << "host runs never ask for a GPU";
  EXPECT_EQ(r.transport, TransportKind::mpi);
  EXPECT_EQ(names_of(r.algorithms), (std::vector<std::string>{"mpi", "ring"}));
  EXPECT_EQ(resolve_replay_args({"--memory", "device", "-a", "mpi,ring"}, with_gpus(1)),
            "--memory device runs the MPI library's collective nowhere: it needs host memory here (the nccl "
            "baseline runs with --transport nccl)");
  EXPECT_EQ(resolve_replay_args({"--memory", "device", "--workload", "lm1b", "--sparse-strategy", "ps"}, with_gpus(1)),
            "--sparse-strategy ps runs on host memory only, not --memory device");
  EXPECT_EQ(resolve_replay_args({"--transport", "nccl"}, with_gpus(1)),
            "--transport nccl moves device memory: give --memory device");
  ASSERT_EQ(resolve_replay_args({"--transport", "shm"}, with_gpus(1), &r), "") << "host memory over shm";
  EXPECT_EQ(r.transport, TransportKind::shm);
  EXPECT_EQ(names_of(r.algorithms), (std::vector<std::string>{"mpi", "ring"}));
  EXPECT_EQ(resolve_replay_args({"--transport", "shm", "--workload", "lm1b", "--sparse-strategy", "ps"}, with_gpus(0)),
            "--sparse-strategy ps needs --transport mpi (its servers answer tagged messages)");
  EXPECT_EQ(resolve_replay_args({"--memory", "device"}, with_gpus(0)),
            "--memory device needs a GPU, and none is usable: no NVIDIA driver is loaded");
  if (!default_registry().find(Collective::allreduce, "nccl")) return;
  ASSERT_EQ(resolve_replay_args({"--memory", "device", "--transport", "nccl"}, with_gpus(1), &r), "");
  EXPECT_EQ(names_of(r.algorithms), (std::vector<std::string>{"nccl", "ring"}));
  EXPECT_EQ(resolve_replay_args({"-a", "nccl"}, with_gpus(1)),
            "-a nccl (NCCL's own collective) runs on --memory device --transport nccl");
}

TEST(GpuRun, DeviceMemoryRunsTheReferenceAlgorithmsStaged) {
  RunOptions o;
  ASSERT_EQ(resolve({"--memory", "device", "-e", "1M"}, with_gpus(1), &o), "");
  EXPECT_EQ(o.sweep.memory, MemoryKind::device);
  EXPECT_EQ(o.sweep.transport, TransportKind::mpi_staged) << "the default with device memory";
  ASSERT_FALSE(o.sweep.algorithms.empty());
  for (const AlgorithmEntry* a : o.sweep.algorithms) EXPECT_FALSE(a->is_baseline()) << a->name;
  EXPECT_EQ(resolve({"--memory", "device", "-a", "mpi,ring"}, with_gpus(1)),
            "--memory device runs the MPI library's collective nowhere: it needs host memory here (the nccl "
            "baseline runs with --transport nccl)");
  EXPECT_EQ(resolve({"--memory", "device", "--bound"}, with_gpus(1)),
            "--bound measures host memory, not --memory device");
  ASSERT_EQ(resolve({"--memory", "device", "--transport", "cuda-ipc"}, with_gpus(1), &o), "");
  EXPECT_EQ(o.sweep.transport, TransportKind::cuda_ipc);
  EXPECT_EQ(o.sweep.order, ExecutionOrder::dataflow) << "copies on one stream may overlap steps";
  EXPECT_EQ(resolve({"--memory", "device"}, with_gpus(0)),
            "--memory device needs a GPU, and none is usable: no NVIDIA driver is loaded");
  EXPECT_EQ(resolve({"--transport", "nccl"}, with_gpus(1)),
            "--transport nccl moves device memory: give --memory device");
}

TEST(GpuRun, NcclRunsStepByStepWithItsOwnBaseline) {
  if (!default_registry().find(Collective::allreduce, "nccl")) GTEST_SKIP() << "built without NCCL";
  RunOptions o;
  ASSERT_EQ(resolve({"--memory", "device", "--transport", "nccl"}, with_gpus(1), &o), "");
  EXPECT_EQ(o.sweep.order, ExecutionOrder::steps) << "one NCCL group per step";
  ASSERT_FALSE(o.sweep.algorithms.empty());
  EXPECT_EQ(o.sweep.algorithms.front()->name, "nccl");
  for (const AlgorithmEntry* a : o.sweep.algorithms) EXPECT_TRUE(!a->is_baseline() || a->library == "nccl") << a->name;
  EXPECT_EQ(resolve({"--memory", "device", "--transport", "nccl", "--order", "dataflow"}, with_gpus(1)),
            "--transport nccl runs schedules step by step (--order steps), one NCCL group per step");
  EXPECT_EQ(resolve({"-a", "nccl"}, with_gpus(1)),
            "-a nccl (NCCL's own collective) runs on --memory device --transport nccl");
  EXPECT_EQ(resolve({"--memory", "device", "-a", "nccl,ring"}, with_gpus(1)),
            "-a nccl (NCCL's own collective) runs on --memory device --transport nccl");
  ASSERT_EQ(resolve({}, with_gpus(1), &o), "");
  for (const AlgorithmEntry* a : o.sweep.algorithms)
    EXPECT_NE(a->library + a->name, "ncclnccl") << "host runs leave NCCL out";
}

TEST(GpuRun, NcclLayoutRefusal) {
  EXPECT_EQ(nccl_layout_refusal({"h1/0000:01:00.0", "h1/0000:02:00.0", "h2/0000:01:00.0"}, "2.28.9", false), "");
  EXPECT_EQ(nccl_layout_refusal({"h1/0000:01:00.0", "h1/0000:01:00.0"}, "2.28.9", true),
            "NCCL 2.28.9 refuses two ranks of one communicator on one GPU (ranks 0 and 1 share GPU h1/0000:01:00.0); "
            "from NCCL 2.30 NCCL_MULTI_RANK_GPU_ENABLE=1 allows it. Run nccl with one rank per GPU, or use "
            "--transport mpi-staged");
  EXPECT_EQ(nccl_layout_refusal({"h1/0000:01:00.0", "h1/0000:01:00.0"}, "2.30.1", false),
            "NCCL refuses two ranks of one communicator on one GPU (ranks 0 and 1 share GPU h1/0000:01:00.0) unless "
            "NCCL_MULTI_RANK_GPU_ENABLE=1 is set");
  EXPECT_EQ(nccl_layout_refusal({"h1/0000:01:00.0", "h1/0000:01:00.0"}, "2.30.1", true), "");
  EXPECT_EQ(nccl_layout_refusal({"h1/0000:01:00.0"}, "2.28.9", false), "") << "one rank";
}

// CUDA IPC copies between two GPUs only where one can read the other's memory; ranks
// sharing a GPU always can.
TEST(GpuRun, CudaIpcLayoutRefusal) {
  GpuInventory g = with_gpus(3);
  g.peer_access = {{true, true, false}, {true, true, true}, {false, true, true}};
  EXPECT_EQ(cuda_ipc_layout_refusal(g, {0, 0, 0, 0}), "") << "one GPU shared by every rank";
  EXPECT_EQ(cuda_ipc_layout_refusal(g, {0, 1, 0, 1}), "");
  EXPECT_EQ(cuda_ipc_layout_refusal(g, {1, 2}), "");
  EXPECT_EQ(cuda_ipc_layout_refusal(g, {0, 1, 2}),
            "rank 0's GPU 0 cannot read rank 2's GPU 2 directly (no peer access), so CUDA IPC copies between them "
            "are not possible; use --transport mpi-staged or nccl");
  g.peer_access[1][0] = false;  // one way only is not enough: each rank copies what it receives
  EXPECT_NE(cuda_ipc_layout_refusal(g, {0, 1}), "");
  EXPECT_NE(cuda_ipc_layout_refusal(g, {0, 5}), "") << "a GPU the inventory does not have";
}

TEST(GpuChoice, HostMemoryTakesHostTransportsOnly) {
  EXPECT_EQ(refusal(MemoryKind::host, TransportKind::mpi, with_gpus(0)), "");
  EXPECT_EQ(refusal(MemoryKind::host, TransportKind::shm, with_gpus(0)), "");
  for (TransportKind t : {TransportKind::mpi_staged, TransportKind::cuda_ipc, TransportKind::nccl})
    EXPECT_EQ(refusal(MemoryKind::host, t, with_gpus(1)),
              "--transport " + std::string(kTransportKindNames.name(t)) + " moves device memory: give --memory device");
}

TEST(GpuChoice, DeviceMemoryNeedsADeviceTransportAndAGpu) {
  EXPECT_EQ(refusal(MemoryKind::device, TransportKind::mpi, with_gpus(1)),
            "--transport mpi moves host memory; with --memory device use mpi-staged, cuda-ipc or nccl");
  EXPECT_EQ(refusal(MemoryKind::device, TransportKind::shm, with_gpus(1)),
            "--transport shm moves host memory; with --memory device use mpi-staged, cuda-ipc or nccl");
  EXPECT_EQ(refusal(MemoryKind::device, TransportKind::mpi_staged, with_gpus(0)),
            "--memory device needs a GPU, and none is usable: no NVIDIA driver is loaded");
  EXPECT_EQ(refusal(MemoryKind::device, TransportKind::cuda_ipc, with_gpus(2)), "");
  EXPECT_EQ(refusal(MemoryKind::device, TransportKind::nccl, with_gpus(1)), "");
  EXPECT_EQ(refusal(MemoryKind::device, TransportKind::nccl, with_gpus(1, false)),
            "--transport nccl: this collbench was built without NCCL (no libnccl and nccl.h at configure time)");
}

TEST(GpuChoice, WithoutCudaTheReasonIsTheBuild) {
  GpuInventory none;
  none.why_none = "this collbench was built without CUDA (no nvcc at configure time)";
  EXPECT_EQ(device_memory_refusal(none),
            "--memory device needs a GPU, and none is usable: this collbench was built without CUDA (no nvcc at "
            "configure time)");
}

TEST(GpuChoice, RanksShareGpusRoundRobin) {
  EXPECT_EQ(gpu_of_local_rank(0, 1), 0);
  EXPECT_EQ(gpu_of_local_rank(3, 1), 0);  // four ranks on one GPU
  EXPECT_EQ(gpu_of_local_rank(5, 4), 1);
  EXPECT_EQ(gpu_of_local_rank(2, 0), -1);
}

TEST(GpuChoice, MemoryAndTransportNames) {
  EXPECT_EQ(kMemoryKindNames.parse("device"), MemoryKind::device);
  EXPECT_FALSE(kMemoryKindNames.parse("gpu"));
  EXPECT_EQ(kTransportKindNames.parse("cuda-ipc"), TransportKind::cuda_ipc);
  EXPECT_EQ(kTransportKindNames.valid(), "mpi, shm, mpi-staged, cuda-ipc, nccl");
}

TEST(GpuMetadata, RecordsVersionsAndDevicesOrWhyNone) {
  GpuInventory g = with_gpus(1);
  g.nccl_version = "2.28.3";
  g.peer_access = {{true}};
  const nlohmann::json j = gpu_json(g);
  EXPECT_EQ(j["peer_access"], nlohmann::json::parse("[[true]]"));
  EXPECT_EQ(j["cuda_driver"], "13.0");
  EXPECT_EQ(j["nccl"], "2.28.3");
  ASSERT_EQ(j["devices"].size(), 1u);
  EXPECT_EQ(j["devices"][0]["name"], "NVIDIA H100");
  EXPECT_EQ(j["devices"][0]["compute_capability"], "9.0");
  EXPECT_FALSE(j.contains("why_none"));
  const nlohmann::json none = gpu_json(with_gpus(0));
  EXPECT_EQ(none["why_none"], "no NVIDIA driver is loaded");
  EXPECT_EQ(none["nccl"], "none");
  EXPECT_EQ(cuda_version_text(12080), "12.8");
  EXPECT_EQ(cuda_version_text(0), "none");
}

TEST(GpuMetadata, ProbeSaysWhyWhereThereIsNoGpu) {
  const GpuInventory g = probe_gpus();
  if (g.devices.empty())
    EXPECT_FALSE(g.why_none.empty());
  else
    EXPECT_TRUE(g.why_none.empty());
}

// Every dtype and op, odd counts (vector body and tail), exact aliasing, and an input
// one element off 16-byte alignment (the element path): bit for bit the host kernel's.
TEST(GpuKernels, MatchTheHostKernels) {
  const GpuInventory g = probe_gpus();
  if (g.devices.empty()) GTEST_SKIP() << "no GPU: " << g.why_none;
  const std::unique_ptr<MemorySpace> gpu = make_gpu_space(0);
  std::mt19937 rng(7);
  for (DType t : kAllDTypes)
    for (ReduceOp op : kAllReduceOps)
      for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{65537}})
        for (int alias = 0; alias < 3; ++alias)
          for (std::size_t shift : {std::size_t{0}, std::size_t{1}}) {
            const std::size_t e = dtype_size(t), bytes = (n + shift) * e;
            // Bytes of 0-2: tiny (often subnormal) floats, integers whose products wrap: the
            // cases where two kernels could part ways, compared bit for bit.
            std::vector<unsigned char> a(bytes), b(bytes), host(bytes), device(bytes);
            for (std::size_t i = 0; i < bytes; ++i)
              a[i] = static_cast<unsigned char>(rng() % 3), b[i] = static_cast<unsigned char>(rng() % 3);
            const OwnedBuffer da = gpu->allocate(bytes), db = gpu->allocate(bytes), dd = gpu->allocate(bytes);
            gpu->copy_in(da.data(), a.data(), bytes);
            gpu->copy_in(db.data(), b.data(), bytes);
            std::byte* x = da.data() + shift * e;
            std::byte* y = db.data() + shift * e;
            std::byte* d = alias == 1 ? x : alias == 2 ? y : dd.data() + shift * e;
            gpu->reduce(t, op, d, x, y, n);
            gpu->copy_out(device.data(), d - shift * e, bytes);  // after the kernel
            // The host kernel on the same inputs and aliasing.
            unsigned char* hx = a.data() + shift * e;
            unsigned char* hy = b.data() + shift * e;
            unsigned char* hd = alias == 1 ? hx : alias == 2 ? hy : host.data() + shift * e;
            reduce(t, op, hd, hx, hy, n);
            ASSERT_EQ(std::memcmp(hd, device.data() + shift * e, n * e), 0)
                << dtype_name(t) << " " << reduce_op_name(op) << " n=" << n << " alias=" << alias << " shift=" << shift;
          }
}

TEST(GpuKernels, RefuseClearlyWithoutAGpu) {
  const GpuInventory g = probe_gpus();
  if (!g.devices.empty()) GTEST_SKIP() << "a GPU is visible";
  EXPECT_THROW(make_gpu_space(0), std::runtime_error);
}
