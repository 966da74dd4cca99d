// SPDX-License-Identifier: BSD-2-Clause
// SampleBytes (common/sample_bytes.hpp), whose allocator leaves new bytes unwritten: every
// size holds what is written to it, across growth, copies and moves.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "common/sample_bytes.hpp"

namespace {

using j2k::SampleBytes;

TEST(SampleBytes, EverySizeHoldsItsBytesAcrossGrowthCopiesAndMoves) {
  constexpr size_t kMiB2 = size_t{2} << 20;
  for (size_t size : {size_t{1}, size_t{4095}, kMiB2 - 1, kMiB2, kMiB2 + 1, 3 * kMiB2 + 17}) {
    SCOPED_TRACE(size);
    SampleBytes b(size);
    for (size_t i = 0; i < size; i += 997) b[i] = static_cast<unsigned char>(i * 7);
    b[size - 1] = 0xA5;
    SampleBytes copy = b;
    b.resize(size + kMiB2);  // grows: the bytes move along
    for (size_t i = 0; i < size - 1; i += 997) ASSERT_EQ(b[i], static_cast<unsigned char>(i * 7)) << i;
    EXPECT_EQ(b[size - 1], 0xA5);
    EXPECT_EQ(copy[size - 1], 0xA5);
    const SampleBytes moved = std::move(copy);
    EXPECT_EQ(moved.size(), size);
    EXPECT_EQ(moved[size - 1], 0xA5);
  }
}

}  // namespace
