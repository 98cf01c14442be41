#pragma once
// Open MPI's own algorithms switched inside one process. coll/tuned copies
// coll_tuned_<coll>_algorithm into a communicator when the communicator is created (with
// coll_tuned_use_dynamic_rules set at launch: MPI_T cannot change that one), and MPI_T
// can write the algorithm variable after MPI_Init; so a duplicate of the run's
// communicator made while the variable names an algorithm runs that algorithm for good,
// beside the library's own choice on the original. Open MPI 4.1 lets a rules file win
// over a forced algorithm, so there is no switching beside one.
#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/collective.hpp"

namespace collbench {

// Why this process cannot switch Open MPI's algorithms of `c` ("" when it can). After MPI_Init.
std::string open_mpi_switch_unavailable(Collective c);

// The names of `c`'s algorithms, in the order of their values (1, 2, ...), where this
// process can switch them; empty otherwise (and outside MPI_Init..MPI_Finalize).
std::vector<std::string> open_mpi_switchable_algorithms(Collective c);
std::optional<int> open_mpi_algorithm_value(Collective c, const std::string& algorithm);

// Open MPI 4.1's algorithms of `c` that take a segment size (coll/tuned's do_this passes
// it on: allreduce segmented_ring; bcast chain, pipeline, split_binary_tree, binary_tree,
// binomial, knomial; reduce chain, pipeline, binary, binomial, in-order_binary; gather
// linear_sync, its first segment). A switched one runs with its own segment as
// "NAME:seg=BYTES", beside the plain NAME, which runs with coll/tuned's segment size.
bool open_mpi_takes_segments(Collective c, const std::string& algorithm);
struct SegmentedAlgorithm {
  std::string algorithm;
  std::optional<std::size_t> segment_bytes;  // none: coll/tuned's segment size
};
inline constexpr std::string_view kSegmentTag = ":seg=";
// "pipeline:seg=65536" -> {pipeline, 65536}, "pipeline" -> {pipeline, none}; throws
// std::invalid_argument on a malformed segment (not a whole number of bytes above 0).
SegmentedAlgorithm split_segmented_name(const std::string& name);
std::string segmented_name(const std::string& algorithm, std::size_t segment_bytes);

// The segment size in bytes coll/tuned gives `c`'s forced algorithms
// (coll_tuned_<coll>_algorithm_segmentsize; 0: none, and outside MPI). After MPI_Init.
std::size_t open_mpi_segment_bytes(Collective c);

// Why Open MPI cannot run `algorithm` of `c` on `ranks` ranks (elements of
// `dtype_bytes`, segments of `segment_bytes`), where it would not say so itself: two_proc needs exactly 2 ranks (its
// alltoall does not check and talks to rank ^ 1); allgather recursive_doubling runs bruck
// off a power of two, neighbor runs ring on an odd count; segmented_ring allreduce with a
// segment size below one element runs ring at every count. "" when it can.
std::string open_mpi_restriction_refusal(Collective c, const std::string& algorithm, int ranks, std::size_t dtype_bytes,
                                         std::size_t segment_bytes);

// Where Open MPI 4.1's coll/base runs another algorithm than the one forced, by itself
// and silently, for calls of fewer elements than `smallest_count` (read in
// ompi/mca/coll/base/coll_base_<coll>.c), with elements of `dtype_bytes` and segments of
// `segment_bytes`: what it runs then (`runs`, "" where it runs `algorithm` at every count).
struct OpenMpiFallback {
  std::size_t smallest_count = 1;
  std::string runs;
};
OpenMpiFallback open_mpi_fallback(Collective c, const std::string& algorithm, int ranks, std::size_t dtype_bytes,
                                  std::size_t segment_bytes);

// A duplicate of `comm` on which coll/tuned runs algorithm `value` of `c` (with segments of
// `segment_bytes` where given: coll/tuned reads both when a communicator is made); made
// once per collective, value, segment and communicator, collectively (every rank asks in
// the same order).
MPI_Comm open_mpi_switched_comm(Collective c, int value, std::optional<std::size_t> segment_bytes, MPI_Comm comm);

}  // namespace collbench
