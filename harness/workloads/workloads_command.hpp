#pragma once
// `collbench workloads list` and `collbench workloads show NAME`.
#include <string>

#include "harness/replay/replay_options.hpp"

namespace collbench {

std::string workload_list_text();
// The workload's tensors (backward order), totals, and the buckets of each policy in
// `r.bucketings`; compute times where the step's compute is given.
std::string workload_show_text(const ReplayOptions& r);

}  // namespace collbench
