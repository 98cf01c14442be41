#include "harness/common/transports.hpp"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <stdexcept>

#include "collectives/transport/exported_memory.hpp"
#include "collectives/transport/gpu/nccl.hpp"
#include "collectives/transport/mpi/communicator.hpp"
#include "collectives/transport/mpi/mapped_transport.hpp"
#include "collectives/transport/shm_memory.hpp"
#include "collectives/transport/staged_transport.hpp"
#include "harness/common/control.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/topology.hpp"

namespace collbench {
namespace {

void fail_together(const std::string& error, const Invocation& inv, const std::string& prefix) {
  for (const std::string& e : control_allgather(error, inv.comm))
    if (!e.empty()) throw RunError(prefix + e);
}

std::unique_ptr<Transport> open_mpi(const TransportContext&) { return nullptr; }

std::unique_ptr<Transport> open_shm(const TransportContext& c) {
  try {
    return std::make_unique<MappedTransport>(c.inv.comm, make_shm_memory());
  } catch (const std::runtime_error& e) {  // every rank learned it together
    throw RunError(e.what());
  }
}

std::unique_ptr<Transport> open_mpi_staged(const TransportContext& c) {
  return std::make_unique<StagedTransport>(c.mpi, *c.space);
}

std::unique_ptr<Transport> open_cuda_ipc(const TransportContext& c) {
  std::unique_ptr<Transport> t;
  try {  // collective, and every rank fails alike (not one node)
    t = std::make_unique<MappedTransport>(c.inv.comm, make_cuda_ipc_memory(*c.space));
  } catch (const std::runtime_error& e) {
    throw RunError(e.what());
  }
  // Said before any buffer is mapped: without peer access the first copy would fail.
  std::vector<int> gpu_of_rank;
  for (const std::string& g : control_allgather(std::to_string(c.gpu), c.inv.comm)) gpu_of_rank.push_back(std::stoi(g));
  for (const std::string& refusal : control_allgather(cuda_ipc_layout_refusal(*c.gpus, gpu_of_rank), c.inv.comm))
    if (!refusal.empty()) throw RunError("--transport cuda-ipc: " + refusal);
  return t;
}

std::unique_ptr<Transport> open_nccl(const TransportContext& c) {
  const Invocation& inv = c.inv;
  // NCCL's own refusal of a shared GPU is obscure: say it first, on every rank alike.
  const std::string here = rank_hosts(inv.comm)[static_cast<std::size_t>(inv.rank)] + "/" +
                           c.gpus->devices[static_cast<std::size_t>(c.gpu)].pci_bus_id;
  const char* multi = std::getenv("NCCL_MULTI_RANK_GPU_ENABLE");
  const std::string refusal =
      nccl_layout_refusal(control_allgather(here, inv.comm), c.gpus->nccl_version, multi && std::string(multi) == "1");
  if (!refusal.empty()) throw RunError("--transport nccl: " + refusal);
  std::unique_ptr<Transport> t;
  std::string error;
  try {
    t = make_nccl_transport(inv.rank, inv.size, *c.space, [&](void* data, std::size_t bytes) {
      MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, inv.comm);
    });
  } catch (const std::exception& e) {
    error = "rank " + std::to_string(inv.rank) + ": " + e.what();
  }
  fail_together(error, inv, "--memory device: ");
  return t;
}

// What a command calls the exchanges --transport carries, and how it refuses a row it
// does not take.
struct TransportUserRow {
  TransportUser id;
  std::string_view carries;
  std::string (*refuse)(const TransportRow& t);
};

constexpr std::array<TransportUserRow, 3> kTransportUsers{{
    {TransportUser::run, "the reference algorithms' messages",
     [](const TransportRow& t) { return "run does not take --transport " + std::string(t.name); }},
    {TransportUser::replay, "the dense and allgather exchanges",
     [](const TransportRow& t) {
       return "replay does not take --transport " + std::string(t.name);
     }},
    {TransportUser::p2p, "the measured messages",
     [](const TransportRow& t) {
       return "p2p measures host memory over mpi or shm, not --transport " + std::string(t.name);
     }},
}};
static_assert(rows_in_enum_order<TransportUser>(kTransportUsers), "kTransportUsers is indexed by TransportUser");

bool takes(TransportUser user, const TransportRow& t) { return t.taken_by[static_cast<std::size_t>(user)]; }

}  // namespace

