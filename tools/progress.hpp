// SPDX-License-Identifier: BSD-2-Clause
// A one-line progress bar on standard error, drawn only on a terminal and only for a batch:
// redirected output and single images stay free of control characters.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <string>

namespace j2k::tools {

class Progress {
 public:
  explicit Progress(size_t total) : total_(total), on_(total > 1 && isatty(fileno(stderr))) {}
  ~Progress() { clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void show(size_t done, const std::string& name) {
    if (!on_) return;
    constexpr size_t kWidth = 30;
    const size_t filled = total_ ? done * kWidth / total_ : kWidth;
    std::string bar(filled, '=');
    if (filled < kWidth) bar += '>' + std::string(kWidth - filled - 1, ' ');
    std::string shown = name.size() > 40 ? "..." + name.substr(name.size() - 37) : name;
    std::fprintf(stderr, "\r[%s] %zu/%zu %-40s", bar.c_str(), done, total_, shown.c_str());
    std::fflush(stderr);
  }
  // Clears the bar, so that a message can be printed on a clean line.
  void clear() {
    if (!on_) return;
    std::fprintf(stderr, "\r%*s\r", 80, "");
    std::fflush(stderr);
  }

 private:
  size_t total_;
  bool on_;
};

}  // namespace j2k::tools
