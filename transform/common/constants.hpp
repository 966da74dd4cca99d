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

// Irreversible component transform, forward (Annex G.3): Y, Cb, Cr from R, G, B.
constexpr float kIctYR = 0.299f, kIctYG = 0.587f, kIctYB = 0.114f;
constexpr float kIctUR = -0.16875f, kIctUG = 0.33126f, kIctUB = 0.5f;  // U = (UR*R - UG*G) + UB*B
constexpr float kIctVR = 0.5f, kIctVG = 0.41869f, kIctVB = 0.08131f;   // V = (VR*R - VG*G) - VB*B
// Inverse.
constexpr float kIctRV = 1.402f, kIctGU = 0.34413f, kIctGV = 0.71414f, kIctBU = 1.772f;

}  // namespace j2k::constants
