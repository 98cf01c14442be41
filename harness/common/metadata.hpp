#pragma once
// The run's metadata: machine, MPI library and settings, topology, launcher, clocks.
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>

#include "collectives/transport/gpu/gpu.hpp"
#include "harness/common/invocation.hpp"
#include "harness/common/session.hpp"

namespace collbench {

// What every run records so it can be reproduced: tool and build, MPI library,
// relevant environment, hosts, topology, command line. Each command adds its options
// and definitions. Collective over the invocation's ranks.
nlohmann::json collect_metadata(const Invocation& inv, const Session& session);

// "host h runs 3 ranks on 2 cores ..." from the metadata's "oversubscription", or empty.
std::string oversubscription_warning(const nlohmann::json& metadata);
// What a table header warns of: oversubscription, and hosts whose clocks are off.
std::vector<std::string> metadata_warnings(const nlohmann::json& metadata);

// A GPU inventory as the metadata records it (per host, under "gpus").
nlohmann::json gpu_json(const GpuInventory& g);

// This CPU: model, kernel features, caches, the reduction kernels' path and, where
// asked, the memory bandwidth of a triad on this core (measured once per machine and
// boot, then cached: machine_facts.hpp).
nlohmann::json cpu_json(bool measure_bandwidth);

// Now, as "2026-11-29T05:40:00Z".
std::string utc_now();

// "0,2,5"
std::string join_ranks(const std::vector<int>& ranks);

}  // namespace collbench
