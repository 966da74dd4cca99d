// SPDX-License-Identifier: BSD-2-Clause
// A byte vector whose resize() leaves the new bytes as they are: for buffers of decoded
// samples that are filled right after, in parallel, so that neither a serial zero-fill nor
// the first touch of each page runs on one thread ahead of the real work. No huge-page hint,
// as for the coefficient buffers (transform/queue.cpp says why).
#pragma once
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
};

using SampleBytes = std::vector<unsigned char, DefaultInitAllocator<unsigned char>>;

}  // namespace j2k
