#include "harness/common/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace collbench {
namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& what, const std::string& path) { return what + " '" + path + "'"; }

[[noreturn]] void refuse(const std::string& what, const std::string& path, const std::string& why) {
  throw OutputError("cannot write " + quoted(what, path) + ": " + why);
}

// The name a dangling symlink (chain) points at: where a new file would be created.
fs::path follow_dangling(fs::path p) {
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p)); ++hops) {
    const fs::path target = fs::read_symlink(p);
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return p;
}

std::string temp_name(const std::string& resolved) {
  static std::atomic<unsigned> counter{0};
  const fs::path p(resolved);
  return (p.parent_path() /
          ("." + p.filename().string() + ".collbench-" + std::to_string(getpid()) + "-" + std::to_string(counter++)))
      .string();
}

mode_t file_mode() {
  const mode_t mask = umask(0);  // only reads the mask: set back at once
  umask(mask);
  return 0666 & ~mask;
}

}  // namespace

OutputTarget inspect_output(const std::string& path, const std::string& what) {
  OutputTarget t;
  t.path = path;
  if (path.empty()) throw OutputError("the " + what + " path is empty");
  struct stat st {};
  std::error_code ec;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) refuse(what, path, "it is a directory");
    t.exists = true;
    t.regular = S_ISREG(st.st_mode);
    t.character_device = S_ISCHR(st.st_mode);
    t.nonempty = t.regular && st.st_size > 0;
    t.device = st.st_dev;
    t.inode = st.st_ino;
    // Devices keep their own name (/dev/stdout must not become /proc/self/fd/1's pipe).
    t.resolved = t.regular ? fs::canonical(path, ec).string() : path;
    if (ec) refuse(what, path, ec.message());
    return t;
  }
  if (errno != ENOENT) refuse(what, path, std::strerror(errno));
  t.resolved = fs::weakly_canonical(fs::absolute(follow_dangling(path), ec), ec).string();
  if (ec) refuse(what, path, ec.message());
  return t;
}

void require_writable(const OutputTarget& t, ExistingFile existing, const std::string& what) {
  if (!t.regular) return;  // a device or FIFO: opening it says
  const std::string dir = fs::path(t.resolved).parent_path().string();
  if (access(dir.empty() ? "." : dir.c_str(), W_OK | X_OK) != 0) refuse(what, t.path, std::strerror(errno));
  if (t.nonempty && existing == ExistingFile::refuse)
    refuse(what, t.path, "it already exists and holds data; give --overwrite to replace it, or another path");
}

bool same_output(const OutputTarget& a, const OutputTarget& b) {
  if (a.exists && b.exists) return a.device == b.device && a.inode == b.inode;
  return a.resolved == b.resolved;
}

OutputFile::OutputFile(const std::string& path, ExistingFile existing, const std::string& what)
    : path_(path), what_(what), existing_(existing) {
  const OutputTarget t = inspect_output(path, what);
  resolved_ = t.resolved;
  if (!t.regular) {
    // Non-blocking only to open: a FIFO nobody reads would otherwise wait forever.
    fd_ = open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0 && errno == ENXIO) refuse(what, path, "no process has this FIFO open for reading");
    if (fd_ < 0) fail(errno);
    fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    return;
  }
  require_writable(t, existing, what);
  in_place_ = true;
  const std::string dir = fs::path(resolved_).parent_path().string();
  fd_ = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, file_mode());
  if (fd_ >= 0) return;
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) fail(errno);
  // No unnamed temporaries on this file system: a named one, removed if unused.
  std::string name = temp_name(resolved_) + "-XXXXXX";
  fd_ = mkstemp(name.data());
  if (fd_ < 0) fail(errno);
  temp_name_ = name;
  fchmod(fd_, file_mode());
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) close(fd_);
  if (!published_ && !temp_name_.empty()) unlink(temp_name_.c_str());
}

void OutputFile::fail(int err) const { refuse(what_, path_, std::strerror(err)); }

void OutputFile::publish() {
  if (!in_place_ || published_) return;
  std::string from = temp_name_;
  const char* proc = nullptr;
  std::string proc_name;
  if (from.empty()) {
    proc_name = "/proc/self/fd/" + std::to_string(fd_);
    proc = proc_name.c_str();
  }
  auto link_to = [&](const std::string& to) {
    return proc ? linkat(AT_FDCWD, proc, AT_FDCWD, to.c_str(), AT_SYMLINK_FOLLOW) : link(from.c_str(), to.c_str());
  };
  auto done = [&] {
    if (!temp_name_.empty()) unlink(temp_name_.c_str());
    temp_name_.clear();
    published_ = true;
  };
  // A new name: linking fails rather than clobber a file created since we looked.
  if (link_to(resolved_) == 0) return done();
  const int err = errno;
  // A file system without hard links renames instead (a name taken meanwhile is then lost).
  const bool no_hard_links = !temp_name_.empty() && (err == EPERM || err == ENOTSUP || err == EMLINK);
  if (err == EEXIST) {
    struct stat st {};
    const bool empty_file = stat(resolved_.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
    if (existing_ != ExistingFile::replace && !empty_file)
      throw OutputNameTaken("cannot write " + quoted(what_, path_) +
                            ": another process created it meanwhile; give --overwrite to replace it, or another path");
  } else if (!no_hard_links) {
    fail(err);
  }
  // Replacing: rename is atomic, and the old file stays until then.
  if (from.empty()) {
    from = temp_name(resolved_);
    if (link_to(from) != 0) fail(errno);
    temp_name_ = from;
  }
  if (rename(from.c_str(), resolved_.c_str()) != 0) fail(errno);
  temp_name_.clear();
  published_ = true;
}

void OutputFile::write_at(std::uint64_t offset, std::string_view bytes) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = in_place_ ? pwrite(fd_, p, left, static_cast<off_t>(offset)) : write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : ENOSPC);
    p += n;
    left -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  size_ = std::max(size_, offset);
}

void OutputFile::append(std::string_view bytes) { write_at(size_, bytes); }

void OutputFile::truncate(std::uint64_t size) {
  if (!in_place_) return;
  if (ftruncate(fd_, static_cast<off_t>(size)) != 0) fail(errno);
  size_ = size;
}

}  // namespace collbench
