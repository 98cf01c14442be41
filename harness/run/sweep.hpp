#pragma once
#include <mpi.h>

#include "collectives/mpi/transport.hpp"
#include "harness/command_line.hpp"
#include "harness/common/topology.hpp"
#include "harness/common/writers.hpp"

namespace collbench {

// Where rank 0 puts results; the other ranks pass nullptrs.
struct Outputs {
  CsvWriter* csv = nullptr;
  JsonWriter* json = nullptr;
};

// Runs the validated sweep. Collective over the transport's ranks; rank 0 prints the
// table and writes each size's rows as soon as they are measured. Returns the total
// number of wrong elements found (0 when --no-check).
std::int64_t run_sweep(const RunOptions& o, const Registry& registry, MpiTransport& transport, MPI_Comm comm,
                       Outputs out, const Topology& topology = {});

}  // namespace collbench
