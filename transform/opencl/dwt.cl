// SPDX-License-Identifier: BSD-2-Clause
// One decomposition level of the JPEG 2000 DWT in two OpenCL passes, after Kucis, Barina,
// Kula & Zemcik, "2-D discrete wavelet transform using GPU" (vertical pass: sliding window
// down column strips; horizontal pass: several output pairs per work-item, no shared
// intermediates). Bit-identical to the CPU reference in transform/cpu/lifting.hpp.
//
// Each pass reads `src` and writes `dst` (never the same buffer): the outputs of a pass land
// in rows/columns it has not read yet. Only the top-left w x h block is touched.
//
// Notation (both passes): a signal of n samples whose first sample has canvas parity cas.
// Interleaved position p (0 <= p < n) is low-pass when (p + cas) is even. Low j sits at
// position 2j + cas, high i at 2i + 1 - cas; sn = (n + (cas == 0)) / 2 lows, dn = n - sn highs.
// Whole-sample symmetric extension reflects positions: -1 -> 1, n -> n - 2 (the CPU's index
// clamp in deinterleaved terms). Lifting preserves that symmetry exactly (float + commutes),
// so lifting an extended window equals lifting with per-step reflection, bit for bit.
//
// Compile-time parameters (set by the host, see runner.cpp): VCOLS, VR, VWIN, VCAP, HP and
// the 9/7 constants K97_A, K97_B, K97_G, K97_D, K97_K, K97_INVK as exact float literals.

// Every product and sum is rounded separately: a fused multiply-add changes the bits.
#pragma OPENCL FP_CONTRACT OFF

#ifndef VCOLS
#define VCOLS 32  // columns of a vertical strip = work-group width
#endif
#ifndef VR
#define VR 8  // work-item rows of a vertical work-group
#endif
#ifndef VWIN
#define VWIN 120  // rows loaded per window position
#endif
#ifndef VCAP
#define VCAP 128  // ring-buffer rows, a power of two >= VWIN + 6
#endif
#ifndef HP
#define HP 4  // output pairs per work-item in the horizontal pass
#endif

// ---- lifting steps: s = 1..S in execution order ----
// Forward: odd steps update highs, even steps lows. Inverse: odd steps lows, even steps highs.

// int sums wrap (two's complement), as transform/common/int_wrap.hpp: signed overflow is
// undefined, and a corrupt stream's coefficients can pass int32.
#define WADD(a, b) as_int(as_uint((int)(a)) + as_uint((int)(b)))
#define WSUB(a, b) as_int(as_uint((int)(a)) - as_uint((int)(b)))
#define F53(s, x, a, b) ((s) == 1 ? WSUB(x, WADD(a, b) >> 1) : WADD(x, WADD(WADD(a, b), 2) >> 2))
#define I53(s, x, a, b) ((s) == 1 ? WSUB(x, WADD(WADD(a, b), 2) >> 2) : WADD(x, WADD(a, b) >> 1))

