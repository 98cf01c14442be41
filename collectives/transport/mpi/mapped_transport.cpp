#include "collectives/transport/mpi/mapped_transport.hpp"

#include <immintrin.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <new>
#include <stdexcept>

#include "collectives/transport/shm_memory.hpp"

namespace collbench {

namespace {
constexpr std::size_t kSlots = 64;  // announced sends a channel holds; more wait in a backlog
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "channels need lock-free 64-bit atomics");

struct Announced {
  std::uint64_t segment, offset, bytes;
  ExportHandle handle;
};

// Every rank calls this with its own outcome; all throw if any failed.
void agree(bool ok, const std::string& what, MPI_Comm comm, std::string_view transport) {
  int all = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, comm);
  if (!all) throw std::runtime_error(std::string(transport) + " transport: " + what);
}
}  // namespace

struct MappedTransport::Channel {
  alignas(64) std::atomic<std::uint64_t> posted{0};    // announced sends; written by the sender
  alignas(64) std::atomic<std::uint64_t> consumed{0};  // copied by the receiver; frees the sender
  alignas(64) Announced slots[kSlots];
};

MappedTransport::MappedTransport(MPI_Comm comm, std::unique_ptr<ExportedMemory> memory) : memory_(std::move(memory)) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  const std::string_view kind = memory_->transport_name();
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int on_node = 0;
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  agree(on_node == size_,
        "every rank must be on one node (this one shares it with " + std::to_string(on_node - 1) + " of " +
            std::to_string(size_ - 1) + " others); use " + (kind == "shm" ? "--transport mpi" : "mpi-staged or nccl") +
            " across nodes",
        comm, kind);

  // Names unique to this job: rank 0's process id and clock.
  long long job[2] = {static_cast<long long>(getpid()),
                      static_cast<long long>(std::chrono::steady_clock::now().time_since_epoch().count())};
  MPI_Bcast(job, 2, MPI_LONG_LONG, 0, comm);
  prefix_ = "/collbench-" + std::to_string(job[0]) + "-" + std::to_string(job[1] & 0xffffffffff) + "-";
  note_shm_job(prefix_);
  memory_->start(prefix_, rank_);
  auto control_name = [&](int r) { return prefix_ + std::to_string(r) + "-0"; };

  const auto n = static_cast<std::size_t>(size_);
  control_bytes_ = n * sizeof(Channel);
  control_maps_.assign(n, nullptr);
  std::string failure;
  try {
    std::byte* mine = map_shared(control_name(rank_), control_bytes_, true, PROT_READ | PROT_WRITE).base;
    control_maps_[static_cast<std::size_t>(rank_)] = mine;
    for (std::size_t s = 0; s < n; ++s) new (mine + s * sizeof(Channel)) Channel();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  agree(failure.empty(), failure.empty() ? "another rank could not create its channels" : failure, comm, kind);
  try {
    for (int r = 0; r < size_; ++r)
      if (r != rank_)
        control_maps_[static_cast<std::size_t>(r)] = map_shared(control_name(r), 0, false, PROT_READ | PROT_WRITE).base;
  } catch (const std::exception& e) {
    failure = e.what();
  }
  agree(failure.empty(), failure.empty() ? "another rank could not map the channels" : failure, comm, kind);
  // Every rank holds every control segment: the names can go, so nothing outlives a crash.
  unlink_shared(control_name(rank_));

  for (std::size_t r = 0; r < n; ++r) {
    inbound_.push_back(
        reinterpret_cast<Channel*>(control_maps_[static_cast<std::size_t>(rank_)] + r * sizeof(Channel)));
    outbound_.push_back(
        reinterpret_cast<Channel*>(control_maps_[r] + static_cast<std::size_t>(rank_) * sizeof(Channel)));
  }
  send_seq_.assign(n, 0);
  recv_seq_.assign(n, 0);
  looked_.assign(n, 0);
  announced_.assign(n, 0);
  backlog_.assign(n, {});
}

