#pragma once
// The one interface nvcc compiles with the kernels: plain enums (elementwise.hpp),
// because the project's constexpr name tables (dtype.hpp) are beyond nvcc's front end.
#include <cstddef>

#include "collectives/elementwise.hpp"

namespace collbench {

// Queues dst[i] = a[i] op b[i] for i < count on `stream` (a cudaStream_t); see MemorySpace::reduce.
void launch_reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count, void* stream);

}  // namespace collbench
