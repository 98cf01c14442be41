#include "harness/common/request_limits.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace collbench {

Machine this_machine(int ranks_here) {
  Machine m;
  m.ranks_here = ranks_here;
  m.memory_total = static_cast<long double>(sysconf(_SC_PHYS_PAGES)) * static_cast<long double>(sysconf(_SC_PAGESIZE));
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    long double kib = 0;
    meminfo >> kib;
    if (key == "MemAvailable:") m.memory_available = kib * 1024;
    meminfo.ignore(1 << 10, '\n');
  }
  return m;
}

double call_floor_seconds(long double bytes) {
  return kCallFloorSeconds + static_cast<double>(bytes / kBytesPerSecondCeiling);
}

std::string human_seconds(long double s) {
  char buf[64];
  if (s >= 86400 * 365.0L)
    std::snprintf(buf, sizeof buf, "%.3Lg years", s / (86400 * 365.0L));
  else if (s >= 7200)
    std::snprintf(buf, sizeof buf, "%.1Lf hours", s / 3600);
  else if (s >= 120)
    std::snprintf(buf, sizeof buf, "%.1Lf minutes", s / 60);
  else
    std::snprintf(buf, sizeof buf, "%.3Lg s", s);
  return buf;
}

std::string human_bytes(long double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (b >= 1024 && u < 6) {
    b /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 6 && b >= 1024 ? "%.3Lg %s" : "%.1Lf %s", b, units[u]);
  return buf;
}

void check_count(long double count, long double limit, const std::string& what, const std::string& fix, bool force) {
  if (count <= limit || force) return;
  throw std::invalid_argument(what + "; at most " + std::to_string(static_cast<long long>(limit)) + ": " + fix +
                              ", or give --force");
}

void check_request(const RequestEstimate& e, const Machine& m, bool force) {
  const long double node = e.bytes_per_rank * m.ranks_here;
  const std::string need = e.memory_flag + " needs at least " + human_bytes(e.bytes_per_rank) +
                           " of memory per rank (" + std::to_string(m.ranks_here) +
                           " rank(s) on this node: " + human_bytes(node) + ")";
  if (m.memory_total > 0 && node > m.memory_total)
    throw std::invalid_argument(need + ", more than this node's " + human_bytes(m.memory_total));
  if (m.memory_available > 0 && node > m.memory_available && !force)
    throw std::invalid_argument(need + ", more than the " + human_bytes(m.memory_available) +
                                " available now; free memory, or give --force");
  if (e.seconds > kMaxRunSeconds && !force)
    throw std::invalid_argument("this run would take at least " + human_seconds(e.seconds) + " (" + e.work +
                                ", each call at least 0.2 us + bytes / 1 TB/s); the limit is " +
                                human_seconds(kMaxRunSeconds) + ": ask for less, or give --force");
}

void add_force_flag(CLI::App& app, bool& force) {
  app.add_flag("--force", force,
               "Run even when the estimated run time (over 1 hour, as a lower bound), the number "
               "of sizes or of messages per step, or the memory (over what is available) is "
               "beyond collbench's limits; the refusal gives the estimate");
}

}  // namespace collbench
