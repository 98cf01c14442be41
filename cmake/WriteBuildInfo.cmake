execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
  OUTPUT_VARIABLE REV OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE RC)
if(NOT RC EQUAL 0 OR REV STREQUAL "")
  set(REV "unknown")
endif()
set(TEXT "#pragma once
namespace collbench::build_info {
inline constexpr const char* version = \"${VERSION}\";
inline constexpr const char* git_revision = \"${REV}\";
inline constexpr const char* compiler = \"${COMPILER}\";
inline constexpr const char* build_type = \"${BUILD_TYPE}\";
inline constexpr const char* mpi_build = \"${MPI_BUILD}\";
inline constexpr bool have_cuda = ${HAVE_CUDA};
inline constexpr bool have_nccl = ${HAVE_NCCL};
}
")
string(REPLACE "= TRUE;" "= true;" TEXT "${TEXT}")
string(REPLACE "= ON;" "= true;" TEXT "${TEXT}")
string(REPLACE "= FALSE;" "= false;" TEXT "${TEXT}")
string(REPLACE "= OFF;" "= false;" TEXT "${TEXT}")
string(REPLACE "= ;" "= false;" TEXT "${TEXT}")
if(EXISTS ${OUT})
  file(READ ${OUT} OLD)
endif()
if(NOT "${OLD}" STREQUAL "${TEXT}")
  file(WRITE ${OUT} "${TEXT}")
endif()