MappedTransport::~MappedTransport() {
  for (const auto& [key, where] : mapped_) memory_->unmap(where);
  for (std::byte* c : control_maps_)
    if (c) munmap(c, control_bytes_);
}

OwnedBuffer MappedTransport::allocate(std::size_t bytes) {
  ExportedBuffer b = memory_->allocate(bytes);
  own_.push_back({b.id, b.memory.data(), bytes, b.handle});
  auto held = std::make_shared<OwnedBuffer>(std::move(b.memory));
  return {held->data(), bytes, [this, id = b.id, held](std::byte*, std::size_t) mutable {
            std::erase_if(own_, [&](const Segment& s) { return s.id == id; });
            held.reset();
          }};
}

const std::byte* MappedTransport::peer_buffer(int peer, std::uint64_t id, const ExportHandle& handle) {
  if (peer == rank_)  // a process cannot open its own CUDA IPC handle
    for (const Segment& s : own_)
      if (s.id == id) return s.base;
  auto it = mapped_.find({peer, id});
  if (it != mapped_.end()) return it->second;
  const std::byte* p = memory_->map(peer, id, handle);
  mapped_[{peer, id}] = p;
  return p;
}

Ticket MappedTransport::keep(const Record& r) {
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

void MappedTransport::release(Ticket t) {
  records_[static_cast<std::size_t>(t)].in_use = false;
  free_.push_back(t);
}

bool MappedTransport::complete(Ticket t) const {
  const Record& r = records_.at(static_cast<std::size_t>(t));
  if (!r.in_use) throw std::logic_error(std::string(name()) + " transport: waiting on a spent ticket");
  if (!r.is_send) return r.done;
  return outbound_[static_cast<std::size_t>(r.peer)]->consumed.load(std::memory_order_acquire) > r.seq;
}

Ticket MappedTransport::start_send(const Message& m) {
  if (m.peer < 0 || m.peer >= size_)
    throw std::out_of_range(std::string(name()) + " transport: no rank " + std::to_string(m.peer));
  Pending p{0, 0, m.bytes, {}};
  if (m.bytes > 0) {
    const Segment* from = nullptr;
    for (const Segment& s : own_)
      if (m.data >= s.base && m.data + m.bytes <= s.base + s.bytes) from = &s;
    if (!from)
      throw std::logic_error(std::string(name()) +
                             " transport: a send from memory it did not allocate (buffers must come from allocate())");
    p.segment = from->id;
    p.offset = static_cast<std::uint64_t>(m.data - from->base);
    p.handle = from->handle;
    // The peer reads the bytes as soon as they are announced: the work queued before this
    // send (a GPU stream's reductions) must have written them.
    memory_->space().synchronize();
  }
  const auto peer = static_cast<std::size_t>(m.peer);
  const std::uint64_t seq = send_seq_[peer]++;
  backlog_[peer].push_back(p);
  announce(peer);  // now, if the channel has room
  return keep({true, true, false, m.peer, seq, nullptr, m.bytes});
}

Ticket MappedTransport::start_recv(const Message& m) {
  if (m.peer < 0 || m.peer >= size_)
    throw std::out_of_range(std::string(name()) + " transport: no rank " + std::to_string(m.peer));
  const std::uint64_t seq = recv_seq_[static_cast<std::size_t>(m.peer)]++;
  const Ticket t = keep({true, false, false, m.peer, seq, m.data, m.bytes});
  recvs_waiting_.push_back(t);
  return t;
}

Ticket MappedTransport::start_recv_reduce(const Message& m, const ReceiveReduction& r) {
  const Ticket t = start_recv(m);
  Record& rec = records_[static_cast<std::size_t>(t)];
  rec.reduces = true;
  rec.reduction = r;
  return t;
}

bool MappedTransport::announce(std::size_t peer) {
  std::vector<Pending>& queue = backlog_[peer];
  if (queue.empty()) return false;
  Channel& ch = *outbound_[peer];
  std::size_t sent = 0;
  for (std::uint64_t seq = ch.posted.load(std::memory_order_relaxed);
       sent < queue.size() && seq - ch.consumed.load(std::memory_order_acquire) < kSlots; ++seq, ++sent) {
    const Pending& p = queue[sent];
    ch.slots[seq % kSlots] = {p.segment, p.offset, p.bytes, p.handle};
    ch.posted.store(seq + 1, std::memory_order_release);
  }
  queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(sent));
  return sent > 0;
}

