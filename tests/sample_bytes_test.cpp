// SampleBytes (common/sample_bytes.hpp): small buffers from the default allocator, those of
// 2 MiB or more aligned to 2 MiB (where Linux can back them with huge pages); every size
// holds what is written to it, across growth, copies and moves.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "common/sample_bytes.hpp"

namespace {

using j2k::SampleBytes;

bool aligned_to(const void* p, size_t align) { return reinterpret_cast<uintptr_t>(p) % align == 0; }

TEST(SampleBytes, LargeBuffersAreHugePageAlignedAndHoldTheirBytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  for (size_t size : {size_t{1}, size_t{4095}, kHuge - 1, kHuge, kHuge + 1, 3 * kHuge + 17}) {
    SCOPED_TRACE(size);
    SampleBytes b(size);
    if (size >= kHuge) {
      EXPECT_TRUE(aligned_to(b.data(), kHuge));
    }
    for (size_t i = 0; i < size; i += 997) b[i] = static_cast<unsigned char>(i * 7);
    b[size - 1] = 0xA5;
    SampleBytes copy = b;
    b.resize(size + kHuge);  // grows past the threshold or beyond it: the bytes move along
    EXPECT_TRUE(aligned_to(b.data(), kHuge));
    for (size_t i = 0; i < size - 1; i += 997) ASSERT_EQ(b[i], static_cast<unsigned char>(i * 7)) << i;
    EXPECT_EQ(b[size - 1], 0xA5);
    EXPECT_EQ(copy[size - 1], 0xA5);
    const SampleBytes moved = std::move(copy);
    EXPECT_EQ(moved.size(), size);
    EXPECT_EQ(moved[size - 1], 0xA5);
  }
}

}  // namespace
