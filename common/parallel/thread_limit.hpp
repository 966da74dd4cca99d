// SPDX-License-Identifier: BSD-2-Clause
// The CPU thread counts a run may ask for, in one place: the library's settings (j2k_settings,
// j2k_decode_settings) and the CLI's --threads check the same range with the same message.
#pragma once
#include <algorithm>
#include <string>
#include <thread>

namespace j2k {

// A worker per core is the default; far more only oversubscribes (and each worker thread
// takes a stack), so counts beyond 8 per core, or 64 on small machines, are refused.
inline int max_threads() { return std::max(64, 8 * static_cast<int>(std::thread::hardware_concurrency())); }

// Empty when `threads` (0: one per core) is in range, else what is wrong with it.
inline std::string thread_count_problem(int threads) {
  if (threads >= 0 && threads <= max_threads()) return {};
  return "threads must be 0 (one per core) to " + std::to_string(max_threads()) +
         " (8 per core, at least 64), got " + std::to_string(threads);
}

}  // namespace j2k
