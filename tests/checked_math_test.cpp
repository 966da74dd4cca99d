// SPDX-License-Identifier: BSD-2-Clause
// The overflow-safe arithmetic of common/checked_math.hpp at the edges of each type: exact
// results up to the largest value, refusals (checked) or the ceiling (saturating) one past it.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "common/checked_math.hpp"

namespace {

using j2k::checked_add;
using j2k::checked_mul;
using j2k::checked_shl;
using j2k::saturating_add;
using j2k::saturating_mul;

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

TEST(CheckedMath, AddIsExactUpToTheLargestValueAndRefusesPastIt) {
  int64_t s = 0;
  EXPECT_TRUE(checked_add<int64_t>(kI64Max - 5, 5, &s));
  EXPECT_EQ(s, kI64Max);
  EXPECT_FALSE(checked_add<int64_t>(kI64Max - 5, 6, &s));
  EXPECT_TRUE(checked_add<int64_t>(std::numeric_limits<int64_t>::min(), kI64Max, &s));
  EXPECT_EQ(s, -1);
  EXPECT_FALSE(checked_add<int64_t>(std::numeric_limits<int64_t>::min(), -1, &s));
  size_t z = 0;
  EXPECT_FALSE(checked_add<size_t>(std::numeric_limits<size_t>::max(), 1, &z));
  EXPECT_TRUE(checked_add<size_t>(40, 2, &z));
  EXPECT_EQ(z, 42u);
}

TEST(CheckedMath, MulIsExactUpToTheLargestValueAndRefusesPastIt) {
  uint64_t p = 0;
  // (2^32 - 1)^2 fits; (2^32 - 1) x (2^32 + 1) = 2^64 - 1 fits; one more row does not.
  EXPECT_TRUE(checked_mul<uint64_t>(0xFFFFFFFFu, 0xFFFFFFFFu, &p));
  EXPECT_EQ(p, 0xFFFFFFFE00000001u);
  EXPECT_TRUE(checked_mul<uint64_t>(0xFFFFFFFFu, 0x100000001u, &p));
  EXPECT_EQ(p, kU64Max);
  EXPECT_FALSE(checked_mul<uint64_t>(0xFFFFFFFFu, 0x100000002u, &p));
  int64_t q = 0;
  EXPECT_TRUE(checked_mul<int64_t>(int64_t{1} << 31, int64_t{1} << 31, &q));
  EXPECT_EQ(q, int64_t{1} << 62);
  EXPECT_FALSE(checked_mul<int64_t>(int64_t{1} << 32, int64_t{1} << 31, &q));  // 2^63
  EXPECT_TRUE(checked_mul<int64_t>(-(int64_t{1} << 32), int64_t{1} << 31, &q));  // -2^63
  EXPECT_EQ(q, std::numeric_limits<int64_t>::min());
  int32_t i = 0;
  EXPECT_FALSE(checked_mul<int32_t>(65536, 32768, &i));
  EXPECT_TRUE(checked_mul<int32_t>(65535, 32768, &i));
  EXPECT_EQ(i, 65535 * 32768);
}

TEST(CheckedMath, ShlRefusesLostBitsWideShiftsAndNegativeOperands) {
  int32_t v = 0;
  EXPECT_TRUE(checked_shl<int32_t>(1, 30, &v));
  EXPECT_EQ(v, 1 << 30);
  EXPECT_FALSE(checked_shl<int32_t>(1, 31, &v));  // the sign bit: INT_MIN, undefined before C++20
  EXPECT_FALSE(checked_shl<int32_t>(1, 32, &v));
  EXPECT_FALSE(checked_shl<int32_t>(1, 37, &v));  // the sYCC shift at 38 bits
  EXPECT_FALSE(checked_shl<int32_t>(-1, 1, &v));
  EXPECT_FALSE(checked_shl<int32_t>(1, -1, &v));
  EXPECT_TRUE(checked_shl<int32_t>(0, 30, &v));
  EXPECT_EQ(v, 0);
  uint64_t u = 0;
  EXPECT_TRUE(checked_shl<uint64_t>(255, 56, &u));
  EXPECT_EQ(u, uint64_t{255} << 56);
  EXPECT_FALSE(checked_shl<uint64_t>(256, 56, &u));
  EXPECT_FALSE(checked_shl<uint64_t>(1, 64, &u));
  int64_t w = 0;
  EXPECT_TRUE(checked_shl<int64_t>(255, 47, &w));  // XRsiz * 2^(PPx + NL - r) at its largest
  EXPECT_EQ(w, int64_t{255} << 47);
  EXPECT_FALSE(checked_shl<int64_t>(int64_t{1} << 32, 31, &w));
}

TEST(CheckedMath, SaturatingSumsAndProductsStopAtTheCeiling) {
  EXPECT_EQ(saturating_add(kU64Max - 1, 1), kU64Max);
  EXPECT_EQ(saturating_add(kU64Max - 1, 2), kU64Max);
  EXPECT_EQ(saturating_add(kU64Max, kU64Max), kU64Max);
  EXPECT_EQ(saturating_add(40, 2), 42u);
  EXPECT_EQ(saturating_mul(0xFFFFFFFFu, 0x100000001u), kU64Max);
  EXPECT_EQ(saturating_mul(0xFFFFFFFFu, 0x100000002u), kU64Max);
  EXPECT_EQ(saturating_mul(uint64_t{1} << 32, uint64_t{1} << 32), kU64Max);
  EXPECT_EQ(saturating_mul(0, kU64Max), 0u);
  EXPECT_EQ(saturating_mul(6, 7), 42u);
  // A sum of products that wraps in plain arithmetic (two (2^32 - 1)^2 planes and a third)
  // stays at the ceiling, so that a limit after it refuses.
  uint64_t wrapped = 0, saturated = 0;
  for (int c = 0; c < 3; ++c) {
    wrapped += uint64_t{0xFFFFFFFFu} * 0xFFFFFFFFu;
    saturated = saturating_add(saturated, saturating_mul(0xFFFFFFFFu, 0xFFFFFFFFu));
  }
  EXPECT_LT(wrapped, uint64_t{0xFFFFFFFFu} * 0xFFFFFFFFu);
  EXPECT_EQ(saturated, kU64Max);
}

TEST(CheckedMath, UsableInConstantExpressions) {
  constexpr uint64_t kBig = saturating_mul(uint64_t{1} << 40, uint64_t{1} << 30);
  static_assert(kBig == kU64Max, "saturates at compile time too");
  SUCCEED();
}

}  // namespace
