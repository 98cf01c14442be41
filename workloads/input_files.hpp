#pragma once
// Every file a run reads (a workload, a compute profile) is read through here: once,
// kept for later reads (so a run never sees two versions of a file), and digested, so
// that main can compare every rank's inputs as it compares the command line, before
// anything runs. Per-node copies of a file that differ then end every rank with one
// message instead of a hang inside MPI.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace collbench {

inline constexpr std::size_t kMaxInputFileBytes = std::size_t{64} << 20;

// The file's bytes; throws std::invalid_argument "WHAT PATH: cannot read: WHY".
const std::string& read_input_file(const std::string& path, const std::string& what);

// Forgets every file read so far: for a process that reads many inputs in turn under
// one name (a fuzzer), where a run reads each once.
void forget_input_files();

// Every file read so far, in order, one "path<TAB>bytes or !error<TAB>digest" line each.
std::string input_files_summary();

// Given every rank's summary (in rank order): a message naming the first file that
// differs and two ranks that disagree on it, or "" when all agree.
std::string input_files_disagreement(const std::vector<std::string>& summaries);

}  // namespace collbench
