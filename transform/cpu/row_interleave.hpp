// SPDX-License-Identifier: BSD-2-Clause
// The inverse horizontal pass's last lifting step (each high sample from its two low
// neighbours: the 5/3's UnPredict53, the 9/7's -alpha step) and the interleave of the row, in
// one sweep: each output pair (a low sample and the high one beside it) is written once, on
// AVX2 two 8-value stores a 16-value run. Before, the step swept H in the scratch and then two
// stride-2 loops stored the row a value at a time, which was most of the row pass's time.
// The same operation on each value as lifting.hpp's step (no FMA, no reassociation:
// -ffp-contract=off), so the same row bit for bit in every build.
#pragma once
#include <cstddef>
#include <cstdint>

namespace j2k::cpu {

// A signal of w = sn + dn >= 2 samples (lifting.hpp's terms: sn = low_count(w, cas)) whose low
// half is lifted in L and whose high half waits for its last step in H, into `out` (w values,
// apart from L and H): out[2j + cas] = L[j], and out[2i + 1 - cas] = H[i] lifted from L[i - cas]
// and L[i + 1 - cas] (mirrored at the ends, as lift_into()).
void lift_last_interleaved(const int32_t* L, ptrdiff_t sn, const int32_t* H, ptrdiff_t dn, int cas, int32_t* out);
void lift_last_interleaved(const float* L, ptrdiff_t sn, const float* H, ptrdiff_t dn, int cas, float* out);

// The builds behind it, for the tests: the portable one, and the AVX2 one (only where
// row_interleave_avx2() says the build and the CPU have it).
namespace portable {
void lift_last_interleaved(const int32_t* L, ptrdiff_t sn, const int32_t* H, ptrdiff_t dn, int cas, int32_t* out);
void lift_last_interleaved(const float* L, ptrdiff_t sn, const float* H, ptrdiff_t dn, int cas, float* out);
}  // namespace portable
bool row_interleave_avx2();
namespace avx2 {
void lift_last_interleaved(const int32_t* L, ptrdiff_t sn, const int32_t* H, ptrdiff_t dn, int cas, int32_t* out);
void lift_last_interleaved(const float* L, ptrdiff_t sn, const float* H, ptrdiff_t dn, int cas, float* out);
}  // namespace avx2

}  // namespace j2k::cpu
