#pragma once
// Who returned wrong results in a sweep. Every algorithm, the MPI library's own
// included, is checked against exact values, so the rows with errors are the guilty.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace collbench {

// Wrong elements per algorithm over a whole sweep (all sizes, ranks and checked calls).
struct SweepErrors {
  struct Algorithm {
    std::string name;      // as in the rows
    bool library = false;  // the MPI library's own collective
    std::int64_t wrong = 0;
  };
  std::vector<Algorithm> algorithms;
  std::int64_t total() const;
  // Who returned wrong results, e.g. "the MPI library returned wrong results: ...";
  // empty when none did. `library_call` names the library function, e.g. MPI_Allreduce.
  std::string blame(std::string_view library_call) const;
};

}  // namespace collbench
