#pragma once
// Where this process is, for a watchdog thread that reports a stall: the harness names
// the task and the call, the executor the schedule step. Updates are relaxed atomic
// stores by the one thread that measures, cheap enough for the timed loops; only the
// task text takes a lock.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace collbench::progress {

// What is being run, e.g. "run allreduce, algorithm ring, 1048576 bytes, round 1".
void set_task(std::string text);
// Which call of the task: `stage` is a string literal ("warm-up call", "timed call").
void set_call(const char* stage, int index, int of);
// Which step of a schedule the executor is in (0-based; `of` steps in all), and the
// ranks that step sends to or receives from (the first kMostPeers are kept).
inline constexpr int kMostPeers = 4;
void set_step(int index, int of, std::span<const int> peers = {});
// Counts as progress without changing the position (e.g. a finished check).
void beat();
// Start-up (session, transport, metadata, outputs): what it is doing now. A process is
// starting up until its first set_task (later calls change nothing); the watchdog gives
// start-up a limit of its own, since its work beats seldom and its waits on peers not at all.
void set_startup(std::string what);
// The rank a control exchange waits for (-1: none); a wait that ends counts as progress.
void set_waiting_for(int rank);

struct Snapshot {
  std::string task;
  const char* stage = nullptr;
  int call = 0, calls = 0, step = -1, steps = 0;
  std::vector<int> peers;   // of the step; empty outside schedules
  int more_peers = 0;       // beyond those kept
  std::uint64_t beats = 0;  // grows with every update: unchanged means no progress
  bool starting = true;     // no task set yet
  int waiting_for = -1;     // in a control exchange, the rank it waits for
};
Snapshot snapshot();
// "TASK, timed call 3 of 20, schedule step 2 of 4, exchanging with rank 1 (HOST)": each
// peer named by `host_of_rank` where it knows the rank.
std::string describe(const Snapshot& s, const std::vector<std::string>& host_of_rank = {});

}  // namespace collbench::progress
