#pragma once
// Before anything runs, a request is estimated: its run time (a lower bound: every
// call at least kCallFloorSeconds plus its bytes at kBytesPerSecondCeiling, faster
// than any interconnect today), its memory per rank, its size and message counts.
// Absurd requests are refused with the estimate in the message; --force runs the ones
// a user may really want. Memory beyond this node's is refused even then.
#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace collbench {

inline constexpr double kCallFloorSeconds = 0.2e-6;
inline constexpr double kBytesPerSecondCeiling = 1e12;
inline constexpr double kMaxRunSeconds = 3600;
inline constexpr std::size_t kMaxSizes = 1000, kHardMaxSizes = 1000000;
inline constexpr std::size_t kMaxMessagesPerStep = 65536;

// This node, as the limits see it.
struct Machine {
  long double memory_total = 0, memory_available = 0;  // bytes; 0: unknown
  int ranks_here = 1;                                  // ranks on this node
};
Machine this_machine(int ranks_here);

// A lower bound on one call that moves `bytes` per rank.
double call_floor_seconds(long double bytes);

struct RequestEstimate {
  long double seconds = 0;         // at least this long
  std::string work;                // what the time is made of: "9 algorithms x 24 sizes x ..."
  long double bytes_per_rank = 0;  // memory, at least
  std::string memory_flag;         // the flag to lower when memory is too much: "-e 1024G"
};

// Throws std::invalid_argument with the estimate when the request is absurd.
void check_request(const RequestEstimate& e, const Machine& machine, bool force);
// For the limits that are counts (sizes, messages per step): throws unless `force`.
void check_count(long double count, long double limit, const std::string& what, const std::string& fix, bool force);

void add_force_flag(CLI::App& app, bool& force);

std::string human_seconds(long double s);  // "34.2 hours", "12 s"
std::string human_bytes(long double b);    // "4.0 TiB"

}  // namespace collbench