bool MappedTransport::progress() {
  bool moved = false;
  for (std::size_t peer = 0; peer < backlog_.size(); ++peer) moved |= announce(peer);
  // Receives in posting order, so each channel's messages are copied, and `consumed`
  // advances, in order. One look at `posted` per channel and pass: looking again for a
  // later receive could find its message announced while an earlier one was passed over.
  ++pass_;
  MemorySpace& space = memory_->space();
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
      throw std::runtime_error(std::string(name()) + " transport: rank " + std::to_string(r.peer) + " sent " +
                               std::to_string(a.bytes) + " bytes to a receive of " + std::to_string(r.bytes));
    if (a.bytes) {
      const std::byte* sent = peer_buffer(r.peer, a.segment, a.handle) + a.offset;
      if (r.reduces) {
        const ReceiveReduction& x = r.reduction;
        space.reduce(x.dtype, x.op, r.dst, x.sent_first ? sent : x.local, x.sent_first ? x.local : sent,
                     a.bytes / dtype_size(x.dtype));
        reduced_bytes_ += a.bytes;
      } else {
        space.copy(r.dst, sent, a.bytes);
      }
    }
    copying_.push_back({t, space.mark()});
    moved = true;
  }
  recvs_waiting_.resize(kept);
  // Copies finish in the order they were queued; each frees its sender's buffer.
  while (!copying_.empty() && space.reached(copying_.front().mark)) {
    Record& r = records_[static_cast<std::size_t>(copying_.front().ticket)];
    inbound_[static_cast<std::size_t>(r.peer)]->consumed.store(r.seq + 1, std::memory_order_release);
    r.done = true;
    copying_.pop_front();
    moved = true;
  }
  return moved;
}

// Spin briefly (the peer is usually running), then give the core away: with more ranks
// than cores the peer may need this one.
void MappedTransport::pause(int idle_rounds) const {
  if (idle_rounds < 128)
    _mm_pause();
  else
    sched_yield();
}

template <class Finished>
void MappedTransport::spin_until(Finished finished) {
  for (int idle = 0;; ++idle) {
    if (progress()) idle = 0;
    if (finished()) return;
    pause(idle);
  }
}

void MappedTransport::wait_all(std::span<const Ticket> tickets) {
  spin_until([&] { return std::all_of(tickets.begin(), tickets.end(), [&](Ticket t) { return complete(t); }); });
  for (Ticket t : tickets) release(t);
}

void MappedTransport::wait_some(std::span<const Ticket> tickets, std::vector<std::size_t>& done) {
  const std::size_t before = done.size();
  spin_until([&] {
    for (std::size_t i = 0; i < tickets.size(); ++i)
      if (complete(tickets[i])) done.push_back(i);
    return done.size() > before;
  });
  for (std::size_t i = before; i < done.size(); ++i) release(tickets[done[i]]);
}

Completion MappedTransport::wait_any(std::span<const Ticket> tickets) {
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

Ticket MappedTransport::post_send(int, int, const std::byte*, std::size_t) {
  throw std::logic_error("the " + std::string(name()) +
                         " transport carries schedule messages only; tagged messages need --transport mpi");
}

Ticket MappedTransport::post_recv(int, int, std::byte*, std::size_t) {
  throw std::logic_error("the " + std::string(name()) +
                         " transport carries schedule messages only; tagged messages need --transport mpi");
}

}  // namespace collbench
