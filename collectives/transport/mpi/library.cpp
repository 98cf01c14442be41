#include "collectives/transport/mpi/library.hpp"

#include <mpi.h>

#include <cstdio>
#include <regex>
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

int version_number(const std::string& version) {
  int major = 0, minor = 0, patch = 0;
  if (std::sscanf(version.c_str(), "%d.%d.%d", &major, &minor, &patch) < 2) return 0;
  return major * 10000 + minor * 100 + patch;
}

}  // namespace

MpiLibrary parse_mpi_library(const std::string& text) {
  MpiLibrary l;
  std::smatch m;
  const std::string first_line = text.substr(0, text.find('\n'));
  if (std::string v = field(text, "MPICH Version:"); !v.empty()) {
    l.family = MpiFamily::mpich;
    l.name = "MPICH";
    l.version = v;
    l.device = field(text, "MPICH Device:");
    l.summary = "MPICH " + v + (l.device.empty() ? "" : " (" + l.device + ")");
  } else if (std::regex_search(first_line, m, std::regex(R"(^Open MPI v(\d+\.\d+(\.\d+)?))"))) {
    l.family = MpiFamily::open_mpi;
    l.name = "Open MPI";
    l.version = m[1];
    l.summary = "Open MPI " + l.version;
  } else {
    // Intel MPI, MVAPICH, Cray MPICH, ...: the first line names the library and version.
    l.summary = first_line;
    if (std::regex_search(first_line, m, std::regex(R"((\d+\.\d+(\.\d+)?))"))) l.version = m[1];
    l.name = first_line.substr(0, m.empty() ? first_line.size() : static_cast<std::size_t>(m.position(0)));
    l.name = std::regex_replace(l.name, std::regex(R"([\s:,]*(Version)?[\s:,]*v?$)"), "");
  }
  l.version_number = version_number(l.version);
  return l;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string v(text, static_cast<std::size_t>(len));
  // Open MPI counts the terminating NUL in len, MPICH ends with newlines.
  while (!v.empty() && (v.back() == '\0' || v.back() == '\n' || v.back() == ' ')) v.pop_back();
  return v;
}

const MpiLibrary& mpi_library() {
  static const MpiLibrary l = parse_mpi_library(mpi_library_version());
  return l;
}

}  // namespace collbench
