// SPDX-License-Identifier: BSD-2-Clause
// A large buffer's pages mapped before it is filled, instead of a page fault at each first
// touch. One thread that fills it: one call (development VM: 48 MiB first touched page by page
// 19 to 32 ms, mapped by one madvise 12 to 16 ms). Several threads that fill parts of it side
// by side (Tier-1's code-blocks of one plane): the workers map 4 MiB each first, since
// threads that write the same pages at once fault them together and wait on the page
// table's lock (on the H200 machine a 16-thread decode of a 4096^2 RGB HT stream took 80k
// faults against 6k on one thread, most of its time in the kernel).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/parallel/parallel_for.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace j2k {

// Best effort: a kernel without MADV_POPULATE_WRITE (Linux 5.14), or memory it refuses, is
// left to its page faults. Buffers under 1 MiB (often from pages the heap has mapped) are left
// as they are.
inline void populate_pages(void* p, size_t bytes) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;
#endif
  if (p == nullptr || bytes < (size_t{1} << 20)) return;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t start = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
  if (end > start) (void)::madvise(reinterpret_cast<void*>(start), end - start, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

// Several buffers on worker_count(threads) workers (parallel_for's setting), 4 MiB a call:
// each call's own page tables, so that the workers do not wait on each other; every buffer's
// pieces dealt out in one run (three planes of 16 MiB, each mapped in a run of its own, had
// kept four workers busy at a time).
struct PageRange {
  void* p;
  size_t bytes;
};
inline void populate_pages(const std::vector<PageRange>& buffers, int threads) {
  constexpr size_t kChunk = size_t{4} << 20;
  std::vector<PageRange> pieces;
  for (const PageRange& b : buffers)
    for (size_t at = 0; at < b.bytes; at += kChunk)
      pieces.push_back({static_cast<unsigned char*>(b.p) + at, std::min(kChunk, b.bytes - at)});
  if (worker_count(threads) == 1 || pieces.size() < 2) {
    for (const PageRange& b : buffers) populate_pages(b.p, b.bytes);
    return;
  }
  parallel_for(static_cast<ptrdiff_t>(pieces.size()), threads,
               [&](ptrdiff_t i) { populate_pages(pieces[static_cast<size_t>(i)].p, pieces[static_cast<size_t>(i)].bytes); });
}

// One buffer the same way.
inline void populate_pages(void* p, size_t bytes, int threads) { populate_pages(std::vector<PageRange>{{p, bytes}}, threads); }

}  // namespace j2k
