# Which MPI this tree builds and runs with, named explicitly: Debian's update-alternatives
# point mpicxx/mpiexec at whichever library was installed last (Open MPI outranks MPICH),
# so a tree must not depend on them.
#   COLLBENCH_MPI=mpich    Debian's MPICH (mpicxx.mpich, mpiexec.mpich); the default when installed
#   COLLBENCH_MPI=openmpi  Debian's Open MPI (mpicxx.openmpi, mpirun.openmpi)
#   COLLBENCH_MPI=system   whatever FindMPI finds (a cluster's module, Intel MPI, a vendor MPICH);
#                          the default when Debian's MPICH is absent, or when FindMPI's own
#                          hints are given (MPI_C_COMPILER, MPI_CXX_COMPILER, MPIEXEC_EXECUTABLE,
#                          MPI_HOME), as a cluster's modules and Spack give them
# A hint that names another MPI than COLLBENCH_MPI is refused with one message, never
# overridden, and so is a launcher of another MPI than the library's.

# FindMPI hints given on the command line or kept in the cache.
set(_hints "")
foreach(_var MPI_C_COMPILER MPI_CXX_COMPILER MPIEXEC_EXECUTABLE MPI_HOME)
  if(DEFINED ${_var} AND NOT "${${_var}}" STREQUAL "")
    list(APPEND _hints ${_var})
  endif()
endforeach()
if(NOT COLLBENCH_MPI)
  find_program(COLLBENCH_DEBIAN_MPICH mpicxx.mpich)
  set(_default system)
  if(COLLBENCH_DEBIAN_MPICH AND NOT _hints AND NOT DEFINED ENV{MPI_HOME})
    set(_default mpich)
  endif()
  set(COLLBENCH_MPI ${_default} CACHE STRING "MPI library to build against: mpich, openmpi or system")
endif()
set_property(CACHE COLLBENCH_MPI PROPERTY STRINGS mpich openmpi system)

if(COLLBENCH_MPI STREQUAL "mpich")
  set(_suffix mpich)
  set(_launcher mpiexec.mpich)
elseif(COLLBENCH_MPI STREQUAL "openmpi")
  set(_suffix openmpi)
  set(_launcher mpirun.openmpi)
elseif(NOT COLLBENCH_MPI STREQUAL "system")
  message(FATAL_ERROR "COLLBENCH_MPI must be mpich, openmpi or system, not '${COLLBENCH_MPI}'")
endif()
if(_suffix)
  find_program(_found_C mpicc.${_suffix} NO_CACHE)
  find_program(_found_CXX mpicxx.${_suffix} NO_CACHE)
  find_program(_found_launcher ${_launcher} NO_CACHE)
  if(NOT _found_C OR NOT _found_CXX OR NOT _found_launcher)
    message(FATAL_ERROR "COLLBENCH_MPI=${COLLBENCH_MPI}: mpicc.${_suffix}, mpicxx.${_suffix} or ${_launcher} not found; "
                        "install them (scripts/setup.sh --mpi ${COLLBENCH_MPI}) or choose another COLLBENCH_MPI")
  endif()
  # A hint that names the same program is no conflict; one that names another is.
  set(_want_MPI_C_COMPILER ${_found_C})
  set(_want_MPI_CXX_COMPILER ${_found_CXX})
  set(_want_MPIEXEC_EXECUTABLE ${_found_launcher})
  foreach(_var ${_hints})
    set(_same FALSE)
    if(DEFINED _want_${_var})
      get_filename_component(_given "${${_var}}" REALPATH)
      get_filename_component(_want "${_want_${_var}}" REALPATH)
      if(_given STREQUAL _want)
        set(_same TRUE)
      endif()
    endif()
    if(NOT _same)
      message(FATAL_ERROR "${_var}=${${_var}} names another MPI than COLLBENCH_MPI=${COLLBENCH_MPI} "
                          "(${_want_MPI_CXX_COMPILER}, ${_want_MPIEXEC_EXECUTABLE}); give -DCOLLBENCH_MPI=system "
                          "to build with what ${_var} names, or leave ${_var} out (in a fresh build directory)")
    endif()
  endforeach()
  set(MPI_C_COMPILER ${_found_C} CACHE FILEPATH "MPI C wrapper (from COLLBENCH_MPI)" FORCE)
  set(MPI_CXX_COMPILER ${_found_CXX} CACHE FILEPATH "MPI C++ wrapper (from COLLBENCH_MPI)" FORCE)
  set(MPIEXEC_EXECUTABLE ${_found_launcher} CACHE FILEPATH "MPI launcher (from COLLBENCH_MPI)" FORCE)
