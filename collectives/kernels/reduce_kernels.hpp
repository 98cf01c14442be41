#pragma once
// The CPU's reductions, dst = a op b, for every dtype and op: the fastest clone this CPU runs.
#include <cstddef>

#include "collectives/dtype.hpp"

namespace collbench {

// dst[i] = a[i] op b[i] for i < count. dst may alias a or b exactly (in-place); no
// other overlap is allowed. 16-bit floats are computed in f32 and rounded once.
void reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count);

// The code path for CPUs without AVX2/F16C, on any CPU: tests compare it with reduce().
void reduce_portable(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count);

// Outputs of at least this many bytes take the streaming (non-temporal store) path
// on CPUs that have it; exposed so tests can exercise that path.
std::size_t reduce_streaming_min_bytes();

// Name of the code path reduce() dispatches to on this CPU ("avx2+f16c" or "baseline").
const char* reduce_kernel_isa();

}  // namespace collbench
