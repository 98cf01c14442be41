#pragma once
// One CUDA error check for the GPU sources: the call that failed, then CUDA's words for it.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace collbench {

inline void cuda_check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw std::runtime_error(what + ": " + cudaGetErrorString(e));
}

}  // namespace collbench
