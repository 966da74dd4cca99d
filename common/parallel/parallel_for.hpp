// SPDX-License-Identifier: BSD-2-Clause
// Parallel loops for every layer (the CPU DWT, the GPU queues' host copies, the pipeline's
// stages, the codec, the image readers): the worker pool of worker_pool.hpp (threads that
// sleep while idle) behind a thread-count setting.
#pragma once
#include <cstddef>

#include "common/parallel/worker_pool.hpp"

namespace j2k {

// Worker threads for a `threads` setting: 0 or less means one per core this process may use.
inline int worker_count(int threads) { return threads > 0 ? threads : available_cores(); }

// Threads for copying `bytes` on the host: one below 256 KB, where waking a team costs more
// than the copy (a tile-component of a small image, a 1-pixel strip).
inline int copy_threads(size_t bytes, int threads) { return bytes < (size_t{256} << 10) ? 1 : threads; }

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
