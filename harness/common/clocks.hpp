#pragma once
// How far each host's clocks are from rank 0's host's, measured at the start of a run
// (for the metadata): a host whose clock is off is reported, never trusted silently.
// collbench itself times every call as a difference on one rank's clock (MPI_Wtime),
// so an offset changes no time it reports, only timestamps compared across hosts.
#include <mpi.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace collbench {

// Collective over comm. Rank 0 exchanges a few messages with the lowest rank of every
// other host and keeps the exchange with the shortest round trip: offset = the host's
// clock - the midpoint of rank 0's before and after; uncertainty = half the round trip.
// CLOCK_REALTIME for every host; CLOCK_MONOTONIC only for hosts that share rank 0's
// kernel (boot id), where it must agree unless the host runs in a time namespace.
nlohmann::json measure_clock_offsets(MPI_Comm comm, const std::map<std::string, std::vector<int>>& ranks_by_host,
                                     const std::vector<std::string>& boot_id_of_rank);

// A table-header warning when a host's clock is over kClockWarningSeconds off, or "".
inline constexpr double kClockWarningSeconds = 1;
std::string clock_warning(const nlohmann::json& clocks);

}  // namespace collbench
