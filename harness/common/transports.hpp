#pragma once
// What carries the reference algorithms' messages, as one table: a row per transport
// (its name, the memory it moves, whether every rank must share a node, whether
// schedules must run step by step, what it is, which commands take it, how it is
// opened). `run`, `replay` and `p2p` resolve --transport and open it here, and their
// headers and help text read the rows. Adding a transport is a row here, its open
// function in transports.cpp and its Transport class.
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/names.hpp"
#include "collectives/schedule/registry.hpp"
#include "collectives/transport/gpu/gpu.hpp"
#include "collectives/transport/memory_space.hpp"
#include "collectives/transport/mpi/transport.hpp"
#include "collectives/transport/transport.hpp"
#include "harness/common/invocation.hpp"

namespace CLI {
class App;
}

namespace collbench {

enum class TransportKind { mpi, shm, mpi_staged, cuda_ipc, nccl };
// The commands that take --transport.
enum class TransportUser { run, replay, p2p };

// Where a device transport opens: this rank's GPU space, the inventory, and which GPU.
struct TransportContext {
  MpiTransport& mpi;
  const Invocation& inv;
  MemorySpace* space = nullptr;        // device memory only
  const GpuInventory* gpus = nullptr;  // device memory only
  int gpu = -1;
};

struct TransportRow {
  TransportKind id;
  std::string_view name;
  MemoryKind memory;             // the buffers it moves
  bool node_local;               // every rank on one node
  bool step_order;               // schedules run step by step (--order steps)
  std::string_view text;         // what it is, in a few words
  std::string_view how;          // how it moves a message, or ""
  std::array<bool, 3> taken_by;  // by TransportUser: run, replay, p2p
  // Collective; nullptr: the session's MPI transport itself. Throws RunError.
  std::unique_ptr<Transport> (*open)(const TransportContext& c);
};

extern const std::array<TransportRow, 5> kTransports;
extern const NameTable<TransportKind, 5> kTransportKindNames;
const TransportRow& transport_row(TransportKind t);
// "text (how)": the run table's header, --help.
std::string transport_text(const TransportRow& t);
inline bool moves_device_memory(TransportKind t) { return transport_row(t).memory == MemoryKind::device; }

// --transport and whether the user gave it; the help lists the rows `user` takes.
struct TransportFlags {
  std::string name = "mpi";
  bool given = false;
};
void add_transport_flag(CLI::App& app, TransportFlags& f, TransportUser user);

// Every default and refusal: the name parsed; device memory over mpi-staged unless
// named; a transport `user` does not take, or that cannot move `memory` on this build
// and machine, refused with one sentence (std::invalid_argument). `probe` is asked
// only where device memory is.
TransportKind resolve_transport(const TransportFlags& f, MemoryKind memory, TransportUser user,
                                const std::function<GpuInventory()>& probe);

// Why this build and machine cannot run `transport` on buffers in `memory`, as one
// sentence; empty where they can. `probe` is asked only where device memory is.
std::string memory_refusal(MemoryKind memory, TransportKind transport, const std::function<GpuInventory()>& probe);

// Keeps the algorithms a run on `memory` over `transport` can use: the reference ones, and
// the baseline of the library that runs there. Where the user `named` them, a baseline
// that cannot run is refused (std::invalid_argument) instead of dropped.
void keep_runnable(std::vector<const AlgorithmEntry*>& algorithms, MemoryKind memory, TransportKind transport,
                   bool named);

// An opened transport and, for device memory, this rank's GPU (local rank modulo the
// GPUs it sees). Collective; one rank failing fails all with RunError.
struct OpenTransport {
  std::unique_ptr<MemorySpace> space;  // device memory only; outlives `owned`
  std::unique_ptr<Transport> owned;    // nullptr: the session's MPI transport
  Transport* transport = nullptr;      // what carries the reference algorithms
};
OpenTransport open_transport(TransportKind kind, MpiTransport& mpi, const Invocation& inv);

}  // namespace collbench
