#include "collectives/transport/memory_space.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "collectives/kernels/reduce_kernels.hpp"

namespace collbench {
namespace {

class HostSpace final : public MemorySpace {
 public:
  MemoryKind kind() const override { return MemoryKind::host; }
  std::string_view name() const override { return "host"; }
  OwnedBuffer allocate(std::size_t bytes) override {
    constexpr std::align_val_t kPage{4096};
    auto* p = static_cast<std::byte*>(::operator new(std::max<std::size_t>(bytes, 1), kPage));
    std::memset(p, 0, bytes);
    return {p, bytes, [kPage](std::byte* q, std::size_t) { ::operator delete(q, kPage); }};
  }
  OwnedBuffer allocate_staging(std::size_t bytes) override { return allocate(bytes); }
  void copy_in(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void copy_out(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void reduce(DType t, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count) override {
    collbench::reduce(t, op, dst, a, b, count);
  }
  void copy(void* dst, const void* src, std::size_t bytes) override { std::memmove(dst, src, bytes); }
  void synchronize() override {}
  std::uint64_t mark() override { return 0; }  // everything is done at once
  bool reached(std::uint64_t) override { return true; }
};

}  // namespace

MemorySpace& host_space() {
  static HostSpace space;
  return space;
}

}  // namespace collbench
