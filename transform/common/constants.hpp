// SPDX-License-Identifier: BSD-2-Clause
// The exact constants every backend's arithmetic uses, in one place (float32, as OpenJPEG
// 2.5.0 uses them; ../shared/OPENJPEG.md). Usable in host code, CUDA device code, and passed to
// the OpenCL kernels as build options.
#pragma once

namespace j2k::constants {

// Irreversible 9/7 lifting (ISO/IEC 15444-1 Annex F, Table F.4) and its scaling.
constexpr float kAlpha = -1.586134342f;
constexpr float kBeta = -0.052980118f;
constexpr float kGamma = 0.882911075f;
constexpr float kDelta = 0.443506852f;
constexpr float kK = 1.230174105f;
constexpr float kInvK = static_cast<float>(1.0 / 1.230174105);

// How the inverse 9/7 scales a signal before lifting: low-pass samples by K, high-pass ones
// by `high`, and a lone sample at an odd coordinate (high-pass; F.3.7, 1D_SR) by `lone`.
struct Inverse97Scale {
  float high, lone;
};
// The standard's: the inverse of the forward transform.
constexpr Inverse97Scale kInverse97Standard{kInvK, 0.5f};
// OpenJPEG's decoder (its dwt.c "two_invK"): high-pass samples times 1.625732422f, 2/K as it
// was once rounded, made up for by taking every band's coefficients at 2^-gain of the
// standard's scale (the step without the band's gain of Table E.1; LL's gain is 0), so that a
// lone high-pass sample stays as it is. Decoding with it gives OpenJPEG's images bit for bit.
constexpr Inverse97Scale kInverse97OpenJpeg{1.625732422f, 1.0f};
constexpr bool operator==(const Inverse97Scale& a, const Inverse97Scale& b) {
  return a.high == b.high && a.lone == b.lone;
}
constexpr bool operator!=(const Inverse97Scale& a, const Inverse97Scale& b) { return !(a == b); }

// Irreversible component transform, forward (Annex G.3): Y, Cb, Cr from R, G, B.
constexpr float kIctYR = 0.299f, kIctYG = 0.587f, kIctYB = 0.114f;
constexpr float kIctUR = -0.16875f, kIctUG = 0.33126f, kIctUB = 0.5f;  // U = (UR*R - UG*G) + UB*B
constexpr float kIctVR = 0.5f, kIctVG = 0.41869f, kIctVB = 0.08131f;   // V = (VR*R - VG*G) - VB*B
// Inverse.
constexpr float kIctRV = 1.402f, kIctGU = 0.34413f, kIctGV = 0.71414f, kIctBU = 1.772f;

}  // namespace j2k::constants
