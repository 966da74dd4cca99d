// SPDX-License-Identifier: BSD-2-Clause
// RCT and ICT against OpenJPEG 2.5.0's opj_mct_encode / opj_mct_encode_real /
// opj_mct_decode / opj_mct_decode_real, word for word.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>

#include "conformance/openjpeg_mirror.hpp"
#include "transform/cpu/component_transform.hpp"

namespace {

template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(size_t n) {
    return static_cast<T*>(std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64));
  }
  void deallocate(T* p, size_t) { std::free(p); }
  bool operator==(const AlignedAllocator&) const { return true; }
  bool operator!=(const AlignedAllocator&) const { return false; }
};

constexpr size_t kCount = 1000003;  // not a multiple of any SIMD width

// Three planes back to back; kPlane keeps each one 64-byte aligned, as OpenJPEG's SIMD
// code asserts for the buffers its own allocator hands out.
constexpr size_t kPlane = (kCount + 15) / 16 * 16;

template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

AlignedVector<int32_t> planes(std::mt19937& rng, int32_t lo, int32_t hi) {
  std::uniform_int_distribution<int32_t> d(lo, hi);
  AlignedVector<int32_t> v(3 * kPlane);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(MctConformance, RctForwardAndInverseMatchOpenJpeg) {
  std::mt19937 rng(3);
  long compared = 0, mismatches = 0;
  for (auto [lo, hi] : {std::pair{-128, 127}, std::pair{-32768, 32767}, std::pair{-1, 0}}) {
    AlignedVector<int32_t> ours = planes(rng, lo, hi), theirs = ours;
    j2k::rct_forward(&ours[0], &ours[kPlane], &ours[2 * kPlane], kCount);
    opj_mct_encode(&theirs[0], &theirs[kPlane], &theirs[2 * kPlane], kCount);
    for (size_t i = 0; i < ours.size(); ++i) mismatches += ours[i] != theirs[i];
    AlignedVector<int32_t> back = ours;
    j2k::rct_inverse(&back[0], &back[kPlane], &back[2 * kPlane], kCount);
    opj_mct_decode(&theirs[0], &theirs[kPlane], &theirs[2 * kPlane], kCount);
    for (size_t i = 0; i < back.size(); ++i) mismatches += back[i] != theirs[i];
    compared += 2 * static_cast<long>(ours.size());
  }
  std::cout << "[conformance] RCT: " << compared << " words compared, " << mismatches << " mismatches\n";
  EXPECT_EQ(mismatches, 0);
}

TEST(MctConformance, IctForwardAndInverseMatchOpenJpeg) {
  std::mt19937 rng(5);
  long compared = 0, mismatches = 0;
  for (auto [lo, hi] : {std::pair{-128, 127}, std::pair{-32768, 32767}}) {
    AlignedVector<int32_t> ints = planes(rng, lo, hi);
    AlignedVector<float> ours(ints.begin(), ints.end()), theirs = ours;
    j2k::ict_forward(&ours[0], &ours[kPlane], &ours[2 * kPlane], kCount);
    opj_mct_encode_real(&theirs[0], &theirs[kPlane], &theirs[2 * kPlane], kCount);
    mismatches += static_cast<long>(ours.size()) - std::count_if(ours.begin(), ours.end(), [&, i = size_t{0}](float v) mutable {
      return std::memcmp(&v, &theirs[i++], 4) == 0;
    });
    // The inverse, on what the forward made (the same planes on both sides).
    AlignedVector<float> back = ours;
    theirs = ours;
    j2k::ict_inverse(&back[0], &back[kPlane], &back[2 * kPlane], kCount);
    opj_mct_decode_real(&theirs[0], &theirs[kPlane], &theirs[2 * kPlane], kCount);
    mismatches += static_cast<long>(back.size()) - std::count_if(back.begin(), back.end(), [&, i = size_t{0}](float v) mutable {
      return std::memcmp(&v, &theirs[i++], 4) == 0;
    });
    compared += 2 * static_cast<long>(ours.size());
  }
  std::cout << "[conformance] ICT: " << compared << " words compared, " << mismatches << " mismatches\n";
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
