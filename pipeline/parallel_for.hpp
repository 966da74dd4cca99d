// A parallel loop over independent items for the pipeline's stages (OpenMP when built with
// it). The first exception thrown by an item is rethrown after the loop, since an exception
// may not leave an OpenMP region.
#pragma once
#include <cstddef>
#include <exception>
#include <mutex>

#ifdef J2K_HAVE_OPENMP
#include <omp.h>
#endif

namespace j2k {

template <class Fn>
void parallel_for(ptrdiff_t count, int threads, Fn fn) {
  std::exception_ptr error;
  std::mutex error_mutex;
#ifdef J2K_HAVE_OPENMP
  const int n = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic) num_threads(n) if (count > 1 && n > 1)
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

inline int worker_count(int threads) {
#ifdef J2K_HAVE_OPENMP
  return threads > 0 ? threads : omp_get_max_threads();
#else
  (void)threads;
  return 1;
#endif
}

}  // namespace j2k
