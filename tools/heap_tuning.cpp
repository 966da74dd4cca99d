// SPDX-License-Identifier: BSD-2-Clause
#include "tools/heap_tuning.hpp"

#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace j2k::tools {

bool tune_heap_for_workers(const char* tunables) {
#if defined(__GLIBC__)
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr) return false;
  constexpr int kMiB = 1 << 20;
  // 32 MiB is the largest threshold glibc takes (half its arenas' 64 MiB heaps). Each call
  // stands alone: a refused value leaves the default.
  bool set = mallopt(M_MMAP_THRESHOLD, 32 * kMiB) == 1;
  set = mallopt(M_TOP_PAD, 16 * kMiB) == 1 && set;
  set = mallopt(M_TRIM_THRESHOLD, 256 * kMiB) == 1 && set;
  return set;
#else
  (void)tunables;
  return false;
#endif
}

}  // namespace j2k::tools
