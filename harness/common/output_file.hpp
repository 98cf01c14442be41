#pragma once
// One output file, written under one discipline for every command.
//
// A regular file (or a name not yet taken) is built in an unnamed temporary in the
// same directory and appears under its name only at publish(): complete, never half
// written, and replacing an existing file only when asked. Later writes change that
// same file in place. Anything else (a character device such as /dev/null or
// /dev/full, a FIFO, a terminal) is opened as it is and written through, never
// replaced. Every write is checked; a failed one throws OutputError.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collbench {

struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The name was free when looked at, but another process took it before publish().
struct OutputNameTaken : OutputError {
  using OutputError::OutputError;
};

// What to do when the path already holds a regular file with something in it.
enum class ExistingFile { refuse, replace };

// What a path is, following symlinks: where the bytes will really go.
struct OutputTarget {
  std::string path;      // as given
  std::string resolved;  // symlinks followed; the file that is written
  bool exists = false;
  bool regular = true;    // a regular file or a new name (not a device, FIFO, ...)
  bool nonempty = false;  // an existing regular file that holds data
  bool character_device = false;
  std::uint64_t device = 0, inode = 0;  // when it exists
};
// Throws OutputError naming `what` for a directory or an unresolvable path.
OutputTarget inspect_output(const std::string& path, const std::string& what = "output");
// Throws OutputError when a regular target's directory cannot be written, or when it
// holds data and `existing` says refuse (devices and FIFOs pass: opening them says).
void require_writable(const OutputTarget& t, ExistingFile existing, const std::string& what);
// True when two targets are the same file (same name once resolved, or same inode).
bool same_output(const OutputTarget& a, const OutputTarget& b);

class OutputFile {
 public:
  // Opens a device or FIFO as it is; for a regular file or a new name creates the
  // temporary. An existing non-empty regular file is refused unless `existing` says
  // replace. Throws OutputError naming `what` and the path.
  OutputFile(const std::string& path, ExistingFile existing, const std::string& what);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Gives the regular file its name (a no-op for devices and FIFOs). A new name is
  // linked, so a file another process created meanwhile is never clobbered.
  void publish();
  const std::string& path() const { return path_; }
  bool in_place() const { return in_place_; }  // regular: write_at and truncate work
  std::uint64_t size() const { return size_; }
  void append(std::string_view bytes);
  void write_at(std::uint64_t offset, std::string_view bytes);  // in place only
  void truncate(std::uint64_t size);                            // in place only

 private:
  [[noreturn]] void fail(int err) const;
  std::string path_, resolved_, what_, temp_name_;
  ExistingFile existing_;
  int fd_ = -1;
  bool in_place_ = false, published_ = false;
  std::uint64_t size_ = 0;
};

}  // namespace collbench
