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
  // Each counter on a cache line of its own, apart from what every item reads.
  alignas(64) std::atomic<ptrdiff_t> next{0};
  alignas(64) std::atomic<int> joined{0};  // helpers that asked for a worker index (some too late)
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

// Runs are posted in slots that the helpers read without a lock: on 16 cores a mutex that
// every helper took to join a run, and again to leave it, made a run cost about 30 us before
// its first item (36 us for a run of empty items, against 0.6 us on two cores), with 0.2 to
// 0.3 ms passes in the decoder. A helper announces itself in a slot's `visitors` before it
// reads the slot's job, and the caller closes its slot, then waits for no visitor, before its
// job (on its stack) goes away: whichever of the two comes second sees the other (both are
// sequentially consistent).
class Pool {
 public:
  void run(Job& job) {
    grow(job.helpers_wanted);
    Slot* slot = post(job);
    if (slot == nullptr) {  // every slot taken by runs in flight: this one on its caller alone
      job.work(0);
      return;
    }
    job.work(0);
    slot->job.store(closed(), std::memory_order_seq_cst);  // no helper joins it any more
    if (slot->visitors.load(std::memory_order_seq_cst) != 0 &&
        !spin_until([&] { return slot->visitors.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> lock(mutex_);
      left_.wait(lock, [&] { return slot->visitors.load() == 0; });
    }
    slot->job.store(nullptr, std::memory_order_release);  // free for the next run
  }

  int threads() { return threads_.load(); }

 private:
  static constexpr int kSlots = 16;  // runs in flight at once (nested, or from several threads)
  struct alignas(64) Slot {
    std::atomic<Job*> job{nullptr};  // nullptr: free; closed(): its run finishing
    std::atomic<int> visitors{0};    // helpers that may be reading `job`
  };
  // The mark of a closed slot: an address no job has, never read through.
  Job* closed() { return reinterpret_cast<Job*>(&closed_mark_); }

  void grow(int helpers) {
    if (threads_.load(std::memory_order_relaxed) >= helpers) return;
    std::lock_guard<std::mutex> lock(mutex_);
    while (threads_.load() < helpers) {
      std::thread(&Pool::serve, this).detach();  // lives as long as the process
      threads_.fetch_add(1);
    }
  }

  // Puts the job in a free slot and wakes sleeping helpers; nullptr where none is free.
  Slot* post(Job& job) {
    for (Slot& s : slots_) {
      Job* expected = nullptr;
      if (s.job.load(std::memory_order_relaxed) == nullptr &&
          s.job.compare_exchange_strong(expected, &job, std::memory_order_seq_cst)) {
        posted_.fetch_add(1, std::memory_order_seq_cst);
        if (sleepers_.load(std::memory_order_seq_cst) > 0) {
          // Under the mutex: a helper between counting itself a sleeper and waiting is then
          // waiting, and gets the notification.
          { std::lock_guard<std::mutex> lock(mutex_); }
          if (job.helpers_wanted >= sleepers_.load()) {
            wake_.notify_all();  // one system call
          } else {
            for (int i = 0; i < job.helpers_wanted; ++i) wake_.notify_one();
          }
        }
        return &s;
      }
    }
    return nullptr;
  }

  // Joins the slot's run if it still wants helpers; returns whether it worked on it.
  bool visit(Slot& s) {
    Job* job = s.job.load(std::memory_order_relaxed);  // not read through before `visitors` counts this helper
    if (job == nullptr || job == closed()) return false;
    s.visitors.fetch_add(1, std::memory_order_seq_cst);
    job = s.job.load(std::memory_order_seq_cst);  // again: it may have closed, or be another run
    bool worked = false;
    if (job != nullptr && job != closed() && job->joined.load(std::memory_order_relaxed) < job->helpers_wanted) {
      const int worker = job->joined.fetch_add(1) + 1;
      if (worker <= job->helpers_wanted) {
        job->work(worker);
        worked = true;
      }
    }
    if (s.visitors.fetch_sub(1, std::memory_order_seq_cst) == 1 && s.job.load(std::memory_order_seq_cst) == closed()) {
      std::lock_guard<std::mutex> lock(mutex_);  // the caller may be waiting on `left_`
      left_.notify_all();
    }
    return worked;
  }

  // A helper: works on the runs that want help, then waits for the next posting, spinning
  // for a while, then asleep.
  void serve() {
    for (;;) {
      const uint64_t seen = posted_.load(std::memory_order_seq_cst);  // before the scan: a later posting changes it
      bool worked = false;
      for (Slot& s : slots_) worked |= visit(s);
      if (worked) continue;
      if (spin_until([&] { return posted_.load(std::memory_order_relaxed) != seen; })) continue;
      std::unique_lock<std::mutex> lock(mutex_);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      wake_.wait(lock, [&] { return posted_.load(std::memory_order_seq_cst) != seen; });
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  Slot slots_[kSlots];
  std::atomic<uint64_t> posted_{0};  // runs posted so far: what a waiting helper watches
  std::atomic<int> sleepers_{0};     // helpers asleep on `wake_` (or about to be)
  std::mutex mutex_;                 // for the sleeps only, and growing
  std::condition_variable wake_;     // helpers: a run was posted
  std::condition_variable left_;     // callers: a closed slot's last visitor left
  std::atomic<int> threads_{0};
  char closed_mark_ = 0;
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

const j2k_thread_pool* scoped_thread_pool() { return t_external; }

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
