// SPDX-License-Identifier: BSD-2-Clause
#include "common/parallel/worker_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include <sched.h>

#include "common/error.hpp"

namespace j2k {
namespace {

// Before sleeping, a worker waits this long for more work, and a caller this long for its
// helpers, spinning: the passes of a DWT come back to back, and waking a sleeping thread costs
// about as much as a small pass. Idle for longer, they sleep.
constexpr auto kSpin = std::chrono::microseconds(50);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until ready() or kSpin has passed; returns ready().
template <class Ready>
bool spin_until(Ready ready) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0; !ready(); ++i) {
    if ((i & 63) == 0 && std::chrono::steady_clock::now() >= until) return ready();
    cpu_relax();
  }
  return true;
}

// One run: its items, claimed through `next` by the caller (worker 0) and by helpers.
struct Job {
  const ItemFn* fn = nullptr;
  ptrdiff_t count = 0;
  int helpers_wanted = 0;  // threads - 1
  std::atomic<ptrdiff_t> next{0};
  int joined = 0;          // helpers that took a worker index (under the pool's mutex)
  std::atomic<int> active{0};  // helpers in work() (changed under the pool's mutex)
  Job* later = nullptr;    // the next run waiting for helpers (under the pool's mutex)
  std::condition_variable helpers_done;
  std::mutex error_mutex;
  std::exception_ptr error;

  void work(int worker) {
    for (ptrdiff_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      try {
        (*fn)(i, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(count);  // the items not started are skipped
      }
    }
  }
};

class Pool {
 public:
  void run(Job& job) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (static_cast<int>(threads_) < job.helpers_wanted) {
        std::thread(&Pool::serve, this).detach();  // lives as long as the process
        ++threads_;
      }
      Job** end = &waiting_;  // a list in the caller's jobs: queueing allocates nothing
      while (*end != nullptr) end = &(*end)->later;
      *end = &job;
      has_waiting_.store(true, std::memory_order_relaxed);
    }
    for (int i = 0; i < job.helpers_wanted; ++i) wake_.notify_one();
    job.work(0);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      unlink(&job);  // no helper joins it any more: `active` only goes down from here
    }
    spin_until([&] { return job.active.load(std::memory_order_acquire) == 0; });
    // Under the mutex even when the spin saw the helpers done: the last one notifies under it,
    // and the job (on this stack) must outlive that.
    std::unique_lock<std::mutex> lock(mutex_);
    job.helpers_done.wait(lock, [&] { return job.active.load() == 0; });
  }

  int threads() {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int>(threads_);
  }

 private:
  // A helper: sleeps until a run wants help, takes the next worker index of the oldest such
  // run, works on it until its items are claimed, and sleeps again.
  void serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (waiting_ == nullptr) {
        lock.unlock();
        spin_until([&] { return has_waiting_.load(std::memory_order_relaxed); });
        lock.lock();
      }
      wake_.wait(lock, [&] { return waiting_ != nullptr; });
      Job* job = waiting_;
      const int worker = ++job->joined;
      if (job->joined == job->helpers_wanted) unlink(job);
      ++job->active;
      lock.unlock();
      job->work(worker);
      lock.lock();
      if (job->active.fetch_sub(1, std::memory_order_release) == 1) job->helpers_done.notify_all();
    }
  }

  // Takes `job` out of the waiting list, if it is there (under the mutex).
  void unlink(Job* job) {
    for (Job** at = &waiting_; *at != nullptr; at = &(*at)->later)
      if (*at == job) {
        *at = job->later;
        job->later = nullptr;
        has_waiting_.store(waiting_ != nullptr, std::memory_order_relaxed);
        return;
      }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  Job* waiting_ = nullptr;  // runs that still take helpers, oldest first
  std::atomic<bool> has_waiting_{false};  // waiting_ != nullptr, for the spin without the mutex
  size_t threads_ = 0;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: its detached threads may outlive static destructors
  return *p;
}


thread_local const j2k_thread_pool* t_external = nullptr;  // ScopedThreadPool's

// A run handed to an embedder's pool: its items go through on_item, which keeps exceptions
// out of the embedder's frames and checks what the pool hands out.
struct ExternalRun {
  ExternalRun(const ItemFn* f, const j2k_thread_pool* p, int w) : fn(f), pool(p), workers(w) {}
  const ItemFn* fn;
  const j2k_thread_pool* pool;
  int workers;
  std::atomic<ptrdiff_t> done{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::exception_ptr error;

  static void on_item(void* arg, size_t item, int worker) {
    auto* r = static_cast<ExternalRun*>(arg);
    if (r->failed.load(std::memory_order_relaxed)) return;  // skipped after a failure
    try {
      if (worker < 0 || worker >= r->workers)
        throw Error(ErrorCode::InvalidArgument, "the embedder's thread pool gave worker index " +
                                                    std::to_string(worker) + ", outside 0.." +
                                                    std::to_string(r->workers - 1));
      const ScopedThreadPool nested(*r->pool);
      (*r->fn)(static_cast<ptrdiff_t>(item), worker);
      r->done.fetch_add(1, std::memory_order_relaxed);
    } catch (...) {
      std::lock_guard<std::mutex> lock(r->error_mutex);
      if (!r->error) r->error = std::current_exception();
      r->failed.store(true);
    }
  }
};

}  // namespace

ScopedThreadPool::ScopedThreadPool(const j2k_thread_pool& pool) : previous_(t_external) {
  if (pool.run != nullptr) t_external = &pool;
}
ScopedThreadPool::~ScopedThreadPool() { t_external = previous_; }

void run_on_workers(ptrdiff_t count, int threads, ItemFn fn) {
  if (count <= 1 || threads <= 1) {
    for (ptrdiff_t i = 0; i < count; ++i) fn(i, 0);
    return;
  }
  if (t_external != nullptr) {
    ExternalRun r(&fn, t_external, static_cast<int>(std::min<ptrdiff_t>(threads, count)));
    t_external->run(t_external->context, static_cast<size_t>(count), r.workers, ExternalRun::on_item, &r);
    if (r.error) std::rethrow_exception(r.error);
    if (r.done.load() != count)
      throw Error(ErrorCode::InvalidArgument, "the embedder's thread pool ran " + std::to_string(r.done.load()) +
                                                  " of " + std::to_string(count) + " items");
    return;
  }
  Job job;
  job.fn = &fn;
  job.count = count;
  job.helpers_wanted = static_cast<int>(std::min<ptrdiff_t>(threads, count)) - 1;
  pool().run(job);
  if (job.error) std::rethrow_exception(job.error);
}

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

int pool_threads() { return pool().threads(); }

}  // namespace j2k
