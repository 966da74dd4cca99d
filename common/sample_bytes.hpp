// A byte vector whose resize() leaves the new bytes as they are: for buffers of decoded
// samples that are filled right after, in parallel, so that neither a serial zero-fill nor
// the first touch of each page runs on one thread ahead of the real work. A buffer of 2 MiB
// or more is aligned to 2 MiB and asks Linux for transparent huge pages, as the coefficient
// buffers do (transform/queue.cpp): a fault per 4 KiB page costs as much as writing it.
#pragma once
#include <sys/mman.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace j2k {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  // resize(n) default-initialises: for bytes, nothing is written.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  static constexpr size_t kHugePage = size_t{2} << 20;
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>::allocate(n);
    void* p = std::aligned_alloc(kHugePage, (bytes + kHugePage - 1) / kHugePage * kHugePage);
    if (p == nullptr) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
    madvise(p, bytes, MADV_HUGEPAGE);  // a hint: where refused, 4 KiB pages
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHugePage) std::allocator<T>::deallocate(p, n);
    else std::free(p);
  }
};

using SampleBytes = std::vector<unsigned char, DefaultInitAllocator<unsigned char>>;

}  // namespace j2k
