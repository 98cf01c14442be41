#pragma once
// `collbench p2p`: latency, bandwidth and exchange per link class, with alpha/beta fits.
#include "harness/common/invocation.hpp"
#include "harness/p2p/p2p_options.hpp"

namespace collbench {

int run_command(const P2pOptions& o, const Invocation& inv);

}  // namespace collbench
