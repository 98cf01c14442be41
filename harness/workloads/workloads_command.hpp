#pragma once
// `collbench workloads list` and `collbench workloads show NAME`.
#include <string>

#include "harness/common/command_context.hpp"
#include "harness/common/invocation.hpp"
#include "harness/workloads/workload_choice.hpp"

namespace collbench {

struct WorkloadsOptions {
  bool show = false;  // show one workload, else list them all
  WorkloadChoice choice;
  int ranks = 0;  // the all-to-alls' matrices on this many ranks (0: the run's)
};
struct WorkloadsFlags {
  WorkloadChoiceFlags choice;
  WorkloadsOptions parsed;
  CLI::App* show = nullptr;
};
CLI::App* add_command(CLI::App& app, WorkloadsFlags& f);
WorkloadsOptions resolve_command(const WorkloadsFlags& f, const CommandContext& c);  // throws std::invalid_argument
int run_command(const WorkloadsOptions& o, const Invocation& inv);

std::string workload_list_text();
// The workload's tensors (backward order; `m` resolved by resolve_workload), totals, and the buckets of each policy in
// `m.bucketings`; compute times where the step's compute is given.
std::string workload_show_text(const WorkloadChoice& m, int ranks = 1);

}  // namespace collbench
