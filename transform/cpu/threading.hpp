// SPDX-License-Identifier: BSD-2-Clause
// CPU threading shared by the CPU DWT, the pipeline's stages and the readers: the worker
// pool of worker_pool.hpp (threads that sleep while idle) behind a thread-count setting.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "transform/cpu/worker_pool.hpp"

namespace j2k {

// Worker threads for a `threads` setting: 0 or less means one per core this process may use.
inline int worker_count(int threads) { return threads > 0 ? threads : available_cores(); }

// Threads for copying `bytes` on the host: one below 256 KB, where waking a team costs more
// than the copy (a tile-component of a small image, a 1-pixel strip).
inline int copy_threads(size_t bytes, int threads) { return bytes < (size_t{256} << 10) ? 1 : threads; }

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

// A parallel loop over independent items on worker_count(threads) workers (see
// run_on_workers: dynamic scheduling, the first exception rethrown after the loop).
template <class Fn>
void parallel_for(ptrdiff_t count, int threads, Fn fn) {
  const int n = worker_count(threads);
  if (count <= 1 || n <= 1) {  // no pool at all: waking a worker costs microseconds
    for (ptrdiff_t i = 0; i < count; ++i) fn(i);
    return;
  }
  run_on_workers(count, n, [&](ptrdiff_t i, int) { fn(i); });
}

}  // namespace j2k
