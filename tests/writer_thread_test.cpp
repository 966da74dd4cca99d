// SPDX-License-Identifier: BSD-2-Clause
// The CLI's writer thread (tools/writer_thread): tasks run in the order pushed, one at a time,
// off the pushing thread; push waits while the queue is full; finish() returns once every task
// has run; destruction runs what is left first.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "tools/writer_thread.hpp"

namespace {

using j2k::tools::WriterThread;

TEST(WriterThread, InOrderOneAtATimeOffTheCaller) {
  std::vector<int> ran;
  std::atomic<int> running{0};
  bool overlapped = false, on_caller = false;
  const auto caller = std::this_thread::get_id();
  {
    WriterThread w(2);
    for (int i = 0; i < 50; ++i)
      w.push([&, i] {
        if (++running > 1) overlapped = true;
        if (std::this_thread::get_id() == caller) on_caller = true;
        if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        ran.push_back(i);
        --running;
      });
    w.finish();
    EXPECT_EQ(ran.size(), 50u) << "finish() returned before every task ran";
    for (int i = 0; i < 50; ++i) w.push([&, i] { ran.push_back(50 + i); });
  }  // destruction runs the rest
  ASSERT_EQ(ran.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(ran[static_cast<size_t>(i)], i);
  EXPECT_FALSE(overlapped);
  EXPECT_FALSE(on_caller);
}

// At most `most_waiting` tasks wait: a push beyond that returns only once one has been taken.
TEST(WriterThread, PushWaitsWhileTheQueueIsFull) {
  std::atomic<bool> release{false};
  std::atomic<int> pushed{0};
  WriterThread w(2);
  std::thread producer([&] {
    w.push([&] {
      while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    for (int i = 0; i < 3; ++i) {
      w.push([] {});
      ++pushed;
    }
  });
  // One task running and two waiting: the third push must wait. (A loaded machine may start
  // the producer late: wait for the first two pushes, then give the third time to pass wrongly.)
  for (int waited = 0; pushed < 2 && waited < 10000; ++waited) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(pushed.load(), 2) << "one task running and two waiting: the third push must wait";
  release = true;
  producer.join();
  w.finish();
  EXPECT_EQ(pushed.load(), 3);
}

}  // namespace
