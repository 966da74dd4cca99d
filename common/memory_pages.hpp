// SPDX-License-Identifier: BSD-2-Clause
// A large buffer's pages mapped before it is filled, instead of a page fault at each first
// touch. One thread that fills it: one call (development VM: 48 MiB first touched page by page
// 19 to 32 ms, mapped by one madvise 12 to 16 ms). Several threads that fill parts of it side
// by side (Tier-1's code-blocks of one plane): the workers map 4 MiB each first, since
// threads that write the same pages at once fault them together and wait on the page
// table's lock (on the H200 machine a 16-thread decode of a 4096^2 RGB HT stream took 80k
// faults against 6k on one thread, most of its time in the kernel). Those pages 2 MiB at a time
// where huge pages pay (advise_huge_pages, huge_pages_wanted).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/parallel/parallel_for.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace j2k {

#if defined(__linux__)
// madvise(advice) on the part of [p, p + bytes) between `unit`-aligned addresses.
inline void advise_aligned(void* p, size_t bytes, uintptr_t unit, int advice) {
  const uintptr_t start = (reinterpret_cast<uintptr_t>(p) + unit - 1) & ~(unit - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(unit - 1);
  if (end > start) (void)::madvise(reinterpret_cast<void*>(start), end - start, advice);
}
#endif

// Transparent huge pages (2 MiB) asked for the 2 MiB-aligned part of [p, p + bytes): one
// page fault (or one page of a populate_pages call) where there were 512, and one TLB entry.
// The kernel takes the advice where /sys/kernel/mm/transparent_hugepage/enabled is `madvise`
// or `always` (Debian's and Ubuntu's default is `madvise`) and ignores it under `never`.
// Not asked for where huge_pages_wanted() says no.
constexpr size_t kHugePage = size_t{2} << 20;

// Whether a virtio balloon in `virtio_balloon_dir` (a sysfs driver directory) hands free pages
// back to its hypervisor (VIRTIO_BALLOON_F_REPORTING). Such a guest reports its free 2 MiB
// blocks, the hypervisor drops their memory, and a huge page taken from one after a pause is
// cleared on memory the hypervisor must first supply: on the development VM, which reports, a
// 4096^2 RGB decode's first run after 25 s idle took 90 to 120 ms of system time with huge
// pages against 20 to 40 without (back to back, huge pages were 4% to 6% faster).
bool balloon_reports_free_pages(const char* virtio_balloon_dir);
// J2KFRONT_HUGE_PAGES=1 or 0 if set, else whether no virtio balloon reports free pages. Read
// once.
bool huge_pages_wanted();
// Which pages the large buffers get here and why, in a line (`j2kfront --version`, the HT
// benchmarks' printouts).
std::string huge_pages_description();
// The kernel's transparent huge page setting: "always", "madvise" or "never" ("" where it has
// none).
std::string transparent_huge_pages_setting();

inline void advise_huge_pages(void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (huge_pages_wanted()) advise_aligned(p, bytes, kHugePage, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// Best effort: a kernel without MADV_POPULATE_WRITE (Linux 5.14), or memory it refuses, is
// left to its page faults. Buffers under 1 MiB (often from pages the heap has mapped) are left
// as they are.
inline void populate_pages(void* p, size_t bytes) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;
#endif
  if (p == nullptr || bytes < (size_t{1} << 20)) return;
  advise_aligned(p, bytes, static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE)), MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

// Several buffers on worker_count(threads) workers (parallel_for's setting), 4 MiB a call:
// each call's own page tables, so that the workers do not wait on each other; every buffer's
// pieces dealt out in one run (three planes of 16 MiB, each mapped in a run of its own, had
// kept four workers busy at a time). Each buffer on huge pages where they fit whole in it
// (advise_huge_pages).
struct PageRange {
  void* p;
  size_t bytes;
};
inline void populate_pages(const std::vector<PageRange>& buffers, int threads) {
  constexpr size_t kChunk = size_t{4} << 20;
  for (const PageRange& b : buffers)
    if (b.bytes >= (size_t{1} << 20)) advise_huge_pages(b.p, b.bytes);
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