elseif(_hints)
  # A wrapper or launcher named with a suffix (Debian's mpicxx.openmpi, mpirun.openmpi)
  # has its siblings beside it: the other wrappers and the launcher, which FindMPI would
  # otherwise take from the machine's default (update-alternatives), possibly another MPI.
  set(_named ${MPI_CXX_COMPILER} ${MPI_C_COMPILER} ${MPIEXEC_EXECUTABLE})
  list(GET _named 0 _named)
  get_filename_component(_dir "${_named}" DIRECTORY)
  get_filename_component(_name "${_named}" NAME)
  if(_name MATCHES "^mpi(cc|cxx|c\\+\\+|CC|exec|run)\\.(.+)$")
    set(_sfx ${CMAKE_MATCH_2})
    if(NOT MPI_C_COMPILER)
      find_program(MPI_C_COMPILER mpicc.${_sfx} HINTS ${_dir} NO_DEFAULT_PATH)
    endif()
    if(NOT MPI_CXX_COMPILER)
      find_program(MPI_CXX_COMPILER NAMES mpicxx.${_sfx} mpic++.${_sfx} HINTS ${_dir} NO_DEFAULT_PATH)
    endif()
    if(NOT MPIEXEC_EXECUTABLE)
      find_program(MPIEXEC_EXECUTABLE NAMES mpiexec.${_sfx} mpirun.${_sfx} HINTS ${_dir} NO_DEFAULT_PATH)
    endif()
  endif()
endif()

find_package(MPI REQUIRED COMPONENTS C CXX)

# The launcher as tests and scripts use it. Open MPI refuses more ranks than cores
# without --oversubscribe, and root without --allow-run-as-root (CI runs as root).
set(COLLBENCH_MPIEXEC ${MPIEXEC_EXECUTABLE})
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _launcher_version ERROR_QUIET)
if(_launcher_version MATCHES "Open MPI|OpenRTE")
  set(COLLBENCH_MPI_FAMILY openmpi)
  list(APPEND COLLBENCH_MPIEXEC --oversubscribe --allow-run-as-root)
elseif(_launcher_version MATCHES "HYDRA")
  set(COLLBENCH_MPI_FAMILY mpich)
else()
  set(COLLBENCH_MPI_FAMILY other)
endif()

# The C and C++ headers must be one library's, and the launcher that library's: Open
# MPI's mpirun cannot start an MPICH program as one job, nor Hydra an Open MPI one.
include(CheckCSourceCompiles)
include(CheckCXXSourceCompiles)
foreach(lang C CXX)
  set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_${lang})
  set(_family other)
  foreach(_candidate openmpi:OMPI_MAJOR_VERSION mpich:MPICH_VERSION)
    string(REPLACE ":" ";" _candidate ${_candidate})
    list(GET _candidate 0 _name)
    list(GET _candidate 1 _macro)
    unset(_is_${lang}_${_name} CACHE)
    if(lang STREQUAL "C")
      check_c_source_compiles("#include <mpi.h>\n#ifndef ${_macro}\n#error\n#endif\nint main(void) { return 0; }" _is_${lang}_${_name})
    else()
      check_cxx_source_compiles("#include <mpi.h>\n#ifndef ${_macro}\n#error\n#endif\nint main() { return 0; }" _is_${lang}_${_name})
    endif()
    if(_is_${lang}_${_name} AND _family STREQUAL "other")
      set(_family ${_name})
    endif()
  endforeach()
  set(_family_${lang} ${_family})
