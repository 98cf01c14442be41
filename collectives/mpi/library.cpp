#include "collectives/mpi/library.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace collbench {
namespace {

// The value after "KEY" on the line that starts with it, or "".
std::string field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) {
      std::string v = line.substr(key.size());
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "";
}

}  // namespace

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

std::string mpi_library_summary() {
  const std::string v = mpi_library_version();
  const std::string mpich = field(v, "MPICH Version:");
  if (!mpich.empty()) {
    const std::string device = field(v, "MPICH Device:");
    return "MPICH " + mpich + (device.empty() ? "" : " (" + device + ")");
  }
  return v.substr(0, v.find('\n'));
}

int mpich_version_number() {
  int major = 0, minor = 0, patch = 0;
  if (std::sscanf(field(mpi_library_version(), "MPICH Version:").c_str(), "%d.%d.%d", &major, &minor, &patch) < 2)
    return 0;
  return major * 10000 + minor * 100 + patch;
}

std::string mpich_algorithm_variable(Collective c) { return std::string(traits(c).mpich_algorithm_cvar); }

std::string mpich_forced_algorithm(Collective c) {
  const char* v = std::getenv(mpich_algorithm_variable(c).c_str());
  if (!v || !*v || std::string(v) == "auto") return "";
  return v;
}

std::string mpi_baseline_row_name(Collective c) {
  const std::string forced = mpich_forced_algorithm(c);
  return forced.empty() ? "mpi" : "mpi[" + forced + "]";
}

}  // namespace collbench
