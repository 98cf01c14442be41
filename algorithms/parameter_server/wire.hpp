#pragma once
// The parameter server's messages. A worker's request header says what follows on
// the data tag; a server's reply header carries a status and, on error, the text.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace collbench::ps_wire {

enum Tag : int { kRequest = 100, kRequestData = 101, kReply = 102, kReplyData = 103 };
enum class Kind : std::int32_t { hello, push, pull, finish, abort };

struct Request {
  Kind kind = Kind::hello;
  std::int32_t unused = 0;
  std::int64_t clock = 0;  // push/pull: steps pushed so far; finish: pushes sent to this server
  std::int64_t bytes = 0;  // the message that follows on kRequestData (sparse rows, text)
};

struct Reply {
  std::int32_t status = 0;  // 0: fine; otherwise `text` says what went wrong
  std::int32_t unused = 0;
  std::int64_t staleness = 0;
  std::int64_t wait_ns = 0;
  char text[232] = {};
};
constexpr std::size_t kReplyFixedBytes = offsetof(Reply, text);
inline std::size_t reply_bytes(const Reply& r) { return r.status ? sizeof(Reply) : kReplyFixedBytes; }
inline void set_error(Reply& r, std::string_view text) {
  r.status = text.empty() ? 0 : 1;
  const std::size_t n = std::min(text.size(), sizeof r.text - 1);
  std::memcpy(r.text, text.data(), n);
  r.text[n] = '\0';
}

// Sparse rows for one server: a count per sparse tensor, the row indices, then (for a
// push and a pull's answer) the rows' values.
inline std::size_t sparse_counts_bytes(std::size_t sparse_tensors) { return sparse_tensors * sizeof(std::uint64_t); }

template <class T>
T* at(std::byte* base, std::size_t offset) {
  return reinterpret_cast<T*>(base + offset);
}

}  // namespace collbench::ps_wire
