#pragma once
// MPICH's own algorithms switched inside one process: MPICH reads
// MPIR_CVAR_<COLL>_INTRA_ALGORITHM at every call, and MPI_T can write it after MPI_Init,
// so one run can interleave the library's default with each of its algorithms, batch
// by batch, instead of launching once per algorithm (launches on this kind of machine
// run in a fast or a slow mode as a whole, which no comparison across launches survives).
// The CVAR is checked where a tuning file's choice is (MPIR_<Coll>_impl, below ch4's
// device layer), so a switched algorithm runs as a tuning file choosing it would.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "collectives/collective.hpp"

namespace collbench {

// The names of an MPICH enum CVAR in the order of their values, read from its
// description: MPICH has no MPI_T enum for them and joins the description's lines, so a
// name is the longest of `names` that ends a word followed by spaces and "- "
// ("...Force nonblocking algorithmsmp   - Force smp"). Empty unless every one of `names`
// is found exactly once and nothing else is.
std::vector<std::string> mpich_enum_order(const std::string& description, const std::vector<std::string>& names);

// What MPICH requires of an algorithm and does not check when it is forced (it then
// falls back, or fails with MPIR_CVAR_COLLECTIVE_FALLBACK=error): coll_algorithms.txt's
// restrictions.
struct MpichRestrictions {
  bool count_ge_pof2 = false;  // count >= the largest power of two <= ranks
  bool power_of_two = false;   // a power-of-two communicator
  bool parent_comm = false;    // MPICH's node hierarchy (mpich_node_hierarchy)
  bool in_place_only = false;  // sendbuf == MPI_IN_PLACE
  bool not_in_place = false;   // sendbuf != MPI_IN_PLACE
};
MpichRestrictions mpich_restrictions(Collective c, const std::string& algorithm);

// Whether MPICH gives a communicator its node hierarchy (node and node-roots
// communicators): several nodes, one of them with several ranks.
inline bool mpich_node_hierarchy(int nodes, int max_ranks_per_node) { return nodes > 1 && max_ranks_per_node > 1; }

// MPICH's pof2 (MPL_pof2): the largest power of two at or below `ranks`.
inline std::size_t mpich_pof2(int ranks) {
  std::size_t pof2 = 1;
  while (pof2 * 2 <= static_cast<std::size_t>(ranks)) pof2 *= 2;
  return pof2;
}

// Why MPICH cannot run `algorithm` for any call of a run on `ranks` ranks over `nodes`
// nodes (at most `max_ranks_per_node` on one), in place or not; "" when it can.
std::string mpich_restriction_refusal(Collective c, const std::string& algorithm, int ranks, int nodes,
                                      int max_ranks_per_node, bool in_place = false);
// The smallest count per call MPICH runs `algorithm` with on `ranks` ranks (1 but for
// count_ge_pof2): a run skips it at the sizes below, rather than at every size.
std::size_t mpich_smallest_count(Collective c, const std::string& algorithm, int ranks);

// The algorithms of `c` this process can switch MPICH to (empty for another library, or
// where MPICH's description of the CVAR cannot be read). After MPI_Init.
std::vector<std::string> mpich_switchable_algorithms(Collective c);
// Why `c` cannot be switched in this process; "" when it can.
std::string mpich_switch_unavailable(Collective c);

// Makes MPICH's next calls of `c` run `algorithm` ("" for the library's own choice, or a
// tuning file's); the first switch also sets MPIR_CVAR_COLLECTIVE_FALLBACK=error, so an
// algorithm that cannot serve a call fails instead of silently running another. Cheap
// when nothing changes (one comparison): it is called before every timed call.
void select_mpich_algorithm(Collective c, int value);
// The value that selects `algorithm` ("" for the library's own choice); nullopt when it
// cannot be switched to.
std::optional<int> mpich_algorithm_value(Collective c, const std::string& algorithm);

}  // namespace collbench
