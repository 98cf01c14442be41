#include "harness/common/clocks.hpp"

#include <time.h>

#include <cmath>
#include <cstdio>

namespace collbench {
namespace {

constexpr int kTag = 0x7c10;
constexpr int kExchanges = 5;

struct Clocks {
  double realtime = 0, monotonic = 0;
};

Clocks read_clocks() {
  timespec r{}, m{};
  clock_gettime(CLOCK_REALTIME, &r);
  clock_gettime(CLOCK_MONOTONIC, &m);
  return {static_cast<double>(r.tv_sec) + r.tv_nsec * 1e-9, static_cast<double>(m.tv_sec) + m.tv_nsec * 1e-9};
}

}  // namespace

nlohmann::json measure_clock_offsets(MPI_Comm comm, const std::map<std::string, std::vector<int>>& ranks_by_host,
                                     const std::vector<std::string>& boot_id_of_rank) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string reference;
  for (const auto& [host, ranks] : ranks_by_host)
    if (ranks.front() == 0) reference = host;
  nlohmann::json hosts = nlohmann::json::object();
  for (const auto& [host, ranks] : ranks_by_host) {
    const int leader = ranks.front();
    if (leader == 0) {
      hosts[host] = {{"realtime_offset_s", 0.0}, {"monotonic_offset_s", 0.0}, {"uncertainty_s", 0.0}};
      continue;
    }
    if (rank == leader) {
      for (int k = 0; k < kExchanges; ++k) {
        char ping = 0;
        MPI_Recv(&ping, 1, MPI_CHAR, 0, kTag, comm, MPI_STATUS_IGNORE);
        const Clocks mine = read_clocks();
        const double reply[2] = {mine.realtime, mine.monotonic};
        MPI_Send(reply, 2, MPI_DOUBLE, 0, kTag, comm);
      }
    } else if (rank == 0) {
      double best_rtt = INFINITY, realtime = 0, monotonic = 0;
      for (int k = 0; k < kExchanges; ++k) {
        char ping = 0;
        double reply[2] = {};
        const Clocks before = read_clocks();
        MPI_Send(&ping, 1, MPI_CHAR, leader, kTag, comm);
        MPI_Recv(reply, 2, MPI_DOUBLE, leader, kTag, comm, MPI_STATUS_IGNORE);
        const Clocks after = read_clocks();
        const double rtt = after.monotonic - before.monotonic;
        if (rtt >= best_rtt) continue;
        best_rtt = rtt;
        realtime = reply[0] - (before.realtime + after.realtime) / 2;
        monotonic = reply[1] - (before.monotonic + after.monotonic) / 2;
      }
      const bool same_kernel = boot_id_of_rank[static_cast<std::size_t>(leader)] == boot_id_of_rank[0];
      hosts[host] = {{"realtime_offset_s", realtime},
                     {"monotonic_offset_s", same_kernel ? nlohmann::json(monotonic) : nlohmann::json(nullptr)},
                     {"uncertainty_s", best_rtt / 2}};
    }
  }
  int* global = nullptr;
  int has = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &has);
  return {{"reference_host", reference},
          {"method", "rank 0 and each host's lowest rank exchange " + std::to_string(kExchanges) +
                         " messages; the shortest round trip gives offset = the host's clock - the midpoint of rank "
                         "0's clock before and after, uncertainty = half the round trip. monotonic_offset_s only for "
                         "hosts on rank 0's kernel (boot id); collbench times calls as differences on one rank's "
                         "MPI_Wtime, so offsets change no reported time"},
          {"mpi_wtime_is_global", has && global && *global},
          {"hosts", hosts}};
}

std::string clock_warning(const nlohmann::json& clocks) {
  std::string out;
  for (const auto& [host, h] : clocks["hosts"].items())
    for (const char* clock : {"realtime", "monotonic"}) {
      const auto& v = h[std::string(clock) + "_offset_s"];
      if (v.is_null() || std::fabs(v.get<double>()) <= kClockWarningSeconds) continue;
      char text[160];
      std::snprintf(text, sizeof text, "%shost %s's %s clock is %+.3f s from rank 0's host", out.empty() ? "" : "; ",
                    host.c_str(), clock, v.get<double>());
      out += text;
    }
  if (!out.empty())
    out +=
        " (collbench's times are differences on one rank's clock and are unaffected; timestamps compared across "
        "hosts would not be)";
  return out;
}

}  // namespace collbench
