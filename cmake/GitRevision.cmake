# Regenerates build_info.hpp on every build so results carry the revision they were measured with.
set(COLLBENCH_BUILD_INFO ${CMAKE_BINARY_DIR}/generated/build_info.hpp)
add_custom_target(collbench_build_info
  COMMAND ${CMAKE_COMMAND}
    -DSRC=${CMAKE_SOURCE_DIR} -DOUT=${COLLBENCH_BUILD_INFO}
    -DCOMPILER=${CMAKE_CXX_COMPILER_ID}-${CMAKE_CXX_COMPILER_VERSION}
    -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
    "-DMPI_BUILD=COLLBENCH_MPI=${COLLBENCH_MPI}, MPI ${MPI_CXX_VERSION}, ${MPI_CXX_COMPILER}"
    -DHAVE_CUDA=${COLLBENCH_HAVE_CUDA} -DHAVE_NCCL=${COLLBENCH_HAVE_NCCL}
    -P ${CMAKE_SOURCE_DIR}/cmake/WriteBuildInfo.cmake
  BYPRODUCTS ${COLLBENCH_BUILD_INFO})
