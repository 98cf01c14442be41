#pragma once
// The measurements `collbench tune` chooses from: the rows of the MPI library's default
// (mpi) and forced algorithms (mpi[NAME]) in collbench JSON results, one launch round a
// file. Anything else in a file (not JSON, fields of the wrong type, another library's
// measurements) is refused with RunError naming the file.
#include <string>
#include <vector>

#include "harness/tune/tune_choice.hpp"

namespace collbench {

struct TuneResults {
  std::vector<TuneMeasurement> rows;
  std::vector<std::string> notes;  // where each file's runs came from
  std::size_t element_bytes = 0;
};
TuneResults read_tune_results(const std::vector<std::string>& paths);

// A whole file (results, tuning files); throws RunError "cannot read WHAT PATH".
std::string read_whole_file(const std::string& path, const char* what);

}  // namespace collbench
