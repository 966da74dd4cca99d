// SPDX-License-Identifier: BSD-2-Clause
// The CLI's heap settings (tools/heap_tuning): a user's own GLIBC_TUNABLES for malloc are kept;
// otherwise a buffer of several MiB comes from the heap, not from an mmap of its own (glibc's
// count of mmapped blocks, mallinfo2, stays as it was). Its own process: the settings last.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tools/heap_tuning.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

using j2k::tools::tune_heap_for_workers;

TEST(HeapTuning, KeepsTheUsersMallocTunables) {
  EXPECT_FALSE(tune_heap_for_workers("glibc.malloc.arena_max=2"));
  EXPECT_FALSE(tune_heap_for_workers("glibc.cpu.hwcaps=-AVX2:glibc.malloc.mmap_threshold=65536"));
}

// The sanitizers put their own allocator in glibc's place: mallopt and mallinfo2 are theirs.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define J2K_OWN_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define J2K_OWN_ALLOCATOR 1
#endif

#if defined(__GLIBC__)
TEST(HeapTuning, BuffersOfSeveralMiBComeFromTheHeap) {
#if defined(J2K_OWN_ALLOCATOR)
  GTEST_SKIP() << "built with a sanitizer, whose allocator replaces glibc's malloc (mallopt and mallinfo2 are its own)";
#endif
  // Before: glibc's default threshold (128 KiB) maps such a buffer on its own; its free then
  // raises the threshold to its size, so the buffer after is larger.
  void* before = std::malloc(size_t{4} << 20);
  ASSERT_NE(before, nullptr);
  const size_t mapped_before = mallinfo2().hblks;
  std::free(before);
  EXPECT_GE(mapped_before, 1u) << "glibc mapped no block of 4 MiB before the tuning: the test cannot tell";
  EXPECT_TRUE(tune_heap_for_workers(nullptr));
  EXPECT_TRUE(tune_heap_for_workers("glibc.cpu.hwcaps=-AVX2"));  // tunables that are not malloc's
  const size_t mapped = mallinfo2().hblks;
  void* after = std::malloc(size_t{12} << 20);
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(mallinfo2().hblks, mapped);
  std::free(after);
}
#endif

}  // namespace
