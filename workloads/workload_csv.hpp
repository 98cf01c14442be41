#pragma once
// User-supplied workloads and per-layer compute profiles as CSV (read with
// fast-cpp-csv-parser). Columns are named in a header line, in any order; lines
// starting with '#' are comments.
//
// Workload: name,elements[,dtype][,kind][,rows][,row_elements][,lookups][,flops]
//   one gradient tensor per line, in backward order. dtype defaults to f32, kind to
//   dense. kind=sparse needs rows and row_elements (rows*row_elements == elements)
//   and lookups, the ids one rank looks up per step. flops is the forward work of
//   the layer that makes this gradient ready (0 for a layer's later tensors); when
//   no line has any, compute is spread in proportion to elements.
// Profile: name,ms
//   the backward milliseconds that precede a named tensor, plus optional lines
//   named `forward` and `optimizer`; tensors not listed take no time.
#include <string>

#include "workloads/workload.hpp"

namespace collbench {

// Throws std::invalid_argument naming the file and line of the first problem.
Workload read_workload_csv(const std::string& path);

struct ComputeProfile {
  double forward_ms = 0, optimizer_ms = 0;
  std::vector<double> backward_ms;  // per tensor of the workload
};
ComputeProfile read_compute_profile_csv(const std::string& path, const Workload& workload);

}  // namespace collbench
