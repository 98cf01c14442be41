#include "collectives/mpi/shm_transport.hpp"

#include <fcntl.h>
#include <immintrin.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>

namespace collbench {

namespace {
constexpr std::size_t kSlots = 64;  // announced sends a channel holds; more wait in a backlog
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "channels need lock-free 64-bit atomics");

struct Announced {
  std::uint64_t segment, offset, bytes;
};

// Names this process created and has not removed yet (every transport's), for
// remove_shm_names().
std::mutex names_lock;
std::vector<std::string>& live_names() {
  static auto* names = new std::vector<std::string>;  // never destroyed: used at exit
  return *names;
}
void remember(const std::string& name) {
  const std::lock_guard<std::mutex> hold(names_lock);
  live_names().push_back(name);
}
void unlink_name(const std::string& name) {
  shm_unlink(name.c_str());
  const std::lock_guard<std::mutex> hold(names_lock);
  auto& names = live_names();
  names.erase(std::remove(names.begin(), names.end(), name), names.end());
}

std::runtime_error system_error(const std::string& what) {
  return std::runtime_error("shm transport: " + what + ": " + std::strerror(errno));
}

struct Mapping {
  std::byte* base;
  std::size_t bytes;
};

// Creates (or opens an existing) segment and maps it; an existing one at its own size.
Mapping map_segment(const std::string& name, std::size_t bytes, bool create, int prot) {
  const int fd = shm_open(name.c_str(), create ? O_CREAT | O_EXCL | O_RDWR : (prot & PROT_WRITE ? O_RDWR : O_RDONLY),
                          0600);
  if (fd < 0) throw system_error("cannot open shared memory " + name);
  if (create) remember(name);
  struct stat st {};
  if (create ? ftruncate(fd, static_cast<off_t>(bytes)) != 0 : fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    if (create) unlink_name(name);
    errno = e;
    throw system_error("cannot size shared memory " + name);
  }
  if (!create) bytes = static_cast<std::size_t>(st.st_size);
  void* p = bytes ? mmap(nullptr, bytes, prot, MAP_SHARED | MAP_POPULATE, fd, 0) : nullptr;
  close(fd);
  if (p == MAP_FAILED) {
    if (create) unlink_name(name);
    throw system_error("cannot map shared memory " + name);
  }
  return {static_cast<std::byte*>(p), bytes};
}

// Every rank calls this with its own outcome; all throw if any failed.
void agree(bool ok, const std::string& what, MPI_Comm comm) {
  int all = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, comm);
  if (!all) throw std::runtime_error("shm transport: " + what);
}
}  // namespace

void remove_shm_names() noexcept {
  // Exit paths may run while the main thread holds the lock: then leave the names.
  if (!names_lock.try_lock()) return;
  for (const std::string& name : live_names()) shm_unlink(name.c_str());
  live_names().clear();
  names_lock.unlock();
}

struct ShmTransport::Channel {
  alignas(64) std::atomic<std::uint64_t> posted{0};    // announced sends; written by the sender
  alignas(64) std::atomic<std::uint64_t> consumed{0};  // copied by the receiver; frees the sender
  alignas(64) Announced slots[kSlots];
};

ShmTransport::ShmTransport(MPI_Comm comm) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int on_node = 0;
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  agree(on_node == size_,
        "every rank must be on one node (this one shares it with " + std::to_string(on_node - 1) + " of " +
            std::to_string(size_ - 1) + " others); use --transport mpi across nodes",
        comm);

  // Names unique to this job: rank 0's process id and clock.
  long long job[2] = {static_cast<long long>(getpid()),
                      static_cast<long long>(std::chrono::steady_clock::now().time_since_epoch().count())};
  MPI_Bcast(job, 2, MPI_LONG_LONG, 0, comm);
  prefix_ = "/collbench-" + std::to_string(job[0]) + "-" + std::to_string(job[1] & 0xffffffffff) + "-";

  const auto n = static_cast<std::size_t>(size_);
  control_bytes_ = n * sizeof(Channel);
  control_maps_.assign(n, nullptr);
  std::string failure;
  try {
    std::byte* mine = map_segment(segment_name(rank_, 0), control_bytes_, true, PROT_READ | PROT_WRITE).base;
    control_maps_[static_cast<std::size_t>(rank_)] = mine;
    for (std::size_t s = 0; s < n; ++s) new (mine + s * sizeof(Channel)) Channel();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  agree(failure.empty(), failure.empty() ? "another rank could not create its channels" : failure, comm);
  try {
    for (int r = 0; r < size_; ++r)
      if (r != rank_)
        control_maps_[static_cast<std::size_t>(r)] = map_segment(segment_name(r, 0), 0, false, PROT_READ | PROT_WRITE).base;
  } catch (const std::exception& e) {
    failure = e.what();
  }
  agree(failure.empty(), failure.empty() ? "another rank could not map the channels" : failure, comm);
  // Every rank holds every control segment: the names can go, so nothing outlives a crash.
  unlink_name(segment_name(rank_, 0));

  for (std::size_t r = 0; r < n; ++r) {
    inbound_.push_back(reinterpret_cast<Channel*>(control_maps_[static_cast<std::size_t>(rank_)] + r * sizeof(Channel)));
    outbound_.push_back(reinterpret_cast<Channel*>(control_maps_[r] + static_cast<std::size_t>(rank_) * sizeof(Channel)));
  }
  send_seq_.assign(n, 0);
  recv_seq_.assign(n, 0);
  looked_.assign(n, 0);
  announced_.assign(n, 0);
  backlog_.assign(n, {});
}

