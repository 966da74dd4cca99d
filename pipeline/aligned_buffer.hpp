// SPDX-License-Identifier: BSD-2-Clause
// A 64-byte aligned host buffer that the row stages (row_back_stage, row_front_stage) own.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>

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

}  // namespace j2k