constexpr std::array<TransportRow, 5> kTransports{{
    {TransportKind::mpi, "mpi", MemoryKind::host, false, false, "MPI point-to-point", "", {true, true, true}, open_mpi},
    {TransportKind::shm,
     "shm",
     MemoryKind::host,
     true,
     false,
     "shared memory",
     "one copy, by the receiver, from the sender's buffer",
     {true, true, true},
     open_shm},
    {TransportKind::mpi_staged,
     "mpi-staged",
     MemoryKind::device,
     false,
     false,
     "MPI point-to-point through host copies",
     "device buffers copied out before each send and in after each receive; reductions on the GPU",
     {true, true, false},
     open_mpi_staged},
    {TransportKind::cuda_ipc,
     "cuda-ipc",
     MemoryKind::device,
     true,
     false,
     "CUDA IPC",
     "one device copy, by the receiver on its stream, from the sender's GPU buffer",
     {true, true, false},
     open_cuda_ipc},
    {TransportKind::nccl,
     "nccl",
     MemoryKind::device,
     false,
     true,
     "NCCL send/receive",
     "one group per step, on the rank's stream",
     {true, true, false},
     open_nccl},
}};
constexpr NameTable<TransportKind, 5> kTransportKindNames = name_table_of<TransportKind>(kTransports);
static_assert(rows_in_enum_order<TransportKind>(kTransports), "kTransports is indexed by TransportKind");

const TransportRow& transport_row(TransportKind t) { return kTransports[static_cast<std::size_t>(t)]; }

std::string transport_text(const TransportRow& t) {
  return std::string(t.text) + (t.how.empty() ? "" : " (" + std::string(t.how) + ")");
}

void add_transport_flag(CLI::App& app, TransportFlags& f, TransportUser user) {
  std::string help = "What carries " + std::string(kTransportUsers[static_cast<std::size_t>(user)].carries) + ":";
  for (MemoryKind memory : {MemoryKind::host, MemoryKind::device}) {
    std::string rows;
    for (const TransportRow& t : kTransports)
      if (takes(user, t) && t.memory == memory)
        rows += (rows.empty() ? " " : "; ") + std::string(t.name) + ": " + transport_text(t) +
                (t.node_local ? ", every rank on one node" : "") + (t.step_order ? ", step by step" : "");
    if (rows.empty()) continue;
    help += memory == MemoryKind::host ? " on host memory," : " with --memory device (mpi-staged unless named),";
    help += rows + (memory == MemoryKind::host ? ";" : "");
  }
  if (help.back() == ';') help.pop_back();
  app.add_option("--transport", f.name, help)->capture_default_str()->each([&f](const std::string&) {
    f.given = true;
  });
}

TransportKind resolve_transport(const TransportFlags& f, MemoryKind memory, TransportUser user,
                                const std::function<GpuInventory()>& probe) {
  TransportKind kind = kTransportKindNames.parse_or_throw(f.name, "--transport");
  // Device buffers go through host copies unless told otherwise: that works with any MPI.
  if (memory == MemoryKind::device && !f.given) kind = TransportKind::mpi_staged;
  if (!takes(user, transport_row(kind)))
    throw std::invalid_argument(kTransportUsers[static_cast<std::size_t>(user)].refuse(transport_row(kind)));
  if (const std::string why = memory_refusal(memory, kind, probe); !why.empty()) throw std::invalid_argument(why);
  return kind;
}

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

OpenTransport open_transport(TransportKind kind, MpiTransport& mpi, const Invocation& inv) {
  const TransportRow& row = transport_row(kind);
  OpenTransport o;
  TransportContext c{mpi, inv};
  GpuInventory gpus;
  if (row.memory == MemoryKind::device) {
    const Communicator node = Communicator::split_shared(inv.comm, inv.rank);
    int local = 0;
    MPI_Comm_rank(node.get(), &local);
    gpus = probe_gpus();
    c.gpus = &gpus;
    c.gpu = gpu_of_local_rank(local, static_cast<int>(gpus.devices.size()));
    std::string error;
    try {
      o.space = make_gpu_space(c.gpu);
    } catch (const std::exception& e) {
      error = "rank " + std::to_string(inv.rank) + ": " + e.what();
    }
    fail_together(error, inv, "--memory device: ");
    c.space = o.space.get();
  }
  o.owned = row.open(c);
  o.transport = o.owned ? o.owned.get() : &mpi;
  return o;
}

}  // namespace collbench
