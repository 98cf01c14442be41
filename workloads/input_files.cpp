#include "workloads/input_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "collectives/process/fnv1a.hpp"

namespace collbench {
namespace {

struct InputFile {
  std::string content, error;
  std::uint64_t digest = 0;
};

std::mutex g_mutex;
std::map<std::string, InputFile> g_files;
std::vector<std::string> g_order;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// "read 27 bytes (digest 0123...)" or "could not read it (No such file or directory)".
std::string describe(const std::string& line) {
  const auto a = line.find('\t'), b = line.rfind('\t');
  const std::string size = line.substr(a + 1, b - a - 1);
  if (size.starts_with("!")) return "could not read it (" + size.substr(1) + ")";
  return "read " + size + " bytes (FNV-1a " + line.substr(b + 1) + ")";
}

// Reads at most kMaxInputFileBytes (a device such as /dev/zero must not read forever).
std::string read_whole(const std::string& path, std::string& content) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return "it is a directory";
  }
  std::string error;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error = std::strerror(errno);
    if (n <= 0) break;
    content.append(buf, static_cast<std::size_t>(n));
    if (content.size() > kMaxInputFileBytes) {
      error =
          "larger than " + std::to_string(kMaxInputFileBytes >> 20) + " MiB, more than any workload or profile needs";
      break;
    }
  }
  close(fd);
  if (!error.empty()) content.clear();
  return error;
}

}  // namespace

const std::string& read_input_file(const std::string& path, const std::string& what) {
  std::lock_guard lock(g_mutex);
  auto [it, added] = g_files.try_emplace(path);
  InputFile& f = it->second;
  if (added) {
    g_order.push_back(path);
    f.error = read_whole(path, f.content);
    f.digest = fnv1a(f.content);
  }
  if (!f.error.empty()) throw std::invalid_argument(what + " " + path + ": cannot read: " + f.error);
  return f.content;
}

void forget_input_files() {
  std::lock_guard lock(g_mutex);
  g_files.clear();
  g_order.clear();
}

std::string input_files_summary() {
  std::lock_guard lock(g_mutex);
  std::string out;
  for (const std::string& path : g_order) {
    const InputFile& f = g_files.at(path);
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(f.digest));
    out += path + "\t" + (f.error.empty() ? std::to_string(f.content.size()) : "!" + f.error) + "\t" + digest + "\n";
  }
  return out;
}

std::string input_files_disagreement(const std::vector<std::string>& summaries) {
  if (summaries.empty()) return "";
  const std::vector<std::string> first = lines_of(summaries[0]);
  for (std::size_t r = 1; r < summaries.size(); ++r) {
    const std::vector<std::string> mine = lines_of(summaries[r]);
    for (std::size_t i = 0; i < std::max(first.size(), mine.size()); ++i) {
      if (i < first.size() && i < mine.size() && first[i] == mine[i]) continue;
      const std::string& any = i < first.size() ? first[i] : mine[i];
      const std::string path = any.substr(0, any.find('\t'));
      auto on = [&](const std::vector<std::string>& lines) {
        return i < lines.size() && lines[i].starts_with(path + "\t") ? describe(lines[i]) : "did not read it";
      };
      return "input file '" + path + "' differs between ranks: rank 0 " + on(first) + ", rank " + std::to_string(r) +
             " " + on(mine) + "; every rank must read the same file (check per-node copies)";
    }
  }
  return "";
}

}  // namespace collbench