ShmTransport::~ShmTransport() {
  for (const Segment& s : own_) {
    munmap(s.base, s.bytes);
    unlink_name(segment_name(rank_, s.id));
  }
  for (const auto& [key, where] : mapped_) munmap(where.first, where.second);
  for (std::byte* c : control_maps_)
    if (c) munmap(c, control_bytes_);
}

std::string ShmTransport::segment_name(int rank, std::uint64_t id) const {
  return prefix_ + std::to_string(rank) + "-" + std::to_string(id);
}

OwnedBuffer ShmTransport::allocate(std::size_t bytes) {
  const std::uint64_t id = next_segment_++;
  // mmap gives zeroed, page-aligned memory; a zero-length segment cannot be mapped.
  const std::size_t mapped = std::max<std::size_t>(bytes, 1);
  std::byte* base = map_segment(segment_name(rank_, id), mapped, true, PROT_READ | PROT_WRITE).base;
  own_.push_back({id, base, mapped});
  return {base, bytes, [this, id](std::byte*, std::size_t) {
            for (std::size_t i = 0; i < own_.size(); ++i)
              if (own_[i].id == id) {
                munmap(own_[i].base, own_[i].bytes);
                unlink_name(segment_name(rank_, id));
                own_.erase(own_.begin() + static_cast<std::ptrdiff_t>(i));
                return;
              }
          }};
}

const std::byte* ShmTransport::peer_segment(int peer, std::uint64_t id) {
  auto it = mapped_.find({peer, id});
  if (it != mapped_.end()) return it->second.first;
  const Mapping m = map_segment(segment_name(peer, id), 0, false, PROT_READ);
  mapped_[{peer, id}] = {m.base, m.bytes};
  return m.base;
}

Ticket ShmTransport::keep(const Record& r) {
  if (free_.empty()) {
    records_.emplace_back();
    free_.push_back(static_cast<Ticket>(records_.size() - 1));
  }
  const Ticket t = free_.back();
  free_.pop_back();
  records_[static_cast<std::size_t>(t)] = r;
  records_[static_cast<std::size_t>(t)].in_use = true;
  return t;
}

void ShmTransport::release(Ticket t) {
  records_[static_cast<std::size_t>(t)].in_use = false;
  free_.push_back(t);
}

bool ShmTransport::complete(Ticket t) const {
  const Record& r = records_.at(static_cast<std::size_t>(t));
  if (!r.in_use) throw std::logic_error("shm transport: waiting on a spent ticket");
  if (!r.is_send) return r.done;
  return outbound_[static_cast<std::size_t>(r.peer)]->consumed.load(std::memory_order_acquire) > r.seq;
}

Ticket ShmTransport::start_send(const Message& m) {
  if (m.peer < 0 || m.peer >= size_) throw std::out_of_range("shm transport: no rank " + std::to_string(m.peer));
  Pending p{0, 0, m.bytes};
  if (m.bytes > 0) {
    const Segment* from = nullptr;
    for (const Segment& s : own_)
      if (m.data >= s.base && m.data + m.bytes <= s.base + s.bytes) from = &s;
    if (!from)
      throw std::logic_error("shm transport: a send from memory it did not allocate (buffers must come from allocate())");
    p.segment = from->id;
    p.offset = static_cast<std::uint64_t>(m.data - from->base);
  }
  const auto peer = static_cast<std::size_t>(m.peer);
  const std::uint64_t seq = send_seq_[peer]++;
  backlog_[peer].push_back(p);
  announce(peer);  // now, if the channel has room
  return keep({true, true, false, m.peer, seq, nullptr, m.bytes});
}

