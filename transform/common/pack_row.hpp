// SPDX-License-Identifier: BSD-2-Clause
// Host copies of sample rows into packed staging (the GPU queues' pinned buffers): typed
// loads for strided samples, one memcpy for packed ones.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace j2k {

// One row of n samples of `size` bytes, `step` bytes apart in `src`, packed into `dst`.
inline void pack_row(unsigned char* dst, const unsigned char* src, int64_t n, size_t size, ptrdiff_t step) {
  if (step == static_cast<ptrdiff_t>(size)) {
    std::memcpy(dst, src, static_cast<size_t>(n) * size);
    return;
  }
  auto gather = [&](auto sample) {  // typed loads: one move per sample, not a call
    using T = decltype(sample);
    T* d = reinterpret_cast<T*>(dst);
    for (int64_t x = 0; x < n; ++x) std::memcpy(d + x, src + x * step, sizeof(T));
  };
  if (size == 1) gather(uint8_t{});
  else if (size == 2) gather(uint16_t{});
  else gather(uint32_t{});
}

}  // namespace j2k
