#pragma once
// The harness's own small collectives (argument checks, error counts, timings,
// topology), written with point-to-point calls through rank 0. Forcing one of MPICH's
// collective algorithms (MPIR_CVAR_<COLL>_INTRA_ALGORITHM with fallback off) then
// changes only the calls being measured: some forced algorithms refuse the tiny
// counts the harness needs (reduce_scatter_allgather wants count >= ranks).
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace collbench {

// This process's rank in comm, and comm's size.
int rank_of(MPI_Comm comm);
int size_of(MPI_Comm comm);

// Element-wise reduction of `values` over all ranks with `combine`; every rank gets
// the result. Every rank must pass the same length.
void control_allreduce(std::vector<double>& values, const std::function<double(double, double)>& combine,
                       MPI_Comm comm);
void control_allreduce(std::vector<long long>& values, const std::function<long long(long long, long long)>& combine,
                       MPI_Comm comm);
// The sum of every rank's `mine`, on every rank.
std::int64_t control_sum(std::int64_t mine, MPI_Comm comm);
// control_sum for ranks that may wait long while others measure: they sleep between
// polls instead of spinning, so on a host with more ranks than cores they leave the
// measuring ranks their cores.
std::int64_t control_sum_sleeping(std::int64_t mine, MPI_Comm comm);
// Rank `root`'s bytes, on every rank (resized to match).
void control_broadcast(std::string& bytes, int root, MPI_Comm comm);
// Every rank's string, in rank order, on every rank.
std::vector<std::string> control_allgather(const std::string& mine, MPI_Comm comm);

// Doubles as the bytes the string-based calls above carry, and back.
std::string doubles_to_bytes(const std::vector<double>& values);
std::vector<double> bytes_to_doubles(const std::string& bytes);

}  // namespace collbench
