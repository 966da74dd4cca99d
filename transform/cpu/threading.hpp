// CPU threading shared by the CPU DWT and the pipeline's stages (OpenMP when built with it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>

#include "j2kfront/config.h"

#if J2KFRONT_HAVE_OPENMP
#include <omp.h>
#endif

namespace j2k {

// Worker threads for a `threads` setting: 0 or less means OpenMP's default.
inline int worker_count(int threads) {
#if J2KFRONT_HAVE_OPENMP
  return threads > 0 ? threads : omp_get_max_threads();
#else
  (void)threads;
  return 1;
#endif
}

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

// A parallel loop over independent items. The first exception thrown by an item is
// rethrown after the loop, since an exception may not leave an OpenMP region.
template <class Fn>
void parallel_for(ptrdiff_t count, int threads, Fn fn) {
  std::exception_ptr error;
  std::mutex error_mutex;
  const int n = worker_count(threads);
  if (count <= 1 || n <= 1) {  // no OpenMP region at all: one costs microseconds even on one thread
    for (ptrdiff_t i = 0; i < count; ++i) fn(i);
    return;
  }
#if J2KFRONT_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic) num_threads(n)
#endif
  for (ptrdiff_t i = 0; i < count; ++i) {
    try {
      fn(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace j2k
