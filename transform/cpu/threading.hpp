// CPU threading shared by the CPU DWT and the pipeline's stages (OpenMP when built with it).
#pragma once
#include <cstddef>
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

// Threads for copying `bytes` on the host: one below 4 MB, where waking a team costs more than
// the copy (a tile-component of a small image, a 1-pixel strip).
inline int copy_threads(size_t bytes, int threads) { return bytes < (size_t{4} << 20) ? 1 : threads; }

// A parallel loop over independent items. The first exception thrown by an item is
// rethrown after the loop, since an exception may not leave an OpenMP region.
template <class Fn>
void parallel_for(ptrdiff_t count, int threads, Fn fn) {
  std::exception_ptr error;
  std::mutex error_mutex;
  const int n = worker_count(threads);
#if J2KFRONT_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic) num_threads(n) if (count > 1 && n > 1)
#else
  (void)n;
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
