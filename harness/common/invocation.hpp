#pragma once
// How collbench was started: what every command's run function receives. Every rank
// parses the same command line; rank 0 alone speaks.
#include <mpi.h>

#include <cstdint>
#include <string>

#include "collectives/schedule/registry.hpp"
#include "harness/common/result_sink.hpp"
#include "harness/common/run_error.hpp"

namespace collbench {

struct Invocation {
  int argc = 0;
  const char* const* argv = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;
  const Registry* registry = nullptr;
  int rank = 0, size = 1;
};

// Runs a command's measurements; a RunError (which every rank throws alike) first
// marks the JSON stopped and makes rank 0 say where the rows measured so far are.
template <class Measure>
std::int64_t measure_keeping_results(const Invocation& inv, ResultSink& sink, Measure measure) {
  try {
    return measure();
  } catch (const RunError& e) {
    sink.finish(e.what());
    if (inv.rank == 0) sink.print_paths("results so far");
    throw;
  }
}

// Marks the JSON completed; rank 0 names where the results went and, if any, how
// many elements were wrong and (`blame`) who returned them. Returns the exit status:
// 0, or kExitWrongResults when wrong elements were found.
int finish_run(const Invocation& inv, ResultSink& sink, std::int64_t wrong, const std::string& blame = "");

}  // namespace collbench