Ticket ShmTransport::start_recv(const Message& m) {
  if (m.peer < 0 || m.peer >= size_) throw std::out_of_range("shm transport: no rank " + std::to_string(m.peer));
  const std::uint64_t seq = recv_seq_[static_cast<std::size_t>(m.peer)]++;
  const Ticket t = keep({true, false, false, m.peer, seq, m.data, m.bytes});
  recvs_waiting_.push_back(t);
  return t;
}

bool ShmTransport::announce(std::size_t peer) {
  std::vector<Pending>& queue = backlog_[peer];
  if (queue.empty()) return false;
  Channel& ch = *outbound_[peer];
  std::size_t sent = 0;
  for (std::uint64_t seq = ch.posted.load(std::memory_order_relaxed);
       sent < queue.size() && seq - ch.consumed.load(std::memory_order_acquire) < kSlots; ++seq, ++sent) {
    const Pending& p = queue[sent];
    ch.slots[seq % kSlots] = {p.segment, p.offset, p.bytes};
    ch.posted.store(seq + 1, std::memory_order_release);
  }
  queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(sent));
  return sent > 0;
}

bool ShmTransport::progress() {
  bool moved = false;
  for (std::size_t peer = 0; peer < backlog_.size(); ++peer) moved |= announce(peer);
  // Receives in posting order, so each channel's messages are copied, and `consumed`
  // advances, in order. One look at `posted` per channel and pass: looking again for a
  // later receive could find its message announced while an earlier one was passed over.
  ++pass_;
  std::size_t kept = 0;
  for (Ticket t : recvs_waiting_) {
    Record& r = records_[static_cast<std::size_t>(t)];
    const auto peer = static_cast<std::size_t>(r.peer);
    Channel& ch = *inbound_[peer];
    if (looked_[peer] != pass_) {
      looked_[peer] = pass_;
      announced_[peer] = ch.posted.load(std::memory_order_acquire);
    }
    if (announced_[peer] <= r.seq) {
      recvs_waiting_[kept++] = t;
      continue;
    }
    const Announced a = ch.slots[r.seq % kSlots];
    if (a.bytes != r.bytes)
      throw std::runtime_error("shm transport: rank " + std::to_string(r.peer) + " sent " + std::to_string(a.bytes) +
                               " bytes to a receive of " + std::to_string(r.bytes));
    if (a.bytes) std::memcpy(r.dst, peer_segment(r.peer, a.segment) + a.offset, a.bytes);
    ch.consumed.store(r.seq + 1, std::memory_order_release);
    r.done = true;
    moved = true;
  }
  recvs_waiting_.resize(kept);
  return moved;
}

// Spin briefly (the peer is usually running), then give the core away: with more ranks
// than cores the peer may need this one.
void ShmTransport::pause(int idle_rounds) const {
  if (idle_rounds < 128) _mm_pause();
  else sched_yield();
}

template <class Finished>
void ShmTransport::spin_until(Finished finished) {
  for (int idle = 0;; ++idle) {
    if (progress()) idle = 0;
    if (finished()) return;
    pause(idle);
  }
}

void ShmTransport::wait_all(std::span<const Ticket> tickets) {
  spin_until([&] { return std::all_of(tickets.begin(), tickets.end(), [&](Ticket t) { return complete(t); }); });
  for (Ticket t : tickets) release(t);
}

void ShmTransport::wait_some(std::span<const Ticket> tickets, std::vector<std::size_t>& done) {
  const std::size_t before = done.size();
  spin_until([&] {
    for (std::size_t i = 0; i < tickets.size(); ++i)
      if (complete(tickets[i])) done.push_back(i);
    return done.size() > before;
  });
  for (std::size_t i = before; i < done.size(); ++i) release(tickets[done[i]]);
}

Completion ShmTransport::wait_any(std::span<const Ticket> tickets) {
  std::size_t i = 0;
  spin_until([&] {
    for (i = 0; i < tickets.size(); ++i)
      if (complete(tickets[i])) return true;
    return false;
  });
  const Record& r = records_[static_cast<std::size_t>(tickets[i])];
  const Completion c{i, r.is_send ? 0 : r.bytes};
  release(tickets[i]);
  return c;
}

Ticket ShmTransport::post_send(int, int, const std::byte*, std::size_t) {
  throw std::logic_error("the shm transport carries schedule messages only; tagged messages need --transport mpi");
}

Ticket ShmTransport::post_recv(int, int, std::byte*, std::size_t) {
  throw std::logic_error("the shm transport carries schedule messages only; tagged messages need --transport mpi");
}

}  // namespace collbench
