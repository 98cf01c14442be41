#pragma once
// POSIX shared memory: the segments of the shm transport's buffers and of every mapped
// transport's control channels. Names this process created are remembered until removed,
// so that exits which skip destructors can remove them (remove_shm_names).
#include <cstddef>
#include <memory>
#include <string>

#include "collectives/transport/exported_memory.hpp"

namespace collbench {

struct SharedMapping {
  std::byte* base = nullptr;
  std::size_t bytes = 0;
};

// Creates segment `name` of `bytes` bytes (zeroed) or opens an existing one at its own
// size, and maps it with `prot`; throws std::runtime_error with the system's reason.
SharedMapping map_shared(const std::string& name, std::size_t bytes, bool create, int prot);
// Removes a name this process created (what is mapped stays valid).
void unlink_shared(const std::string& name);

// The prefix of every segment name of this job ("/collbench-<job>-"), whose ranks all
// share this host's /dev/shm.
void note_shm_job(const std::string& prefix);
// Removes the names of every shared-memory segment this process still owns, and of
// every other segment of its job on this host: for exits that skip destructors (_Exit,
// MPI_Abort), so that an interrupted, stalled or failed run leaves nothing in /dev/shm,
// even where the launcher kills the other ranks before they remove theirs. Safe to call
// again; not from a signal handler.
void remove_shm_names() noexcept;

// Buffers in POSIX shared memory, one segment each, for the shm transport; local work on
// them runs in `space` (the host's, or an emulated device in tests).
std::unique_ptr<ExportedMemory> make_shm_memory(MemorySpace& space = host_space());

}  // namespace collbench
