#include "collectives/transport/shm_memory.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace collbench {
namespace {

// Names this process created and has not removed yet, for remove_shm_names().
std::mutex names_lock;
std::vector<std::string>& live_names() {
  static auto* names = new std::vector<std::string>;  // never destroyed: used at exit
  return *names;
}
void remember(const std::string& name) {
  const std::lock_guard<std::mutex> hold(names_lock);
  live_names().push_back(name);
}

// The job's name prefix (without the leading '/'), set once before any segment exists.
char job_prefix[128];
std::atomic<bool> job_known{false};

std::runtime_error system_error(const std::string& what) {
  return std::runtime_error("shm transport: " + what + ": " + std::strerror(errno));
}

// One segment per buffer, named "<job prefix><rank>-<id>"; peers open it by that name.
class ShmMemory final : public ExportedMemory {
 public:
  explicit ShmMemory(MemorySpace& space) : space_(space) {}
  ShmMemory(const ShmMemory&) = delete;
  ShmMemory& operator=(const ShmMemory&) = delete;
  ~ShmMemory() override {
    for (const auto& [id, where] : own_) {
      munmap(where.base, where.bytes);
      unlink_shared(name(rank_, id));
    }
  }
  std::string_view transport_name() const override { return "shm"; }
  MemorySpace& space() override { return space_; }
  void start(const std::string& job_prefix, int rank) override {
    prefix_ = job_prefix;
    rank_ = rank;
  }
  ExportedBuffer allocate(std::size_t bytes) override {
    const std::uint64_t id = next_id_++;
    // mmap gives zeroed, page-aligned memory; a zero-length segment cannot be mapped.
    const SharedMapping m = map_shared(name(rank_, id), std::max<std::size_t>(bytes, 1), true, PROT_READ | PROT_WRITE);
    own_[id] = m;
    return {OwnedBuffer(m.base, bytes,
                        [this, id](std::byte*, std::size_t) {
                          auto it = own_.find(id);
                          munmap(it->second.base, it->second.bytes);
                          unlink_shared(name(rank_, id));
                          own_.erase(it);
                        }),
            id,
            {}};
  }
  const std::byte* map(int peer, std::uint64_t id, const ExportHandle&) override {
    const SharedMapping m = map_shared(name(peer, id), 0, false, PROT_READ);
    mapped_bytes_[m.base] = m.bytes;
    return m.base;
  }
  void unmap(const std::byte* mapped) noexcept override {
    auto it = mapped_bytes_.find(mapped);
    if (it == mapped_bytes_.end()) return;
    munmap(const_cast<std::byte*>(mapped), it->second);
    mapped_bytes_.erase(it);
  }

 private:
  std::string name(int rank, std::uint64_t id) const {
    return prefix_ + std::to_string(rank) + "-" + std::to_string(id);
  }

  MemorySpace& space_;
  std::string prefix_;
  int rank_ = 0;
  std::uint64_t next_id_ = 1;  // 0 is the transport's control segment
  std::map<std::uint64_t, SharedMapping> own_;
  std::map<const std::byte*, std::size_t> mapped_bytes_;
};

}  // namespace

void unlink_shared(const std::string& name) {
  shm_unlink(name.c_str());
  const std::lock_guard<std::mutex> hold(names_lock);
  auto& names = live_names();
  names.erase(std::remove(names.begin(), names.end(), name), names.end());
}

SharedMapping map_shared(const std::string& name, std::size_t bytes, bool create, int prot) {
  const int fd =
      shm_open(name.c_str(), create ? O_CREAT | O_EXCL | O_RDWR : (prot & PROT_WRITE ? O_RDWR : O_RDONLY), 0600);
  if (fd < 0) throw system_error("cannot open shared memory " + name);
  if (create) remember(name);
  struct stat st {};
  if (create ? ftruncate(fd, static_cast<off_t>(bytes)) != 0 : fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    if (create) unlink_shared(name);
    errno = e;
    throw system_error("cannot size shared memory " + name);
  }
  if (!create) bytes = static_cast<std::size_t>(st.st_size);
  void* p = bytes ? mmap(nullptr, bytes, prot, MAP_SHARED | MAP_POPULATE, fd, 0) : nullptr;
  close(fd);
  if (p == MAP_FAILED) {
    if (create) unlink_shared(name);
    throw system_error("cannot map shared memory " + name);
  }
  return {static_cast<std::byte*>(p), bytes};
}

void note_shm_job(const std::string& prefix) {
  const std::size_t at = prefix.find_first_not_of('/');
  if (job_known.load() || at == std::string::npos || prefix.size() - at >= sizeof job_prefix) return;
  std::memcpy(job_prefix, prefix.c_str() + at, prefix.size() - at + 1);
  job_known.store(true);
}

void remove_shm_names() noexcept {
  // Exit paths may run while the main thread holds the lock: then its names are found
  // below, by the job's prefix.
  if (names_lock.try_lock()) {
    for (const std::string& name : live_names()) shm_unlink(name.c_str());
    live_names().clear();
    names_lock.unlock();
  }
  // Every rank's segments of this job (all on this host): when rank 0 ends the job with
  // MPI_Abort, the launcher kills the others, maybe before they removed theirs.
  if (!job_known.load()) return;
  DIR* dir = opendir("/dev/shm");
  if (!dir) return;
  const std::size_t length = std::strlen(job_prefix);
  char name[sizeof(dirent::d_name) + 1];
  while (const dirent* e = readdir(dir))
    if (std::strncmp(e->d_name, job_prefix, length) == 0) {
      std::snprintf(name, sizeof name, "/%s", e->d_name);
      shm_unlink(name);
    }
  closedir(dir);
}

std::unique_ptr<ExportedMemory> make_shm_memory(MemorySpace& space) { return std::make_unique<ShmMemory>(space); }

}  // namespace collbench
