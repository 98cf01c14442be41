#pragma once
// MPICH's collective selection file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, the
// MPIR-level tree of src/mpi/coll/src/csel.c, unchanged since MPICH 3.4): written from
// `collbench tune`'s choices spliced into the running library's own default tree, and
// checked the way MPICH would read it. MPICH trusts the file: an unknown key or
// algorithm, a ladder without a final "=any", a condition asked of a collective that
// does not define it, or a collective the program calls but the file leaves out is an
// assertion or a crash in a release build, so every one of them is refused here first.
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/tune/tune_choice.hpp"

namespace collbench {

// The collectives MPICH's file can tune with collbench's measurements (alltoallv: no).
bool mpich_tunable(Collective c);

// The file's container for one of MPICH's algorithms as its CVAR names it
// (MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring -> MPIR_Allreduce_intra_ring; nb ->
// MPIR_Allreduce_allcomm_nb).
std::string mpich_container(Collective c, const std::string& algorithm);

// `library_default`: the library's own MPIR-level tree (mpich_default_selection()),
// every collective of which the file keeps; the tuned collectives' intra-communicator
// branch becomes: the conditions the measurement ran under (a commutative built-in
// operation, not in place), then each measured communicator size exactly, then the
// choices' size bands (tune_choice.hpp), each algorithm behind the conditions MPICH
// requires of it (e.g. count >= the power of two below the communicator size); anything
// else falls to the library's own branch. `element_bytes`: the measurement's datatype
// (MPICH sizes gather by elements). `notes` open the file as a /* */ comment (MPICH's
// json-c reads comments). Throws std::invalid_argument where a choice cannot be written.
std::string write_mpich_selection(const nlohmann::ordered_json& library_default,
                                  const std::vector<CollectiveChoices>& choices, std::size_t element_bytes,
                                  const std::vector<std::string>& notes);

// The algorithm (as its CVAR names it) that the library's own tree selects for a call of
// `c` as collbench measures it (a commutative built-in operation, not in place) on
// `ranks` ranks over `nodes` nodes (at most `ranks_per_node` on one), `bytes` as run counts them; "" where the tree
// asks something collbench does not know for the call, or picks what it cannot name.
std::string mpich_library_choice(const nlohmann::ordered_json& library_default, Collective c, int ranks, int nodes,
                                 int ranks_per_node, std::size_t bytes, std::size_t element_bytes);

// Every problem MPICH would trip over in `text` (empty: none), given the library's own
// tree (for the collectives to cover) and the algorithms it has (`known_containers`,
// mpich_known_containers()).
std::vector<std::string> check_mpich_selection(const std::string& text, const nlohmann::ordered_json& library_default,
                                               const std::set<std::string>& known_containers);

// The containers MPICH accepts: every one in its own tree and every algorithm its CVARs
// name for the collectives collbench knows.
std::set<std::string> mpich_known_containers(const nlohmann::ordered_json& library_default);

}  // namespace collbench
