#pragma once
#include <cstddef>
#include <span>
#include <string_view>

namespace collbench {

struct Message {
  int peer = 0;
  std::byte* data = nullptr;
  std::size_t bytes = 0;
};

// Moves bytes between ranks, one schedule step at a time.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string_view name() const = 0;
  // Posts every receive and send of one step, then waits for all of them.
  // Messages between the same pair of ranks are matched in posting order.
  virtual void exchange(std::span<const Message> sends, std::span<const Message> recvs) = 0;
};

}  // namespace collbench
