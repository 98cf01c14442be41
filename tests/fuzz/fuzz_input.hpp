#pragma once
// What every fuzz target shares: the input as a file (the readers read paths, as a user
// gives them), and the one outcome a bad input may have besides success: a refusal that
// the command line turns into one message and exit status 2 (std::invalid_argument,
// RunError). Any other exception escapes, and the fuzzer reports it as a crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include "harness/common/run_error.hpp"

namespace collbench::fuzz {

// A file of this process's own under /dev/shm (or $TMPDIR) holding the bytes, named
// with `suffix` (readers choose by it: ".csv"); rewritten on every call, removed when the
// process exits (/dev/shm outlives it: every replay of the corpora left files there).
inline std::string as_file(const std::uint8_t* data, std::size_t size, const std::string& suffix) {
  static const std::string dir = [] {
    const char* t = std::getenv("TMPDIR");
    return access("/dev/shm", W_OK) == 0 ? std::string("/dev/shm") : std::string(t ? t : "/tmp");
  }();
  struct RemovedAtExit {
    std::set<std::string> paths;
    ~RemovedAtExit() {
      for (const auto& p : paths) std::remove(p.c_str());
    }
  };
  static RemovedAtExit written;
  const std::string path = dir + "/collbench-fuzz-" + std::to_string(getpid()) + suffix;
  written.paths.insert(path);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                 static_cast<std::streamsize>(size));
  return path;
}

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs `read`; a refusal is a correct outcome for a bad input.
template <class F>
void refusals_allowed(F&& read) {
  try {
    read();
  } catch (const std::invalid_argument&) {
  } catch (const RunError&) {
  }
}

}  // namespace collbench::fuzz
