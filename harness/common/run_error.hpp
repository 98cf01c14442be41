#pragma once
// An error every rank of a run knows about (a bad input file, a parameter-server
// protocol error, an unwritable output): each rank throws it, so none needs to be
// aborted, and rank 0 prints it once.
#include <mpi.h>

#include <stdexcept>
#include <string>

namespace collbench {

struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws RunError on every rank with the first non-empty `error` of any rank
// (collective over comm).
void throw_if_any_rank_failed(const std::string& error, MPI_Comm comm);

}  // namespace collbench
