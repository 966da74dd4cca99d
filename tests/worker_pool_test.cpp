// SPDX-License-Identifier: BSD-2-Clause
// The CPU worker pool (common/parallel/worker_pool.hpp): every item once, worker indices that
// no two calls in progress share, exceptions, nested and concurrent runs, an embedder's pool
// per thread, and idle workers that sleep instead of spinning.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/parallel/worker_pool.hpp"

namespace {

using j2k::run_on_workers;

TEST(WorkerPool, EveryItemOnceOnWorkersNoTwoCallsShare) {
  const int before = j2k::pool_threads();  // another test's runs may have grown it (--gtest_repeat)
  for (int threads : {1, 2, 3, 8}) {
    SCOPED_TRACE(threads);
    const ptrdiff_t count = 5000;
    std::vector<std::atomic<int>> runs(count);
    std::vector<std::atomic<int>> busy(static_cast<size_t>(threads));
    std::atomic<int> shared{0}, out_of_range{0};
    run_on_workers(count, threads, [&](ptrdiff_t i, int worker) {
      runs[static_cast<size_t>(i)]++;
      if (worker < 0 || worker >= threads) {
        out_of_range++;
        return;
      }
      if (busy[static_cast<size_t>(worker)].exchange(1) != 0) shared++;
      for (volatile int k = 0; k < 200; k = k + 1) {
      }
      busy[static_cast<size_t>(worker)] = 0;
    });
    int wrong = 0;
    for (auto& r : runs) wrong += r.load() != 1;
    EXPECT_EQ(wrong, 0) << "items not run exactly once";
    EXPECT_EQ(out_of_range.load(), 0);
    EXPECT_EQ(shared.load(), 0) << "two calls in progress had the same worker index";
  }
  EXPECT_EQ(j2k::pool_threads(), std::max(before, 7)) << "the pool grows to the largest run's helpers, no more";
}

TEST(WorkerPool, TheFirstExceptionIsRethrownAndLaterItemsAreSkipped) {
  std::atomic<int> ran{0};
  try {
    run_on_workers(100000, 4, [&](ptrdiff_t i, int) {
      ran++;
      if (i == 10) throw std::runtime_error("item 10");
      // Items that take a while: on a loaded machine the thread with item 10 may be held up,
      // and instant items would all be done by the others before it throws.
      if (i > 10) std::this_thread::sleep_for(std::chrono::microseconds(20));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "item 10");
  }
  EXPECT_LT(ran.load(), 100000) << "items after the failure still ran";
  // The pool still works afterwards.
  std::atomic<int> sum{0};
  run_on_workers(1000, 4, [&](ptrdiff_t i, int) { sum += static_cast<int>(i); });
  EXPECT_EQ(sum.load(), 999 * 1000 / 2);
}

// Runs inside runs, from several of the caller's threads at once: every item done, no
// deadlock (each caller works on its own run even when every worker is taken).
TEST(WorkerPool, NestedRunsFromSeveralThreads) {
  std::atomic<int64_t> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      for (int round = 0; round < 20; ++round)
        run_on_workers(16, 3, [&](ptrdiff_t, int) {
          run_on_workers(10, 2, [&](ptrdiff_t j, int) { total += j + 1; });
        });
    });
  for (auto& c : callers) c.join();
  EXPECT_EQ(total.load(), int64_t{4} * 20 * 16 * 55);
}

// Many short runs back to back, and more runs in flight than the pool posts at once (16):
// helpers join and leave runs that end under them, and a run that finds no free slot is done
// by its caller alone. Every item once, every worker index inside its run and no two calls
// in progress on one index.
TEST(WorkerPool, ShortRunsBackToBackFromManyThreads) {
  std::atomic<int> wrong{0};
  auto runs = [&](int rounds, int threads) {
    std::vector<std::atomic<int>> busy(static_cast<size_t>(threads));
    for (int round = 0; round < rounds; ++round) {
      std::vector<std::atomic<int>> done(12);
      run_on_workers(12, threads, [&](ptrdiff_t i, int worker) {
        if (worker < 0 || worker >= threads || busy[static_cast<size_t>(worker)].exchange(1) != 0) {
          wrong++;
          return;
        }
        done[static_cast<size_t>(i)]++;
        if (threads == 2) std::this_thread::sleep_for(std::chrono::microseconds(5));  // time for more helpers to come
        busy[static_cast<size_t>(worker)] = 0;
      });
      for (auto& d : done) wrong += d.load() != 1;
    }
  };
  runs(5000, 16);  // 15 helpers, then runs that want one each
  std::vector<std::thread> callers;
  for (int t = 0; t < 24; ++t) callers.emplace_back([&] { runs(100, 2); });
  for (auto& c : callers) c.join();
  EXPECT_EQ(wrong.load(), 0) << "items not run exactly once, or a worker index outside its run or shared";
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// The embedder's pool a thread's runs go to: set while a ScopedThreadPool lives (the innermost),
// restored after; a thread of its own starts with none, and one that opens the caller's pool
// hands its runs to it (as the decoder's page-mapping thread does).
TEST(WorkerPool, ScopedThreadPoolIsThreadsOwnAndCanBeOpenedAgain) {
  std::atomic<int> runs{0};
  auto run = [](void* context, size_t count, int, j2k_task_fn task, void* arg) {
    static_cast<std::atomic<int>*>(context)->fetch_add(1);
    for (size_t i = 0; i < count; ++i) task(arg, i, 0);
  };
  const j2k_thread_pool outer{run, &runs, 2}, inner{run, &runs, 3};
  EXPECT_EQ(j2k::scoped_thread_pool(), nullptr);
  {
    const j2k::ScopedThreadPool a(outer);
    EXPECT_EQ(j2k::scoped_thread_pool(), &outer);
    {
      const j2k::ScopedThreadPool b(inner);
      EXPECT_EQ(j2k::scoped_thread_pool(), &inner);
    }
    EXPECT_EQ(j2k::scoped_thread_pool(), &outer);
    const j2k_thread_pool* callers = j2k::scoped_thread_pool();
    std::thread([&] {
      EXPECT_EQ(j2k::scoped_thread_pool(), nullptr) << "a new thread inherits no pool";
      const j2k::ScopedThreadPool same(*callers);
      run_on_workers(10, 2, [](ptrdiff_t, int) {});
    }).join();
    EXPECT_EQ(runs.load(), 1) << "the thread's run did not go to the caller's pool";
  }
  EXPECT_EQ(j2k::scoped_thread_pool(), nullptr);
}

// After a run the workers sleep: a quarter of a second idle costs the process (nearly) no
// CPU time, where workers that spin while waiting for work would burn it on every core.
TEST(WorkerPool, IdleWorkersSleep) {
  std::atomic<int64_t> sum{0};
  run_on_workers(10000, 8, [&](ptrdiff_t i, int) { sum += i; });
  const double before = cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  const double used = cpu_seconds() - before;
  EXPECT_LT(used, 0.05) << "idle workers used " << used << " s of CPU in 0.25 s";
}

}  // namespace
