// SPDX-License-Identifier: BSD-2-Clause
// The inverse horizontal pass's row (transform/cpu/row_interleave and dwt_cpu's inverse_row)
// against lifting.hpp's steps done one at a time and a plain interleave, bit for bit: the
// portable and the AVX2 build of the last step's sweep, and the whole row (the 9/7's scaling
// folded into its first step), on random 5/3 integers and 9/7 floats, every width from 1 to
// 80 and some longer ones (odd, around the 8-pair runs, a 4096 row), both parities.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "transform/common/constants.hpp"
#include "transform/cpu/dwt_cpu.hpp"
#include "transform/cpu/lifting.hpp"
#include "transform/cpu/row_interleave.hpp"

namespace {

using j2k::cpu::low_count;

std::vector<ptrdiff_t> widths() {
  std::vector<ptrdiff_t> w;
  for (ptrdiff_t n = 1; n <= 80; ++n) w.push_back(n);
  for (ptrdiff_t n : {127, 128, 129, 255, 1000, 1023, 1025, 4096}) w.push_back(n);
  return w;
}

template <class T>
std::vector<T> random_values(std::mt19937& rng, ptrdiff_t n) {
  std::vector<T> v(static_cast<size_t>(n));
  if constexpr (std::is_same_v<T, float>) {
    std::uniform_real_distribution<float> d(-300.0f, 300.0f);
    for (T& x : v) x = d(rng);
  } else {
    // Wide values too, so that the sums wrap as int_wrap.hpp's do.
    std::uniform_int_distribution<int32_t> d(INT32_MIN, INT32_MAX), small(-5000, 5000);
    for (T& x : v) x = (rng() & 7) == 0 ? d(rng) : small(rng);
  }
  return v;
}

template <class T>
void interleave(const T* L, ptrdiff_t sn, const T* H, ptrdiff_t dn, int cas, T* out) {
  for (ptrdiff_t j = 0; j < sn; ++j) out[2 * j + cas] = L[j];
  for (ptrdiff_t i = 0; i < dn; ++i) out[2 * i + 1 - cas] = H[i];
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// The last step as lifting.hpp's inverse53 and inverse97_lifts end, then the interleave.
template <class T>
std::vector<T> reference_last_step(std::vector<T> L, std::vector<T> H, int cas) {
  const auto sn = static_cast<ptrdiff_t>(L.size()), dn = static_cast<ptrdiff_t>(H.size());
  if constexpr (std::is_same_v<T, float>)
    j2k::cpu::lift(H.data(), dn, L.data(), sn, -cas, 1, j2k::cpu::Lift97{-j2k::cpu::kAlpha});
  else
    j2k::cpu::lift(H.data(), dn, L.data(), sn, -cas, 1, j2k::cpu::UnPredict53{});
  std::vector<T> out(static_cast<size_t>(sn + dn));
  interleave(L.data(), sn, H.data(), dn, cas, out.data());
  return out;
}

using Build = void (*)(const int32_t*, ptrdiff_t, const int32_t*, ptrdiff_t, int, int32_t*);
using BuildF = void (*)(const float*, ptrdiff_t, const float*, ptrdiff_t, int, float*);

template <class T, class F>
void check_last_step(F build, const char* name) {
  std::mt19937 rng(42);
  for (ptrdiff_t w : widths()) {
    if (w < 2) continue;
    for (int cas = 0; cas < 2; ++cas) {
      const ptrdiff_t sn = low_count(w, cas), dn = w - sn;
      const std::vector<T> L = random_values<T>(rng, sn), H = random_values<T>(rng, dn);
      // Room on each side, which must stay as it is.
      std::vector<T> out(static_cast<size_t>(w + 16), T{7});
      build(L.data(), sn, H.data(), dn, cas, out.data() + 8);
      const std::vector<T> want = reference_last_step(L, H, cas);
      const std::vector<T> got(out.begin() + 8, out.begin() + 8 + w);
      ASSERT_TRUE(same_bits(got, want)) << name << " w " << w << " cas " << cas;
      for (int k = 0; k < 8; ++k) ASSERT_EQ(out[static_cast<size_t>(k)], T{7}) << name << " w " << w << " wrote before the row";
      for (int k = 0; k < 8; ++k)
        ASSERT_EQ(out[static_cast<size_t>(w + 8 + k)], T{7}) << name << " w " << w << " wrote past the row";
    }
  }
}

TEST(RowInterleave, PortableLastStepMatchesTheSteps) {
  check_last_step<int32_t>(static_cast<Build>(j2k::cpu::portable::lift_last_interleaved), "portable 5/3");
  check_last_step<float>(static_cast<BuildF>(j2k::cpu::portable::lift_last_interleaved), "portable 9/7");
}

TEST(RowInterleave, Avx2LastStepMatchesTheSteps) {
  if (!j2k::cpu::row_interleave_avx2()) GTEST_SKIP() << "no AVX2 build or CPU";
  check_last_step<int32_t>(static_cast<Build>(j2k::cpu::avx2::lift_last_interleaved), "avx2 5/3");
  check_last_step<float>(static_cast<BuildF>(j2k::cpu::avx2::lift_last_interleaved), "avx2 9/7");
}

// inverse_row() against lifting.hpp's whole inverse on copies of the halves, then the
// interleave; a lone sample by inverse_single().
template <class T>
void check_rows(const j2k::constants::Inverse97Scale& scale) {
  std::mt19937 rng(7);
  for (ptrdiff_t w : widths()) {
    for (int cas = 0; cas < 2; ++cas) {
      const ptrdiff_t sn = low_count(w, cas), dn = w - sn;
      std::vector<T> low = random_values<T>(rng, sn), high = random_values<T>(rng, dn);
      std::vector<T> want(static_cast<size_t>(w));
      if (w == 1) {
        want[0] = j2k::cpu::inverse_single(cas == 0 ? low[0] : high[0], cas, scale.lone);
      } else {
        std::vector<T> L = low, H = high;
        if constexpr (std::is_same_v<T, float>)
          j2k::cpu::inverse97(L.data(), sn, H.data(), dn, cas, 1, scale.high);
        else
          j2k::cpu::inverse53(L.data(), sn, H.data(), dn, cas, 1);
        interleave(L.data(), sn, H.data(), dn, cas, want.data());
      }
      std::vector<T> got(static_cast<size_t>(w)), scratch(static_cast<size_t>(w));
      if constexpr (std::is_same_v<T, float>)
        j2k::cpu::inverse_row(low.data(), high.data(), got.data(), w, cas, scratch.data(), scale);
      else
        j2k::cpu::inverse_row(low.data(), high.data(), got.data(), w, cas, scratch.data());
      ASSERT_TRUE(same_bits(got, want)) << "w " << w << " cas " << cas;
    }
  }
}

TEST(RowInterleave, InverseRow53MatchesTheSteps) { check_rows<int32_t>(j2k::constants::kInverse97Standard); }
TEST(RowInterleave, InverseRow97MatchesTheSteps) {
  check_rows<float>(j2k::constants::kInverse97Standard);
  check_rows<float>(j2k::constants::kInverse97OpenJpeg);
}

}  // namespace
