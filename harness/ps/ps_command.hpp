#pragma once
// `collbench ps`: the parameter server's sweep, its metadata and its table.
#include "harness/common/invocation.hpp"
#include "harness/ps/ps_options.hpp"

namespace collbench {

int run_command(PsOptions o, const Invocation& inv);

}  // namespace collbench
