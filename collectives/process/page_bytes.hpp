#pragma once
// Byte buffers that start on a page boundary, as OSU's and nccl-tests' buffers do.
// Where a buffer starts changes how fast MPI copies it (results/README.md, "Figures
// from earlier code comments").
#include <cstddef>
#include <new>
#include <vector>

namespace collbench {

template <class T>
struct PageAllocator {
  static constexpr std::align_val_t kPage{4096};
  using value_type = T;
  PageAllocator() = default;
  template <class U>
  PageAllocator(const PageAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kPage)); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, kPage); }
  bool operator==(const PageAllocator&) const { return true; }
};

using PageBytes = std::vector<std::byte, PageAllocator<std::byte>>;

}  // namespace collbench