// The pragma stops the OpenCL C front end from contracting; NVIDIA's PTX assembler may still
// fuse a plain mul.f32 into a following add.f32, so there (the host defines J2K_PTX_RN for
// NVIDIA platforms) the operations are written with explicit round-to-nearest, which PTX
// never contracts. Everywhere else they are ordinary, separately rounded operations.
#ifdef J2K_PTX_RN
inline float add_rn(float a, float b) {
  float r;
  __asm__("add.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
inline float mul_rn(float a, float b) {
  float r;
  __asm__("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
#else
inline float add_rn(float a, float b) { return a + b; }
inline float mul_rn(float a, float b) { return a * b; }
#endif

inline float lift97(float x, float a, float b, float c) {
  float t = add_rn(a, b);
  t = mul_rn(t, c);
  return add_rn(x, t);
}
#define C97F(s) ((s) == 1 ? K97_A : (s) == 2 ? K97_B : (s) == 3 ? K97_G : K97_D)
#define C97I(s) ((s) == 1 ? -K97_D : (s) == 2 ? -K97_G : (s) == 3 ? -K97_B : -K97_A)
#define F97(s, x, a, b) lift97((x), (a), (b), C97F(s))
#define I97(s, x, a, b) lift97((x), (a), (b), C97I(s))

// Scale factors: forward applies them after lifting, inverse before.
#define FLO53(v) (v)
#define FHI53(v) (v)
#define FLO97(v) mul_rn((v), K97_INVK)
#define FHI97(v) mul_rn((v), K97_K)
#define ILO53(v) (v)
#define IHI53(v) (v)
#define ILO97(v) mul_rn((v), K97_K)
#define IHI97(v) mul_rn((v), K97_INVK)
// OpenJPEG's decoder (transform/common/constants.hpp, kInverse97OpenJpeg): highs times
// K97_OJP_HIGH, a lone sample at an odd coordinate left as it is.
#define IHI97O(v) mul_rn((v), K97_OJP_HIGH)

// A signal of one sample (Annex F): doubled at an odd coordinate; the inverse halves it
// (C's truncating division for the 5/3).
#define FSINGLE53(v) (cas ? (v) * 2 : (v))
#define ISINGLE53(v) (cas ? (v) / 2 : (v))
#define FSINGLE97(v) (cas ? mul_rn((v), 2.0f) : (v))
#define ISINGLE97(v) (cas ? mul_rn((v), 0.5f) : (v))
#define ISINGLE97O(v) (v)

// Periodic whole-sample reflection of any position into [0, n), n >= 2.
inline int reflect(int q, int n) {
  const int m = 2 * (n - 1);
  q %= m;
  if (q < 0) q += m;
  return q < n ? q : m - q;
}

// Forward passes read interleaved samples and write deinterleaved ones; inverse passes the
// reverse. Offset of interleaved position p in a deinterleaved line:
inline int deinterleaved(int p, int cas, int sn) {
  return ((p + cas) & 1) == 0 ? (p - cas) >> 1 : sn + ((p - 1 + cas) >> 1);
}

// ============================== vertical pass ==============================
// Work-group = VCOLS x VR work-items on a strip of VCOLS columns and one segment of rows
// [p0, p0 + seg) of output positions. The group slides a window of VWIN rows down the strip:
// each row is read from global memory once into a ring buffer in local memory, lifted there,
// and written out as soon as it is final. Lifting is pipelined: g[s] is the frontier below
// which step s is done; step s may advance to one position behind step s-1 (it needs the
// neighbour below), so only the last S+1 rows have to stay in the ring between windows.
// A segment that does not start at row 0 starts lifting S rows early (b = p0 - S) and
// discards nothing: positions < b + s are never computed by step s, and none is output.
// Fixed trip counts (the loops unroll and their loads issue together). Bounds, for S <= 4:
// a window loads at most VWIN rows; a step's frontier advances at most VWIN + S positions
// (the last window jumps to n), i.e. (VWIN + S + 1) / 2 of its parity; so does the output.
#define VLOAD_ITERS ((VWIN + VR - 1) / VR)
#define VSTEP_ITERS (((VWIN + 5) / 2 + VR - 1) / VR)
#define VOUT_ITERS ((VWIN + 4 + VR - 1) / VR)

#define DEFINE_VERTICAL(NAME, T, S, FWD, LIFT, SCL, SCH, SINGLE)                             \
  __kernel __attribute__((reqd_work_group_size(VCOLS, VR, 1))) void NAME(                    \
      __global const T* restrict src, __global T* restrict dst, long stride, int w, int n,   \
      int cas, int seg) {                                                                      \
    __local T ring[VCAP * VCOLS];                                                              \
    const int lx = get_local_id(0), ly = get_local_id(1);                                    \
    const int x = get_group_id(0) * VCOLS + lx;                                               \
    const bool col = x < w;                                                                    \
    if (n == 1) {                                                                              \
      if (col && ly == 0 && get_group_id(1) == 0) dst[x] = SINGLE(src[x]);                    \
      return;                                                                                  \
    }                                                                                          \
    const int sn = (n + (cas == 0)) >> 1;                                                     \
    const int p0 = get_group_id(1) * seg;                                                     \
    if (p0 >= n) return;                                                                       \
    const int p_end = min(p0 + seg, n);                                                        \
    const int b = max(p0 - S, 0);                                                              \
    int g[S + 1];                                                                              \
    _Pragma("unroll") for (int s = 1; s <= S; ++s) g[s] = b == 0 ? 0 : b + s;                 \
    int e = b, w_out = p0;                                                                     \
    while (w_out < p_end) {                                                                    \
      const int e_new = min(e + VWIN, min(n, p_end + S));                                     \
      /* every load of the window issued before the first store to the ring */               \
      T v[VLOAD_ITERS];                                                                        \
      _Pragma("unroll") for (int k = 0; k < VLOAD_ITERS; ++k) {                                \
        const int p = e + ly + k * VR;                                                         \
        v[k] = 0;                                                                              \
        if (col && p < e_new) {                                                                \
          const int r = FWD ? p : deinterleaved(p, cas, sn);                                   \
          const T u = src[(long)r * stride + x];                                               \
          v[k] = FWD ? u : ((p + cas) & 1) == 0 ? SCL(u) : SCH(u);                             \
        }                                                                                      \
      }                                                                                        \
      _Pragma("unroll") for (int k = 0; k < VLOAD_ITERS; ++k) {                                \
        const int p = e + ly + k * VR;                                                         \
        if (p < e_new) ring[(p & (VCAP - 1)) * VCOLS + lx] = v[k];                             \
      }                                                                                        \
      barrier(CLK_LOCAL_MEM_FENCE);                                                            \
      int prev = e_new;                                                                        \
      _Pragma("unroll") for (int s = 1; s <= S; ++s) {                                         \
        const int gn = e_new == n ? n : max(g[s], prev - 1);                                   \
        const int par = FWD ? (s & 1) : ((s & 1) ^ 1); /* 1: step updates highs */            \
        const int pf = g[s] + (((g[s] + cas) & 1) ^ par);                                     \
        _Pragma("unroll") for (int k = 0; k < VSTEP_ITERS; ++k) {                              \
          const int p = pf + 2 * (ly + k * VR);                                                \
          if (p < gn) {                                                                        \
            const int pm = p == 0 ? 1 : p - 1;                                                 \
            const int pp = p + 1 == n ? n - 2 : p + 1;                                         \
            __local T* c = &ring[(p & (VCAP - 1)) * VCOLS + lx];                               \
            *c = LIFT(s, *c, ring[(pm & (VCAP - 1)) * VCOLS + lx],                             \
                      ring[(pp & (VCAP - 1)) * VCOLS + lx]);                                   \
          }                                                                                    \
        }                                                                                      \
        g[s] = gn;                                                                             \
        prev = gn;                                                                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                                          \
      }                                                                                        \
      const int out_end = min(prev, p_end);                                                    \
      if (col) {                                                                               \
        _Pragma("unroll") for (int k = 0; k < VOUT_ITERS; ++k) {                               \
          const int p = w_out + ly + k * VR;                                                   \
          if (p < out_end) {                                                                   \
            T v = ring[(p & (VCAP - 1)) * VCOLS + lx];                                         \
            if (FWD) v = ((p + cas) & 1) == 0 ? SCL(v) : SCH(v);                               \
            const int r = FWD ? deinterleaved(p, cas, sn) : p;                                 \
            dst[(long)r * stride + x] = v;                                                     \
          }                                                                                    \
        }                                                                                      \
      }                                                                                        \
      w_out = max(w_out, out_end);                                                             \
      e = e_new;                                                                               \
      barrier(CLK_LOCAL_MEM_FENCE);                                                            \
    }                                                                                          \
  }

DEFINE_VERTICAL(vertical_f53, int, 2, 1, F53, FLO53, FHI53, FSINGLE53)
DEFINE_VERTICAL(vertical_i53, int, 2, 0, I53, ILO53, IHI53, ISINGLE53)
DEFINE_VERTICAL(vertical_f97, float, 4, 1, F97, FLO97, FHI97, FSINGLE97)
DEFINE_VERTICAL(vertical_i97, float, 4, 0, I97, ILO97, IHI97, ISINGLE97)
DEFINE_VERTICAL(vertical_i97o, float, 4, 0, I97, ILO97, IHI97O, ISINGLE97O)

// ============================= horizontal pass =============================
// Work-group = HX x HY work-items on HY rows; each work-item computes HP consecutive output
// pairs (pair k = interleaved positions 2k and 2k+1 = low k and high k, for either parity)
// entirely in registers from 2*HP + 2*S + 1 inputs, sharing no intermediates. A row is cut
// into chunks of CH = HX * 2 * HP positions; a work-group takes CPG consecutive chunks (the
// host's choice: one on GPUs, the whole row elsewhere) chunk by chunk, keeping the 2S+2 border
// samples a chunk shares with the previous one in local memory instead of re-reading them.
// Register window r[i] holds position 2*k0 - S - cas + i, so that r[i] is low-pass exactly
// when i is even, whatever cas is.
#define HL(S) (2 * HP + 2 * (S) + 1)
// Local rows skip one word in every 32: work-items reading 2*HP apart (or writing HP apart)
// then hit distinct banks. PADDED(n): the words a padded row of n values occupies.
#define PAD(i) ((i) + ((i) >> 5))
#define PADDED(n) ((n) + ((n) >> 5) + 1)

// The register part of the horizontal pass for one parity CASV (a literal): load the window,
// lift it, put the outputs in local memory (forward: lows then highs; inverse: interleaved).
#define H_COMPUTE(T, S, FWD, LIFT, SCL, SCH, CASV)                                            \
  {                                                                                            \
    T r[HL(S)];                                                                                \
    const int base = 2 * HP * lx + 1 - (CASV);                                                 \
    _Pragma("unroll") for (int i = 0; i < HL(S); ++i) r[i] = li[PAD(base + i)];                \
    _Pragma("unroll") for (int s = 1; s <= S; ++s) {                                           \
      const int par = FWD ? (s & 1) : ((s & 1) ^ 1); /* 1: highs = odd i */                   \
      _Pragma("unroll") for (int i = s; i < HL(S) - s; ++i) {                                  \
        if ((i & 1) == par) r[i] = LIFT(s, r[i], r[i - 1], r[i + 1]);                          \
      }                                                                                        \
    }                                                                                          \
    if (FWD) {                                                                                 \
      _Pragma("unroll") for (int k = 0; k < HP; ++k) {                                         \
        lo[PAD(HP * lx + k)] = SCL(r[S + 2 * (CASV) + 2 * k]);                                 \
        lo[PAD(CH / 2 + HP * lx + k)] = SCH(r[S + 1 + 2 * k]);                                 \
      }                                                                                        \
    } else {                                                                                   \
      _Pragma("unroll") for (int k = 0; k < 2 * HP; ++k) lo[PAD(2 * HP * lx + k)] = r[S + (CASV) + k]; \
    }                                                                                          \
  }

// Loads of positions [first, IN) of a chunk into registers, all issued before any is stored
// to local memory (so they are in flight together), then stored. MPOS(q, ok): the position
// to read for q and whether to read it at all (else 0: never used).
#define H_LOAD(T, S, FWD, SCL, SCH, MPOS)                                                      \
  {                                                                                            \
    T v[2 * HP + 2];                                                                           \
    _Pragma("unroll") for (int k = 0; k < 2 * HP + 2; ++k) {                                   \
      const int i = first + lx + k * hx;                                                       \
      const int q = c0 - S - 1 + i;                                                            \
      bool ok = row_ok && i < IN;                                                              \
      int m = q;                                                                               \
      MPOS(q, ok, m, S);                                                                        \
      v[k] = 0;                                                                                \
      if (ok) {                                                                                \
        if (FWD) {                                                                             \
          v[k] = src[rb + m];                                                                  \
        } else {                                                                               \
          const T x = src[rb + deinterleaved(m, cas, sn)];                                     \
          v[k] = ((m + cas) & 1) == 0 ? SCL(x) : SCH(x);                                       \
        }                                                                                      \
      }                                                                                        \
    }                                                                                          \
    _Pragma("unroll") for (int k = 0; k < 2 * HP + 2; ++k) {                                   \
      const int i = first + lx + k * hx;                                                       \
      if (i < IN) li[PAD(i)] = v[k];                                                           \
    }                                                                                          \
  }
#define H_INTERIOR(q, ok, m, S)
#define H_BORDER(q, ok, m, S)                                                                   \
  {                                                                                            \
    ok = ok && q <= n + S;                                                                     \
    if (q < 0 || q >= n) m = reflect(q, n);                                                    \
  }

// Work-group = HX x HY work-items on HY rows and a range of CPG chunks of the row (group x
// index g covers positions [g * CPG * CH, (g + 1) * CPG * CH)); groups share nothing, a group
// reads the 2S+2 border samples before its first chunk itself.
#define DEFINE_HORIZONTAL(NAME, T, S, FWD, LIFT, SCL, SCH, SINGLE)                           \
  __kernel void NAME(__global const T* restrict src, __global T* restrict dst, long stride,   \
                     int n, int h, int cas, int cpg, __local T* in, __local T* out) {         \
    const int lx = get_local_id(0), ly = get_local_id(1);                                    \
    const int hx = get_local_size(0);                                                          \
    const int y = get_group_id(1) * get_local_size(1) + ly;                                    \
    const bool row_ok = y < h;                                                                 \
    const long rb = (long)y * stride;                                                          \
    if (n == 1) {                                                                              \
      if (row_ok && lx == 0 && get_group_id(0) == 0) dst[rb] = SINGLE(src[rb]);                \
      return;                                                                                  \
    }                                                                                          \
    const int CH = hx * 2 * HP;                                                                \
    const int IN = CH + 2 * S + 2;                                                             \
    __local T* li = in + ly * PADDED(IN);                                                      \
    __local T* lo = out + ly * PADDED(CH);                                                     \
    const int sn = (n + (cas == 0)) >> 1, dn = n - sn;                                        \
    const int c_begin = get_group_id(0) * cpg * CH;                                            \
    const int c_end = min(n, c_begin + cpg * CH);                                              \
    for (int c0 = c_begin; c0 < c_end; c0 += CH) {                                             \
      /* li[i] holds position c0 - S - 1 + i */                                                \
      int first = 0;                                                                           \
      if (c0 > c_begin) {                                                                      \
        for (int i = lx; i < 2 * S + 2; i += hx) li[PAD(i)] = li[PAD(CH + i)];                 \
        barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        first = 2 * S + 2;                                                                     \
      }                                                                                        \
      /* IN <= hx * (2 * HP + 2) as hx >= S + 1: a fixed trip count */                        \
      if (c0 - S - 1 >= 0 && c0 - S - 1 + IN <= n)                                             \
        H_LOAD(T, S, FWD, SCL, SCH, H_INTERIOR)                                                 \
      else                                                                                     \
        H_LOAD(T, S, FWD, SCL, SCH, H_BORDER)                                                   \
      barrier(CLK_LOCAL_MEM_FENCE);                                                            \
      /* cas as a literal in each copy: the register window is never indexed at run time */ \
      if (cas)                                                                                 \
        H_COMPUTE(T, S, FWD, LIFT, SCL, SCH, 1)                                                \
      else                                                                                     \
        H_COMPUTE(T, S, FWD, LIFT, SCL, SCH, 0)                                                \
      barrier(CLK_LOCAL_MEM_FENCE);                                                            \
      if (row_ok) {                                                                            \
        if (FWD) {                                                                             \
          _Pragma("unroll") for (int k = 0; k < HP; ++k) {                                     \
            const int i = lx + k * hx, j = c0 / 2 + i;                                         \
            if (j < sn) dst[rb + j] = lo[PAD(i)];                                              \
            if (j < dn) dst[rb + sn + j] = lo[PAD(CH / 2 + i)];                                \
          }                                                                                    \
        } else {                                                                               \
          _Pragma("unroll") for (int k = 0; k < 2 * HP; ++k) {                                 \
            const int i = lx + k * hx;                                                         \
            if (c0 + i < n) dst[rb + c0 + i] = lo[PAD(i)];                                     \
          }                                                                                    \
        }                                                                                      \
      }                                                                                        \
    }                                                                                          \
  }

DEFINE_HORIZONTAL(horizontal_f53, int, 2, 1, F53, FLO53, FHI53, FSINGLE53)
DEFINE_HORIZONTAL(horizontal_i53, int, 2, 0, I53, ILO53, IHI53, ISINGLE53)
DEFINE_HORIZONTAL(horizontal_f97, float, 4, 1, F97, FLO97, FHI97, FSINGLE97)
DEFINE_HORIZONTAL(horizontal_i97, float, 4, 0, I97, ILO97, IHI97, ISINGLE97)
DEFINE_HORIZONTAL(horizontal_i97o, float, 4, 0, I97, ILO97, IHI97O, ISINGLE97O)

// ---- DC level shift and component transforms (transform/opencl/queue.cpp) ----
// The mirror of transform/cpu/shift_mct.cpp: a sample of its own width (type: the
// j2k_sample_type value, 0 U8 .. 5 I32; pitches in samples, so that interleaved components are
// read where they were uploaded) minus the DC offset, into int32 (5/3) or float (9/7);
// a sample outside [lo, hi] sets *flag. Then RCT / ICT in place on components 0..2 (the ICT
// constants ICT_* come from the host, from transform/common/constants.hpp).

long load_sample(__global const uchar* p, int type, long i) {
  switch (type) {
    case 0: return p[i];
    case 1: return ((__global const char*)p)[i];
    case 2: return ((__global const ushort*)p)[i];
    case 3: return ((__global const short*)p)[i];
    case 4: return ((__global const uint*)p)[i];
    default: return ((__global const int*)p)[i];
  }
}

#define DEFINE_SHIFT(name, T)                                                                 \
  __kernel void name(__global const uchar* in, ulong in_offset, int type, int width, int height, \
                     long row_pitch, int pixel_pitch, int dc, long lo, long hi,                 \
                     __global T* out, int out_stride, __global int* flag) {                     \
    const int x = get_global_id(0), y = get_global_id(1);                                     \
    if (x >= width || y >= height) return;                                                    \
    const long v = load_sample(in + in_offset, type, (long)y * row_pitch + (long)x * pixel_pitch); \
    if (v < lo || v > hi) *flag = 1;                                                          \
    out[(long)y * out_stride + x] = (T)((int)(v - dc));                                       \
  }
DEFINE_SHIFT(shift_i32, int)
DEFINE_SHIFT(shift_f32, float)

__kernel void rct_forward(__global int* c0, __global int* c1, __global int* c2, int width,
                          int height, int stride) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const long i = (long)y * stride + x;
  const int r = c0[i], g = c1[i], b = c2[i];
  c0[i] = WADD(WADD(r, WADD(g, g)), b) >> 2;
  c1[i] = WSUB(b, g);
  c2[i] = WSUB(r, g);
}

__kernel void ict_forward(__global float* c0, __global float* c1, __global float* c2, int width,
                          int height, int stride) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const long i = (long)y * stride + x;
  const float r = c0[i], g = c1[i], b = c2[i];
  // Each product rounded, sums left to right (a - b is a + (-b), exactly).
  c0[i] = add_rn(add_rn(mul_rn(ICT_YR, r), mul_rn(ICT_YG, g)), mul_rn(ICT_YB, b));
  c1[i] = add_rn(add_rn(mul_rn(ICT_UR, r), -mul_rn(ICT_UG, g)), mul_rn(ICT_UB, b));
  c2[i] = add_rn(add_rn(mul_rn(ICT_VR, r), -mul_rn(ICT_VG, g)), -mul_rn(ICT_VB, b));
}

// Int16 output of the 5/3 (transform/opencl/queue.cpp): coefficients known to fit.
__kernel void narrow_i16(__global const int* src, int width, int height, int src_stride,
                         __global short* dst, ulong dst_offset, int dst_stride) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  dst[dst_offset + (long)y * dst_stride + x] = (short)src[(long)y * src_stride + x];
}

// ---- The decoder's last step (transform/opencl/queue.cpp, to_samples) ----
// The mirror of transform/cpu/to_samples.cpp: the inverse RCT / ICT on components 0..2, the
// DC offset added back, the clamp to [lo, hi] (a float rounded to nearest, ties to even,
// first), stored at the output's type (0 U8, 1 I8, 2 U16, 3 I16, 4 U32, 5 I32). Offsets in bytes, strides
// in elements of each plane.

void store_sample(__global uchar* p, int type, long i, int v) {
  switch (type) {
    case 0: p[i] = (uchar)v; break;
    case 1: ((__global char*)p)[i] = (char)v; break;
    case 2: ((__global ushort*)p)[i] = (ushort)v; break;
    case 3: ((__global short*)p)[i] = (short)v; break;
    case 4: ((__global uint*)p)[i] = (uint)v; break;
    default: ((__global int*)p)[i] = v; break;
  }
}

int clamp_i(long s, int lo, int hi) { return (int)(s < lo ? lo : s > hi ? hi : s); }
int sample_i32(int v, int dc, int lo, int hi) { return clamp_i((long)v + dc, lo, hi); }
int sample_f32(float f, int dc, int lo, int hi) {
  if (!(f <= 2147483648.0f)) return hi;  // also NaN
  if (f < -2147483648.0f) return lo;
  return clamp_i(convert_long_rte(f) + dc, lo, hi);
}

#define PLANE_ARGS(n) __global const uchar* in##n, ulong in_offset##n, int in_stride##n,     \
                      __global uchar* out##n, ulong out_offset##n, int out_stride##n, int type##n, \
                      int dc##n, int lo##n, int hi##n
#define IN(n, T) ((__global const T*)(in##n + in_offset##n))[(long)y * in_stride##n + x]
#define OUT(n, v) store_sample(out##n + out_offset##n, type##n, (long)y * out_stride##n + x, (v))

#define DEFINE_TO_SAMPLES(name, T, SAMPLE)                                                    \
  __kernel void name(PLANE_ARGS(0), int width, int height) {                         \
    const int x = get_global_id(0), y = get_global_id(1);                                     \
    if (x >= width || y >= height) return;                                                    \
    OUT(0, SAMPLE(IN(0, T), dc0, lo0, hi0));                                                  \
  }
DEFINE_TO_SAMPLES(to_samples_i32, int, sample_i32)
DEFINE_TO_SAMPLES(to_samples_f32, float, sample_f32)

__kernel void to_samples_rct(PLANE_ARGS(0), PLANE_ARGS(1), PLANE_ARGS(2), int width, int height) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int yy = IN(0, int), u = IN(1, int), v = IN(2, int);
  const int g = WSUB(yy, WADD(u, v) >> 2);
  OUT(0, sample_i32(WADD(v, g), dc0, lo0, hi0));
  OUT(1, sample_i32(g, dc1, lo1, hi1));
  OUT(2, sample_i32(WADD(u, g), dc2, lo2, hi2));
}

__kernel void to_samples_ict(PLANE_ARGS(0), PLANE_ARGS(1), PLANE_ARGS(2), int width, int height) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const float yy = IN(0, float), u = IN(1, float), v = IN(2, float);
  // Each product rounded, left to right (a - b is a + (-b), exactly).
  OUT(0, sample_f32(add_rn(yy, mul_rn(ICT_RV, v)), dc0, lo0, hi0));
  OUT(1, sample_f32(add_rn(add_rn(yy, -mul_rn(ICT_GU, u)), -mul_rn(ICT_GV, v)), dc1, lo1, hi1));
  OUT(2, sample_f32(add_rn(yy, mul_rn(ICT_BU, u)), dc2, lo2, hi2));
}
