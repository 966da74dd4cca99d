// SPDX-License-Identifier: BSD-2-Clause
// Files written on a thread of their own, in the order handed over (`compress -i DIR`):
// writing a frame's codestream into the page cache took as long as reading the next frame,
// and now overlaps it and the coding. At most `most_waiting` tasks wait at once (each holds a
// codestream); push() waits for room beyond that.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace j2k::tools {

class WriterThread {
 public:
  explicit WriterThread(size_t most_waiting);
  ~WriterThread();  // runs what was pushed, then stops
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;

  // Queues `task` (it must not throw: it reports its own errors).
  void push(std::function<void()> task);
  // Returns once every task pushed has run.
  void finish();

 private:
  void loop();

  const size_t most_waiting_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> tasks_;
  bool running_ = false;  // a task taken and not yet done
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace j2k::tools
