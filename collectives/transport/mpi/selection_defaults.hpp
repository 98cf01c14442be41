#pragma once
// The collective selection tree the running MPICH was built with. MPICH compiles its
// maint/tuning/coll/mpir/generic.json into libmpich as a string and selects from it
// unless MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE names another file, which must then
// cover every collective a program calls: `collbench tune` keeps this tree for what it
// does not tune, so the file matches the library it runs with, version for version.
#include <string>

namespace collbench {

// The loaded shared object whose file name contains `name_part` ("libmpich.so"), or "".
std::string loaded_library_path(const std::string& name_part);

// The MPIR-level tree (the one whose algorithms are "algorithm=MPIR_..."), as text, from
// the libmpich this process runs with; "" where it cannot be found (not MPICH, linked
// statically, or a build that stores it otherwise).
std::string mpich_default_selection_text();

// The same search over a library file's bytes; pure, for tests.
std::string find_mpir_selection(const std::string& library_bytes);

}  // namespace collbench
