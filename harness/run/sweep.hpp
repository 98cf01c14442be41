#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/common/result_sink.hpp"
#include "harness/common/session.hpp"
#include "harness/run/run_options.hpp"

namespace collbench {

// Wrong elements per algorithm over a whole sweep (all sizes, ranks and checked calls).
struct SweepErrors {
  struct Algorithm {
    std::string name;  // as in the rows
    bool library = false;  // the MPI library's own collective
    std::int64_t wrong = 0;
  };
  std::vector<Algorithm> algorithms;
  std::int64_t total() const;
  // Who returned wrong results, e.g. "the MPI library returned wrong results: ...";
  // empty when none did. `library_call` names the library function, e.g. MPI_Allreduce.
  std::string blame(std::string_view library_call) const;
};

// Runs the validated sweep. Collective over the session's ranks; rows go to `sink`
// as each size is measured (rank 0). Returns the wrong elements found (all 0 when the
// spec does not check), on every rank.
SweepErrors run_sweep(const SweepSpec& spec, Session& session, ResultSink& sink);

}  // namespace collbench
