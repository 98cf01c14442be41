#pragma once
// The device kernels' Google Benchmark cases, registered where a GPU is.

namespace collbench {

// Registers the GPU kernel benchmarks where a GPU is visible; says on stderr why not
// where none is.
void register_gpu_benchmarks();

}  // namespace collbench
