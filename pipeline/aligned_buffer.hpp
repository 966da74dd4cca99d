// SPDX-License-Identifier: BSD-2-Clause
// A 64-byte aligned host buffer that the row stages (row_back_stage, row_front_stage) own, and
// a slab: many buffers carved out of one allocation, on huge pages where asked.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/memory_pages.hpp"

namespace j2k {

// `populate`: its pages mapped before it is filled, on `threads` workers, the threads that
// fill it (common/memory_pages.hpp).
struct AlignedBuffer {
  void* p = nullptr;
  size_t size = 0;  // bytes allocated: the bytes asked for, to a multiple of 64
  AlignedBuffer(size_t bytes, const char* what, bool populate = false, int threads = 1)
      : size(std::max<size_t>((bytes + 63) / 64 * 64, 64)) {
    p = std::aligned_alloc(64, size);
    if (!p) throw Error(ErrorCode::OutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes for " + what);
    if (populate) populate_pages(p, size, threads);
  }
  PageRange pages() const { return {p, size}; }
  ~AlignedBuffer() { std::free(p); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
};

// Buffers of the given sizes, each at a page (4 KiB) boundary of one allocation, in the order
// asked: one allocation instead of dozens, and no two buffers on one page. `huge` (where
// huge_pages_wanted()): from 2 MiB on, 2 MiB-aligned, a whole number of huge pages, which the
// kernel is asked for (advise_huge_pages): a row stage's buffers are mostly under 2 MiB each
// (a 4096^2 RGB decode's back stage has 9 of 1.5 MiB and 9 of 0.75 MiB), too small for huge
// pages of their own.
class BufferSlab {
 public:
  struct Piece {
    void* p;
    size_t size;
  };
  static constexpr size_t kAlign = 4096;
  // The bytes a slab of these sizes allocates.
  static size_t bytes(const std::vector<size_t>& sizes, bool huge) {
    size_t n = 0;
    for (size_t s : sizes) n += round_up(std::max<size_t>(s, 1), kAlign);
    return huge && huge_pages_wanted() && n >= kHugePage ? round_up(n, kHugePage) : n;
  }
  BufferSlab(const std::vector<size_t>& sizes, const char* what, bool huge) : size_(bytes(sizes, huge)) {
    const bool in_huge_pages = huge && huge_pages_wanted() && size_ % kHugePage == 0;
    p_ = std::aligned_alloc(in_huge_pages ? kHugePage : kAlign, size_);
    if (!p_) throw Error(ErrorCode::OutOfMemory, "cannot allocate " + std::to_string(size_) + " bytes for " + what);
    if (in_huge_pages) advise_huge_pages(p_, size_);
    char* at = static_cast<char*>(p_);
    for (size_t s : sizes) {
      pieces_.push_back({at, s});
      at += round_up(std::max<size_t>(s, 1), kAlign);
    }
  }
  ~BufferSlab() { std::free(p_); }
  BufferSlab(const BufferSlab&) = delete;
  BufferSlab& operator=(const BufferSlab&) = delete;
  const Piece& operator[](size_t i) const { return pieces_[i]; }
  PageRange pages() const { return {p_, size_}; }

 private:
  static size_t round_up(size_t n, size_t unit) { return (n + unit - 1) / unit * unit; }
  void* p_ = nullptr;
  size_t size_ = 0;
  std::vector<Piece> pieces_;
};

}  // namespace j2k
