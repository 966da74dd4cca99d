// SPDX-License-Identifier: BSD-2-Clause
// The CPU backend's worker threads: one process-wide pool of threads that sleep on a condition
// variable while there is no work (after at most 50 us of spinning, so that back-to-back passes
// need no wake-up; an embedder's own threads and other processes keep their cores), started on
// first use and grown to the largest count asked for.
//
// A run deals `count` independent items to the calling thread and up to threads - 1 pool
// workers, each claiming the next unclaimed item as it finishes one (dynamic scheduling): a
// worker the operating system delays holds up at most the item it is on, not a share of the
// loop. Runs may be nested and may come from several threads at once: the caller always works
// on its own run, so it finishes even when every worker is busy elsewhere. Up to 16 runs in
// flight at once take workers; a run beyond those goes on its caller alone.
#pragma once
#include <cstddef>
#include <type_traits>

#include "j2kfront/j2kfront.h"

namespace j2k {

// fn(item, worker) for run_on_workers: a reference to the caller's callable, valid for the
// call (a plan runs without allocating, which std::function does not promise).
class ItemFn {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, ItemFn>>>
  ItemFn(F&& f)  // NOLINT: implicit, so that a lambda can be passed
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, ptrdiff_t i, int w) { (*static_cast<std::remove_reference_t<F>*>(o))(i, w); }) {}
  void operator()(ptrdiff_t item, int worker) const { call_(object_, item, worker); }

 private:
  void* object_;
  void (*call_)(void*, ptrdiff_t, int);
};

// Calls fn(item, worker) for every item in [0, count), where worker is in [0, threads) and no
// two calls at the same time share one (worker 0 is the caller), so that per-worker scratch
// can be indexed by it. Returns when every call has returned. When a call throws, the items
// not yet started are skipped and the first exception is rethrown once the calls in progress
// have returned. threads <= 1 or count <= 1: all on the calling thread.
void run_on_workers(ptrdiff_t count, int threads, ItemFn fn);

// While it lives, run_on_workers on this thread hands its items to `pool`, an embedder's
// j2k_thread_pool (and so do runs nested in those items, on whichever thread they run);
// a pool with no run function changes nothing. The library's entry points (Plan, Dwt) open
// one for the pool of their settings.
class ScopedThreadPool {
 public:
  explicit ScopedThreadPool(const j2k_thread_pool& pool);
  ~ScopedThreadPool();
  ScopedThreadPool(const ScopedThreadPool&) = delete;
  ScopedThreadPool& operator=(const ScopedThreadPool&) = delete;

 private:
  const j2k_thread_pool* previous_;
};

// The embedder's pool that this thread's runs go to (the innermost ScopedThreadPool's), or
// null: the library's own. A thread the library starts for part of a call opens a
// ScopedThreadPool with it, so that its runs go where the caller's do.
const j2k_thread_pool* scoped_thread_pool();

// The hardware threads this process may run on (its CPU affinity: taskset, cgroup cpusets),
// at least 1: the default worker count.
int available_cores();

// Threads in the pool now (for tests: it grows on demand, never beyond what runs asked for).
int pool_threads();

}  // namespace j2k
