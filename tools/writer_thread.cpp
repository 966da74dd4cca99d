// SPDX-License-Identifier: BSD-2-Clause
#include "tools/writer_thread.hpp"

#include <algorithm>
#include <utility>

namespace j2k::tools {

WriterThread::WriterThread(size_t most_waiting) : most_waiting_(std::max<size_t>(most_waiting, 1)), thread_([this] { loop(); }) {}

WriterThread::~WriterThread() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void WriterThread::push(std::function<void()> task) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return tasks_.size() < most_waiting_; });
    tasks_.push_back(std::move(task));
  }
  changed_.notify_all();
}

void WriterThread::finish() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return tasks_.empty() && !running_; });
}

void WriterThread::loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, every task run
      task = std::move(tasks_.front());
      tasks_.pop_front();
      running_ = true;
    }
    changed_.notify_all();  // room for another
    task();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      running_ = false;
    }
    changed_.notify_all();
  }
}

}  // namespace j2k::tools
