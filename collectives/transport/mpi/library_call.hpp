#pragma once
// One call of the MPI library's own collective, large counts native or split.
#include <mpi.h>

#include <climits>
#include <vector>

#include "collectives/collective.hpp"

namespace collbench {

// One collective as the MPI library's own call, with MPI_IN_PLACE where asked.
struct MpiCallArgs {
  const void* send;  // MPI_IN_PLACE or the send buffer
  void* recv;
  MPI_Count count;  // per rank, as in CollectiveCall
  MPI_Datatype type;
  MPI_Op op;
  int root;
  MPI_Comm comm;
  PeerBlocks blocks{1, 0};  // all-to-alls: each rank's block counts (the matrix must outlive the call's setup)
};

// The library's arguments for `call` on this rank: its datatype and op, and
// MPI_IN_PLACE where MPI takes it (every rank, or only the root of a rooted collective).
MpiCallArgs mpi_call_args(const CollectiveCall& call, MPI_Comm comm, int rank);

// How counts above `int` reach the library. MPI-4 added large-count (_c) collectives;
// an MPI-3.1 library (Open MPI 4.x, many vendor MPIs) has only int counts, so a larger
// call is split: reductions into calls of at most `limit` elements each (element-wise,
// so the result is the same), reduce_scatter into windows of the send buffer
// (MPI_Reduce_scatter with per-rank counts), and the others into one call of a single
// derived datatype that spans the whole buffer (alltoall: one block). alltoallv has no
// such split: a call whose counts or displacements pass INT_MAX needs MPI_Alltoallv_c,
// and without it is refused. Whether the library has them is found
// at configure time (cmake/SelectMpi.cmake), not from its name.
enum class LargeCounts { native, split };
LargeCounts library_large_counts();
// For the run's metadata.
const char* large_counts_description();

class MpiLibraryCall {
 public:
  // Splits calls above `limit` elements when `how` is split. `limit` is INT_MAX except
  // in tests, which split tiny calls to exercise the split path with any library.
  MpiLibraryCall(Collective c, const MpiCallArgs& a, LargeCounts how = library_large_counts(),
                 MPI_Count limit = INT_MAX);
  ~MpiLibraryCall();
  MpiLibraryCall(const MpiLibraryCall&) = delete;
  MpiLibraryCall& operator=(const MpiLibraryCall&) = delete;
  void run();

 private:
  void run_split();
  void reduce_scatter_windows();
  void alltoallv();

  Collective c_;
  MpiCallArgs a_;
  bool split_;
  MPI_Count limit_;
  MPI_Aint extent_ = 0;
  MPI_Datatype whole_ = MPI_DATATYPE_NULL;  // the derived type spanning one rank's count
  std::vector<int> window_counts_;          // reduce_scatter windows
  std::vector<std::byte> window_result_;    // reduce_scatter in place: one window's result
  // alltoallv's counts and displacements, in the library's integer types.
  std::vector<int> v_counts_, v_displs_, v_rcounts_, v_rdispls_;
  std::vector<MPI_Count> c_counts_, c_rcounts_;
  std::vector<MPI_Aint> c_displs_, c_rdispls_;
};

}  // namespace collbench
