#pragma once
// MPI datatypes and ops for collbench's dtypes and ops.
#include <mpi.h>

#include "collectives/dtype.hpp"

namespace collbench {

// MPI datatype for a dtype. f16 and bf16 have no portable MPI type (MPICH 4.0 has
// no bf16 at all), so both are a 2-byte contiguous type reduced by collbench's own
// kernel through a user-defined MPI_Op; MPI still chooses and runs the algorithm.
MPI_Datatype mpi_datatype(DType t);
MPI_Op mpi_op(DType t, ReduceOp op);
bool mpi_uses_user_op(DType t);

}  // namespace collbench