endforeach()
unset(CMAKE_REQUIRED_LIBRARIES)
if(NOT _family_C STREQUAL _family_CXX)
  message(FATAL_ERROR "the MPI C wrapper (${_family_C}: ${MPI_C_COMPILER}) and C++ wrapper (${_family_CXX}: "
                      "${MPI_CXX_COMPILER}) are of different libraries; name both of one library")
endif()
if(NOT _family_CXX STREQUAL "other" AND NOT COLLBENCH_MPI_FAMILY STREQUAL "other"
   AND NOT _family_CXX STREQUAL COLLBENCH_MPI_FAMILY)
  message(FATAL_ERROR "the MPI library found (${_family_CXX}: ${MPI_CXX_COMPILER}) is not the launcher's "
                      "(${COLLBENCH_MPI_FAMILY}: ${MPIEXEC_EXECUTABLE}); name both MPI_CXX_COMPILER and "
                      "MPIEXEC_EXECUTABLE of one library, or choose COLLBENCH_MPI=mpich or openmpi")
endif()
# MPI_HOME (given, or from a cluster's module) must hold the wrapper FindMPI took.
set(_home ${MPI_HOME})
if(NOT _home AND DEFINED ENV{MPI_HOME})
  set(_home $ENV{MPI_HOME})
endif()
if(_home)
  get_filename_component(_home_real "${_home}" REALPATH)
  get_filename_component(_wrapper_real "${MPI_CXX_COMPILER}" REALPATH)
  string(FIND "${_wrapper_real}" "${_home_real}/" _at)
  if(NOT _at EQUAL 0)
    message(FATAL_ERROR "MPI_HOME=${_home} holds no MPI C++ wrapper that FindMPI could use; it took "
                        "${MPI_CXX_COMPILER} instead. Name the wrapper (-DMPI_CXX_COMPILER=...) or fix MPI_HOME")
  endif()
endif()

# MPI-4's large-count (_c) collectives, where the library has them; otherwise
# collectives/transport/mpi/library_call.cpp splits calls above INT_MAX elements.
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_CXX)
check_cxx_source_compiles([=[
#include <mpi.h>
int main() {
  MPI_Count n = 1; int x = 0, y = 0;
  MPI_Allreduce_c(&x, &y, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast_c(&x, n, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Reduce_c(&x, &y, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Gather_c(&x, n, MPI_INT, &y, n, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allgather_c(&x, n, MPI_INT, &y, n, MPI_INT, MPI_COMM_WORLD);
  MPI_Reduce_scatter_block_c(&x, &y, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return 0;
}]=] COLLBENCH_MPI_LARGE_COUNT)
unset(CMAKE_REQUIRED_LIBRARIES)
if(NOT COLLBENCH_MPI_LARGE_COUNT)
  set(COLLBENCH_MPI_LARGE_COUNT OFF)
endif()
string(JOIN " " _launcher_text ${COLLBENCH_MPIEXEC})
message(STATUS "collbench: MPI ${COLLBENCH_MPI} (${COLLBENCH_MPI_FAMILY}), launcher '${_launcher_text}', "
               "large-count _c collectives: ${COLLBENCH_MPI_LARGE_COUNT}")

set(COLLBENCH_MPIEXEC_SCRIPT ${CMAKE_BINARY_DIR}/mpiexec)
# build/mpiexec: this tree's launcher, for scripts and users, so they need not know which
# library the tree was built with.
file(CONFIGURE OUTPUT ${COLLBENCH_MPIEXEC_SCRIPT} CONTENT [=[#!/bin/sh
# Generated by CMake: the MPI launcher this build tree was built for (COLLBENCH_MPI=@COLLBENCH_MPI@).
exec @_launcher_text@ "$@"
]=] @ONLY)
file(CHMOD ${COLLBENCH_MPIEXEC_SCRIPT} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
     WORLD_READ WORLD_EXECUTE)
