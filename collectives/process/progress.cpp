#include "collectives/process/progress.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>

namespace collbench::progress {
namespace {

std::mutex task_mutex;
std::string task_text;
std::atomic<const char*> stage{nullptr};
std::atomic<int> call{0}, calls{0}, step{-1}, steps{0};
std::atomic<int> peer[kMostPeers], peer_count{0};
std::atomic<std::uint64_t> beats{0};
std::atomic<bool> starting{true};
std::atomic<int> waiting_for{-1};

// One thread (the one measuring) writes: a plain load and store, no locked instruction
// inside the timed loops.
void tick() { beats.store(beats.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

}  // namespace

void set_task(std::string text) {
  {
    std::lock_guard lock(task_mutex);
    task_text = std::move(text);
  }
  starting.store(false, std::memory_order_relaxed);
  stage.store(nullptr, std::memory_order_relaxed);
  step.store(-1, std::memory_order_relaxed);
  tick();
}

void set_call(const char* s, int index, int of) {
  stage.store(s, std::memory_order_relaxed);
  call.store(index, std::memory_order_relaxed);
  calls.store(of, std::memory_order_relaxed);
  step.store(-1, std::memory_order_relaxed);
  tick();
}

void set_step(int index, int of, std::span<const int> peers) {
  step.store(index, std::memory_order_relaxed);
  steps.store(of, std::memory_order_relaxed);
  const std::size_t kept = std::min(peers.size(), static_cast<std::size_t>(kMostPeers));
  for (std::size_t i = 0; i < kept; ++i) peer[i].store(peers[i], std::memory_order_relaxed);
  peer_count.store(static_cast<int>(peers.size()), std::memory_order_relaxed);
  tick();
}

void beat() { tick(); }

void set_startup(std::string what) {
  if (!starting.load(std::memory_order_relaxed)) return;  // measuring already: not start-up work
  {
    std::lock_guard lock(task_mutex);
    task_text = "starting up: " + std::move(what);
  }
  tick();
}

void set_waiting_for(int rank) {
  const int before = waiting_for.exchange(rank, std::memory_order_relaxed);
  if (before >= 0 && rank < 0) tick();
}

Snapshot snapshot() {
  Snapshot s;
  {
    std::lock_guard lock(task_mutex);
    s.task = task_text;
  }
  s.stage = stage.load(std::memory_order_relaxed);
  s.call = call.load(std::memory_order_relaxed);
  s.calls = calls.load(std::memory_order_relaxed);
  s.step = step.load(std::memory_order_relaxed);
  s.steps = steps.load(std::memory_order_relaxed);
  const int n = s.step >= 0 ? peer_count.load(std::memory_order_relaxed) : 0;
  for (int i = 0; i < std::min(n, kMostPeers); ++i) s.peers.push_back(peer[i].load(std::memory_order_relaxed));
  s.more_peers = std::max(0, n - kMostPeers);
  s.beats = beats.load(std::memory_order_relaxed);
  s.starting = starting.load(std::memory_order_relaxed);
  s.waiting_for = waiting_for.load(std::memory_order_relaxed);
  return s;
}

std::string describe(const Snapshot& s, const std::vector<std::string>& host_of_rank) {
  const auto with_host = [&](int r) {
    std::string text = std::to_string(r);
    if (r >= 0 && static_cast<std::size_t>(r) < host_of_rank.size())
      text += " (" + host_of_rank[static_cast<std::size_t>(r)] + ")";
    return text;
  };
  std::string out = s.task.empty() ? "starting up" : s.task;
  if (s.stage) out += ", " + std::string(s.stage) + " " + std::to_string(s.call + 1) + " of " + std::to_string(s.calls);
  if (s.step >= 0) out += ", schedule step " + std::to_string(s.step + 1) + " of " + std::to_string(s.steps);
  for (std::size_t i = 0; i < s.peers.size(); ++i) {
    const int r = s.peers[i];
    out +=
        i == 0 ? ", exchanging with rank " : (i + 1 == s.peers.size() && s.more_peers == 0 ? " and rank " : ", rank ");
    out += with_host(r);
  }
  if (s.more_peers > 0) out += " and " + std::to_string(s.more_peers) + " more";
  if (s.waiting_for >= 0) out += ", waiting for rank " + with_host(s.waiting_for);
  return out;
}

}  // namespace collbench::progress
