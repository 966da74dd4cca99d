// SPDX-License-Identifier: BSD-2-Clause
// The HT cleanup pass (ISO/IEC 15444-15 clause 7.3) of code-blocks in OpenCL C 1.2, one
// code-block a work-item: the OpenCL counterpart of cuda/warp_cleanup.cuh, written again from
// the shared C++ coder (ht/cleanup_encoder.hpp, ht/bit_writers.hpp, ht/quad_rules.hpp), whose
// names it keeps so that the two read side by side. Its bytes are encode_cleanup_in_place()'s
// (and so ht::encode_block()'s); the host test compares them block by block.
//
// The writers here emit a byte as soon as its bits are there: the C++ writers hold up to 32
// bits and store whole words for speed, but a byte's value and width (8 bits, or 7 after a
// stuffing byte) depend only on the bits before it, so the bytes are the same.
//
// The tables come from the host (ht_block_encoder.cpp uploads the CPU's): cxt_vlc[2][2176]
// (cxt_vlc_encode_table(), [1] the initial line-pair's) and uvlc[33] (kUvlcTable).
// Also here: the 9/7's quantisation into int32 (batch_quantise.hpp's arithmetic), and the
// packing of the coded segments end to end (a scan of their sizes, then a copy).

// Doubles for the 9/7's quantisation, where the device has them (J2K_FP64, set by the host
// from CL_DEVICE_EXTENSIONS; without them the kernel is left out and the host says so).
#if J2K_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#pragma OPENCL FP_CONTRACT OFF

// The host's records, byte for byte (static_asserts in ht_block_encoder.cpp).
typedef struct {
  uchar codeword, length, e_k, e_1;
} CxtVlcCodeword;

typedef struct {
  uint prefix, suffix, extension;
  int prefix_length, suffix_length, extension_length;
} Uvlc;

#define CXT_VLC_ENTRIES (8 * 16 * 17)
#define UVLC_ENTRIES 33

// A block: its coefficients in_buffer[data + y * stride + x] (int32 values), its output slot
// (output + slot bytes, cleanup_output_capacity) and its scratch (scratch + scratch_at bytes,
// cleanup_scratch_bytes, from a 16-byte boundary).
typedef struct {
  ulong data;
  long stride;
  ulong slot;
  ulong scratch_at;
  short width, height;
  uchar band, fraction_bits, cleanup_plane, source;  // source: which launch reads the block
  uchar flags;                                       // a set (SET, REVERSIBLE, CAUSAL): finish_sets
  uchar unused[7];
} HtBlock;

#define SET 1
#define REVERSIBLE 2
#define CAUSAL 4

// CleanupResult (cleanup_encoder.hpp).
typedef struct {
  uint bytes;
  uchar bitplanes, magnitude_bitplanes, status, unused;
} CleanupResult;

#define CLEANUP_CODED 0
#define CLEANUP_TOO_LARGE 1
#define CLEANUP_SCUP_OVERFLOW 2

// ---- sizes (cleanup_encoder.hpp, bit_writers.hpp) -----------------------------------------

static inline ulong align16(ulong n) { return (n + 15) & ~(ulong)15; }
static inline ulong mel_capacity(ulong samples) { return samples * 2 + 16; }
static inline ulong rho_entries(int width) { return (ulong)((width + 1) / 2) + 3; }
static inline ulong e_entries(int width) { return (ulong)((width + 3) & ~3) + 4; }
static inline ulong rows_bytes(int width) { return 2 * rho_entries(width) * 4 + 2 * e_entries(width); }

// ---- quad rules (quad_rules.hpp) ----------------------------------------------------------

static inline int bit_length(uint x) { return x ? 32 - (int)clz(x) : 0; }

static inline int initial_row_context(uint left_rho) {
  return (int)(((left_rho | (left_rho >> 1)) & 1) | (((left_rho >> 2) & 1) << 1) | (((left_rho >> 3) & 1) << 2));
}

static inline int other_row_context(uint above_left, uint above, uint above_right, uint left) {
  const uint nw = (above_left >> 3) & 1, n = (above >> 1) & 1, ne = (above >> 3) & 1, nf = (above_right >> 1) & 1;
  const uint w = (left >> 2) & 1, sw = (left >> 3) & 1;
  return (int)((nw | n) | ((w | sw) << 1) | ((ne | nf) << 2));
}

// ---- samples (cleanup_encoder.hpp) --------------------------------------------------------

static inline uint sign_of(int v) { return (uint)v >> 31; }
static inline uint magnitude_of(int v) {
  const uint sign = sign_of(v);
  return ((uint)v ^ (0u - sign)) + sign;
}
static inline uint quad_sample(uint magnitude, uint sign, int shift) {
  const uint mu = magnitude >> shift;
  return (mu << 1) | (mu != 0 ? sign : 0u);
}
// A significant sample's exponent from 2 * mu + sign; 0 for mu = 0.
static inline int exponent_of(uint twice_mu) {
  const int e = 32 - (int)clz(((twice_mu | 1) - 2) | 1);
  return twice_mu > 1 ? e : 0;
}
static inline uint low_bits(int n) { return (uint)(((ulong)1 << n) - 1); }

// PlaneQuads::Line::at: a sample of the line-pair, 0 outside the block.
static inline uint sample_at(__global const int* row, int x, int width, int shift) {
  if (row == 0 || x >= width) return 0;
  const int v = row[x];
  return quad_sample(magnitude_of(v), sign_of(v), shift);
}

// ---- MagSgn: ForwardWriter (bit_writers.hpp) ----------------------------------------------

typedef struct {
  __global uchar* begin;
  __global uchar* end;
  ulong acc;
  int count, room;  // room: 8 bits, or 7 after a 0xFF
} ForwardWriter;

static inline void forward_put(ForwardWriter* w, uint v, int n) {
  w->acc |= ((ulong)v & (((ulong)1 << n) - 1)) << w->count;
  w->count += n;
  while (w->count >= w->room) {
    const uchar byte = (uchar)(w->acc & ((1u << w->room) - 1));
    *w->end++ = byte;
    w->acc >>= w->room;
    w->count -= w->room;
    w->room = byte == 0xFF ? 7 : 8;
  }
}

// finish_magsgn: the last byte padded with 1s, dropped where that makes it 0xFF (as a last
// 0xFF is).
static inline void finish_magsgn(ForwardWriter* w) {
  if (w->count > 0) {
    const uchar byte = (uchar)((w->acc | ((ulong)0xFF << w->count)) & ((1u << w->room) - 1));
    if (byte != 0xFF) *w->end++ = byte;
  } else if (w->end != w->begin && w->end[-1] == 0xFF) {
    --w->end;
  }
}

// ---- MEL: MelEncoder (bit_writers.hpp) ----------------------------------------------------

typedef struct {
  __global uchar* begin;
  __global uchar* end;
  uint tmp;
  int left;  // bits the byte being filled has room for
  int k, run;
} MelEncoder;

// The run exponent of state k, Table C.1 of Part 15 (MelEncoder::kExponents).
static inline int mel_exponent(int k) { return (int)((0x5433222111000UL >> (4 * k)) & 0xF); }

static inline void mel_bit(MelEncoder* m, int b) {
  m->tmp = (m->tmp << 1) | (uint)b;
  if (--m->left == 0) {
    *m->end++ = (uchar)m->tmp;
    m->left = m->tmp == 0xFF ? 7 : 8;
    m->tmp = 0;
  }
}

static inline void mel_put(MelEncoder* m, int one) {
  const int e = mel_exponent(m->k);
  if (!one) {
    if (++m->run < (1 << e)) return;
    mel_bit(m, 1);  // a full run of 2^E zeros
    m->run = 0;
    m->k = m->k < 12 ? m->k + 1 : 12;
    return;
  }
  mel_bit(m, 0);  // a short run, its length in E bits, then the one
  for (int t = e - 1; t >= 0; --t) mel_bit(m, (m->run >> t) & 1);
  m->run = 0;
  m->k = m->k > 0 ? m->k - 1 : 0;
}

// ---- VLC: BackwardWriter from kVlc (bit_writers.hpp) --------------------------------------

typedef struct {
  __global uchar* begin;
  __global uchar* end;
  ulong acc;
  int count;
  int above_8f;  // the last byte out was above 0x8F
} BackwardWriter;

static inline int vlc_stuffs(const BackwardWriter* w) { return w->above_8f && (w->acc & 0x7F) == 0x7F; }

static inline void vlc_emit(BackwardWriter* w) {
  const int width = vlc_stuffs(w) ? 7 : 8;
  const uchar byte = (uchar)(w->acc & ((1u << width) - 1));
  *w->end++ = byte;
  w->acc >>= width;
  w->count -= width;
  w->above_8f = byte > 0x8F;
}

static inline void vlc_put(BackwardWriter* w, uint v, int n) {
  w->acc |= ((ulong)v & (((ulong)1 << n) - 1)) << w->count;
  w->count += n;
  while (w->count >= 8) vlc_emit(w);
}

static inline void vlc_settle(BackwardWriter* w) {
  while (w->count >= 8 || (w->count == 7 && vlc_stuffs(w))) vlc_emit(w);
}

// ---- the U-VLC of a quad pair (CleanupEncoder::put_u, put_pair) ---------------------------

static inline void put_pair(BackwardWriter* vlc, __constant const Uvlc* a, __constant const Uvlc* b) {
  vlc_put(vlc, a->prefix, a->prefix_length);
  vlc_put(vlc, b->prefix, b->prefix_length);
  vlc_put(vlc, a->suffix, a->suffix_length);
  vlc_put(vlc, b->suffix, b->suffix_length);
  vlc_put(vlc, a->extension, a->extension_length);
  vlc_put(vlc, b->extension, b->extension_length);
}

static inline void put_u(int initial, int ua, int ub, MelEncoder* mel, BackwardWriter* vlc, __constant const Uvlc* code) {
  if (initial && ua > 0 && ub > 0) {
    mel_put(mel, min(ua, ub) > 2);
    if (ua > 2 && ub > 2) {
      put_pair(vlc, &code[ua - 2], &code[ub - 2]);
    } else if (ua > 2) {
      __constant const Uvlc* ca = &code[ua];
      vlc_put(vlc, ca->prefix, ca->prefix_length);
      vlc_put(vlc, (uint)(ub - 1), 1);
      vlc_put(vlc, ca->suffix, ca->suffix_length);
      vlc_put(vlc, ca->extension, ca->extension_length);
    } else {
      put_pair(vlc, &code[ua], &code[ub]);
    }
    return;
  }
  put_pair(vlc, &code[ua], &code[ub]);
}

// ---- one block's cleanup pass (encode_cleanup_in_place) -----------------------------------

__kernel void encode_cleanup(__global const HtBlock* blocks, int count, int source, __global const int* in, __global uchar* output,
                             __global uchar* scratch, __constant const CxtVlcCodeword* cxt_vlc, __constant const Uvlc* uvlc,
                             __global CleanupResult* results, __global ulong* sizes) {
  const int i = (int)get_global_id(0);
  if (i >= count) return;
  const HtBlock b = blocks[i];
  if ((int)b.source != source) return;  // another launch's
  const int width = b.width, height = b.height;
  __global const int* data = in + b.data;
  uint any = 0;
  for (int y = 0; y < height; ++y) {
    __global const int* row = data + (long)y * b.stride;
    for (int x = 0; x < width; ++x) any |= magnitude_of(row[x]);
  }
  // plan_cleanup
  any >>= b.fraction_bits;
  const int plane = b.cleanup_plane;
  CleanupResult r;
  r.bytes = 0;
  r.magnitude_bitplanes = (uchar)bit_length(any);
  r.bitplanes = (any >> plane) != 0 ? (uchar)(plane + 1) : 0;
  r.status = CLEANUP_CODED;
  r.unused = 0;
  if (r.bitplanes != 0 && plane == 0 && (any >> 31) != 0) r.status = CLEANUP_TOO_LARGE;
  if (r.bitplanes == 0 || r.status != CLEANUP_CODED) {  // no pass, or none possible
    results[i] = r;
    sizes[i] = 0;
    return;
  }

  // The scratch: CleanupRows (rho[2], e[2]), MEL's buffer, VLC's.
  const ulong n = (ulong)width * (ulong)height;
  __global uchar* s = scratch + b.scratch_at;
  const ulong rho_n = rho_entries(width), e_n = e_entries(width);
  __global uint* rho[2];
  __global uchar* e[2];
  rho[0] = (__global uint*)s;
  rho[1] = rho[0] + rho_n;
  e[0] = (__global uchar*)(rho[1] + rho_n);
  e[1] = e[0] + e_n;
  for (int k = 0; k < 2; ++k) {
    for (ulong j = 0; j < rho_n; ++j) rho[k][j] = 0;
    for (ulong j = 0; j < e_n; ++j) e[k][j] = 0;
  }
  __global uchar* out = output + b.slot;
  ForwardWriter magsgn = {out, out, 0, 0, 8};
  __global uchar* mel_buffer = s + align16(rows_bytes(width));
  MelEncoder mel = {mel_buffer, mel_buffer, 0, 8, 0, 0};
  __global uchar* vlc_buffer = mel_buffer + align16(mel_capacity(n));
  BackwardWriter vlc = {vlc_buffer, vlc_buffer, 0x0F, 4, 1};
  *vlc.end++ = 0xFF;  // the segment's last byte, left for Scup (as is the low nibble of the next)

  const int shift = b.fraction_bits + plane;
  const int qw = (width + 1) / 2, qh = (height + 1) / 2;
  int above_index = 0;
  for (int pair = 0; pair < qh; ++pair) {
    const int initial = pair == 0;
    __global const int* top = data + (long)(2 * pair) * b.stride;
    __global const int* bottom = 2 * pair + 1 < height ? top + b.stride : 0;
    __global const uint* above = rho[above_index] + 1;
    __global uint* row = rho[above_index ^ 1] + 1;
    __global const uchar* e_above = e[above_index] + 1;
    __global uchar* e_row = e[above_index ^ 1] + 1;
    __constant const CxtVlcCodeword* table = cxt_vlc + (initial ? CXT_VLC_ENTRIES : 0);
    for (int q = 0; q < qw; q += 2) {
      int u[2] = {0, 0};
      const int quads = min(2, qw - q);
      for (int t = 0; t < quads; ++t) {
        const int k = q + t, x = 2 * k;
        uint m[4];
        m[0] = sample_at(top, x, width, shift);
        m[1] = sample_at(bottom, x, width, shift);
        m[2] = sample_at(top, x + 1, width, shift);
        m[3] = sample_at(bottom, x + 1, width, shift);
        int ex[4];
        for (int j = 0; j < 4; ++j) ex[j] = exponent_of(m[j]);
        const uint rho_q = (m[0] > 1 ? 1u : 0u) | (m[1] > 1 ? 2u : 0u) | (m[2] > 1 ? 4u : 0u) | (m[3] > 1 ? 8u : 0u);
        row[k] = rho_q;
        e_row[x] = (uchar)ex[1];
        e_row[x + 1] = (uchar)ex[3];
        const int e_max = max(max(ex[0], ex[1]), max(ex[2], ex[3]));
        const int cx = initial ? initial_row_context(row[k - 1]) : other_row_context(above[k - 1], above[k], above[k + 1], row[k - 1]);
        int kappa = 1;
        if (!initial) {
          const int e_near = max(max((int)e_above[x - 1], (int)e_above[x]), max((int)e_above[x + 1], (int)e_above[x + 2]));
          kappa = (rho_q & (rho_q - 1)) != 0 ? max(1, e_near - 1) : 1;
        }
        const int big_u = max(e_max, kappa);
        u[t] = big_u - kappa;
        // Context 0: MEL says whether the quad is significant.
        if (cx == 0) mel_put(&mel, rho_q != 0);
        const uint at_bound =
            (ex[0] == big_u ? 1u : 0u) | (ex[1] == big_u ? 2u : 0u) | (ex[2] == big_u ? 4u : 0u) | (ex[3] == big_u ? 8u : 0u);
        const CxtVlcCodeword cw = table[((uint)cx * 16 + rho_q) * 17 + (u[t] > 0 ? 1 + at_bound : 0)];
        vlc_put(&vlc, cw.codeword, (cx | (int)rho_q) != 0 ? cw.length : 0);
        // Each significant sample's bits below those the codeword gives.
        for (int j = 0; j < 4; ++j) {
          const int bits = ((rho_q >> j) & 1) ? big_u - ((cw.e_k >> j) & 1) : 0;
          forward_put(&magsgn, (m[j] - 2) & low_bits(bits), bits);
        }
      }
      put_u(initial, u[0], u[1], &mel, &vlc, uvlc);
    }
    above_index ^= 1;
  }

  // finish_cleanup: the streams ended, MEL's and VLC's last bytes fused where they can be.
  finish_magsgn(&magsgn);
  if (mel.run > 0) mel_bit(&mel, 1);  // close_run: a run cut short by the block's end, sent whole
  mel.run = 0;
  vlc_settle(&vlc);
  const int mel_room = mel.left;
  const uint mel_tmp = (mel.tmp << mel_room) & 0xFF;
  const uint mel_mask = (0xFFu << mel_room) & 0xFF;
  const uint vlc_tmp = (uint)vlc.acc;
  const uint vlc_mask = 0xFFu >> (8 - vlc.count);
  if ((mel_mask | vlc_mask) != 0) {
    const uint fuse = mel_tmp | vlc_tmp;
    if (((fuse ^ mel_tmp) & mel_mask) == 0 && ((fuse ^ vlc_tmp) & vlc_mask) == 0 && fuse != 0xFF && vlc.end - vlc.begin > 1) {
      *mel.end++ = (uchar)fuse;
    } else {
      *mel.end++ = (uchar)mel_tmp;
      *vlc.end++ = (uchar)vlc_tmp;
    }
  }
  const ulong mel_size = (ulong)(mel.end - mel.begin), vlc_size = (ulong)(vlc.end - vlc.begin);
  const ulong scup = mel_size + vlc_size;
  if (scup > 4079) {
    r.status = CLEANUP_SCUP_OVERFLOW;
    results[i] = r;
    sizes[i] = 0;
    return;
  }
  // write_cleanup: MagSgn is in place; MEL, then VLC reversed, the last 12 bits Scup.
  __global uchar* o = magsgn.end;
  for (ulong j = 0; j < mel_size; ++j) *o++ = mel.begin[j];
  for (ulong j = vlc_size; j > 0; --j) *o++ = vlc.begin[j - 1];
  o[-1] = (uchar)(scup >> 4);
  o[-2] = (uchar)((o[-2] & 0xF0) | (scup & 0x0F));
  r.bytes = (uint)(o - out);
  results[i] = r;
  sizes[i] = r.bytes;
}

// ---- packing: offsets by a scan of the sizes, then each segment to its place ---------------

#define SCAN_ITEMS 256

// One work-group of SCAN_ITEMS: offsets[i] the sum of sizes[0..i), each work-item a run of
// blocks.
__kernel __attribute__((reqd_work_group_size(SCAN_ITEMS, 1, 1))) void scan_sizes(__global const ulong* sizes, int count,
                                                                                 __global ulong* offsets) {
  __local ulong partial[SCAN_ITEMS];
  const int t = (int)get_local_id(0);
  const int per = (count + SCAN_ITEMS - 1) / SCAN_ITEMS;
  const int from = min(count, t * per), to = min(count, from + per);
  ulong sum = 0;
  for (int i = from; i < to; ++i) sum += sizes[i];
  partial[t] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t == 0) {
    ulong run = 0;
    for (int k = 0; k < SCAN_ITEMS; ++k) {
      const ulong s = partial[k];
      partial[k] = run;
      run += s;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  ulong at = partial[t];
  for (int i = from; i < to; ++i) {
    offsets[i] = at;
    at += sizes[i];
  }
}

// Block get_group_id(0)'s segment from its slot to packed + offsets[i], the group's
// work-items a byte each in turn.
__kernel void pack_segments(__global const HtBlock* blocks, __global const uchar* output, __global const ulong* sizes,
                            __global const ulong* offsets, __global uchar* packed) {
  const int i = (int)get_group_id(0);
  __global const uchar* from = output + blocks[i].slot;
  __global uchar* to = packed + offsets[i];
  const ulong n = sizes[i];
  for (ulong k = get_local_id(0); k < n; k += get_local_size(0)) to[k] = from[k];
}

// ---- the 9/7's quantisation (batch_quantise.hpp) ------------------------------------------
#if J2K_FP64

// A 9/7 block to quantise: its floats at in[src + y * stride + x], its int32 at out[dst + y *
// width + x]; scale 2^fraction_bits / delta, computed on the host as quantise_block does.
typedef struct {
  ulong src;
  long stride;
  ulong dst;
  double scale;
  int width, height;
} QuantiseJob;

// One work-group a block. quantise_value(): IEEE double, the product rounded once (nothing
// to contract it with: floor follows), so the same int32 as on the host; `too_large` set where
// a magnitude reaches 2^31 steps or is not a number (quantise_block refuses the block then).
__kernel void quantise_blocks(__global const QuantiseJob* jobs, __global const float* in, __global int* out,
                              __global uint* too_large) {
  const QuantiseJob j = jobs[get_group_id(0)];
  const int n = j.width * j.height;
  for (int k = (int)get_local_id(0); k < n; k += (int)get_local_size(0)) {
    const int y = k / j.width, x = k - y * j.width;
    const double v = (double)in[j.src + (long)y * j.stride + x];
    const double m = floor(fabs(v) * j.scale);
    int q = 0;
    if (!(m < 2147483648.0)) {
      atomic_or(too_large, 1u);
    } else {
      q = (int)m;
      q = v < 0 ? -q : q;
    }
    out[j.dst + (ulong)k] = q;
  }
}

// ---- HT rate control's sets (refinement_encoder.hpp) and plane model (plane_estimates.hpp) --
// A block added as a set gets, after encode_cleanup, its SigProp and MagRef passes appended to
// its segment and the figures ht::encode_block reports with estimate_distortion: the same
// sums of doubles in the same order as the CPU's (one work-item a block).

// HtSetFigures (ht_block_encoder.cpp).
typedef struct {
  double energy;
  double removed[3];  // cleanup, SigProp, MagRef
  uint sigprop_bytes, magref_bytes;
} SetFigures;

static inline ulong sigprop_capacity(ulong samples) { return samples / 2 + 64; }

// reconstruction(): the decoder's magnitude in steps for mu known down to plane p.
static inline double reconstruction(uint mu, int p, int reversible) {
  if (mu == 0) return 0;
  if (reversible && p == 0) return (double)mu;
  return ((double)mu + 0.5) * (double)((ulong)1 << p);
}

// A block's indices (IndexBlock).
static inline int index_at(__global const int* data, long stride, int x, int y) { return data[(long)y * stride + x]; }
static inline uint index_mu(__global const int* data, long stride, int fb, int x, int y) {
  return magnitude_of(index_at(data, stride, x, y)) >> fb;
}
static inline double index_steps(__global const int* data, long stride, int fb, int x, int y) {
  return (double)magnitude_of(index_at(data, stride, x, y)) / (double)((ulong)1 << fb);
}

// SigProp's finish: the last byte padded with 0s; a 0 after a last 0xFF.
static inline void finish_sigprop(ForwardWriter* w) {
  if (w->count > 0) *w->end++ = (uchar)(w->acc & ((1u << w->room) - 1));
  else if (w->end != w->begin && w->end[-1] == 0xFF) *w->end++ = 0;
}

__kernel void finish_sets(__global const HtBlock* blocks, int count, int source, __global const int* in, __global uchar* output,
                          __global uchar* scratch, __global const CleanupResult* results, __global SetFigures* figures,
                          __global ulong* sizes) {
  const int i = (int)get_global_id(0);
  if (i >= count) return;
  const HtBlock b = blocks[i];
  if ((int)b.source != source || !(b.flags & SET)) return;
  const CleanupResult r = results[i];
  __global const int* data = in + b.data;
  const long stride = b.stride;
  const int w = b.width, h = b.height, fb = b.fraction_bits, plane = b.cleanup_plane;
  const int reversible = (b.flags & REVERSIBLE) != 0, causal = (b.flags & CAUSAL) != 0;
  SetFigures f;
  f.energy = 0;
  f.removed[0] = f.removed[1] = f.removed[2] = 0;
  f.sigprop_bytes = f.magref_bytes = 0;
  const int refine = plane > 0 && r.bitplanes != 0;
  if (refine) {  // index_energy
    double energy = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double m = (double)magnitude_of(index_at(data, stride, x, y));
        energy += m * m;
      }
    f.energy = energy / (double)((ulong)1 << (2 * fb));
  } else {
    // A cleanup pass at plane 0: the integer sums where exact (exact_plane0), else doubles.
    int exact = 0;
    if (plane == 0) {
      uint any = 0;
      ulong energy = 0, removed = 0;
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const uint m = magnitude_of(index_at(data, stride, x, y));
          const uint mu = m >> fb;
          const int error = (int)(2 * m - ((2 * mu + (reversible ? 0u : 1u)) << fb));
          const ulong square = 4 * ((ulong)m * m);
          any |= m;
          energy += square;
          removed += mu != 0 ? square - (ulong)((long)error * error) : 0;
        }
      if ((any >> 25) == 0 && (energy >> 53) == 0) {
        const double unit = (double)((ulong)1 << (2 + 2 * fb));
        f.energy = (double)energy / unit;
        f.removed[0] = (double)removed / unit;
        exact = 1;
      }
    }
    if (!exact) {  // plane0_estimate
      const double middle = reversible ? 0.0 : 0.5;  // ("half" is a type in OpenCL C)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const double a = index_steps(data, stride, fb, x, y);
          const uint mu = index_mu(data, stride, fb, x, y);
          const double left = a - ((double)mu + middle);
          f.energy += a * a;
          f.removed[0] += mu != 0 ? a * a - left * left : 0.0;
        }
    }
  }
  if (refine && r.status == CLEANUP_CODED) {
    // cleanup_removed
    double removed = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const uint mu = index_mu(data, stride, fb, x, y) >> plane;
        if (mu == 0) continue;
        const double a = index_steps(data, stride, fb, x, y), left = a - reconstruction(mu, plane, reversible);
        removed += a * a - left * left;
      }
    f.removed[0] = removed;
    // encode_refinement: the significance map (1 after the cleanup, 2 made so by SigProp)
    // with a border, SigProp's and MagRef's buffers, in the block's scratch after the cleanup's.
    const ulong n = (ulong)w * (ulong)h;
    const ulong cleanup_scratch = align16(rows_bytes(w)) + align16(mel_capacity(n)) + n * 5 + 64;  // cleanup_scratch_bytes
    __global uchar* sig = scratch + b.scratch_at + align16(cleanup_scratch);
    const int row = w + 2;
    __global uchar* sp_buffer = sig + align16((ulong)row * (ulong)(h + 2));
    __global uchar* mr_buffer = sp_buffer + align16(sigprop_capacity(n));
    for (long k = 0; k < (long)row * (h + 2); ++k) sig[k] = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) sig[(long)(y + 1) * row + x + 1] = (index_mu(data, stride, fb, x, y) >> plane) != 0 ? 1 : 0;
    const int p = plane - 1;
    const double one = reconstruction(1, p, reversible);
    ForwardWriter sp = {sp_buffer, sp_buffer, 0, 0, 8};
    for (int y0 = 0; y0 < h; y0 += 4) {
      const int y1 = min(y0 + 4, h);
      for (int x0 = 0; x0 < w; x0 += 4) {
        const int x1 = min(x0 + 4, w);
        uchar newly[16];
        int count_new = 0;
        for (int x = x0; x < x1; ++x)
          for (int y = y0; y < y1; ++y) {
            __global uchar* c = sig + (long)(y + 1) * row + x + 1;
            if (*c) continue;
            __global const uchar* up = c - row;
            __global const uchar* down = c + row;
            const int below = !causal || y + 1 < y1;
            if ((up[-1] | up[0] | up[1] | c[-1] | c[1]) == 0 && (!below || (down[-1] | down[0] | down[1]) == 0)) continue;
            const uint bit = (index_mu(data, stride, fb, x, y) >> p) & 1;
            forward_put(&sp, bit, 1);
            if (bit) {
              *c = 2;
              newly[count_new++] = (uchar)((x - x0) * 4 + (y - y0));
              const double a = index_steps(data, stride, fb, x, y), left = a - one;
              f.removed[1] += a * a - left * left;
            }
          }
        for (int k = 0; k < count_new; ++k) forward_put(&sp, sign_of(index_at(data, stride, x0 + newly[k] / 4, y0 + newly[k] % 4)), 1);
      }
    }
    BackwardWriter mr = {mr_buffer, mr_buffer, 0, 0, 1};
    for (int y0 = 0; y0 < h; y0 += 4) {
      const int y1 = min(y0 + 4, h);
      for (int x = 0; x < w; ++x)
        for (int y = y0; y < y1; ++y) {
          if (sig[(long)(y + 1) * row + x + 1] != 1) continue;
          const uint mu = index_mu(data, stride, fb, x, y);
          vlc_put(&mr, (mu >> p) & 1, 1);
          const double a = index_steps(data, stride, fb, x, y);
          const double before = a - reconstruction(mu >> plane, plane, reversible), after = a - reconstruction(mu >> p, p, reversible);
          f.removed[2] += before * before - after * after;
        }
    }
    finish_sigprop(&sp);
    vlc_settle(&mr);  // finish_magref: the last byte padded with 0s
    if (mr.count > 0) *mr.end++ = (uchar)mr.acc;
    f.sigprop_bytes = (uint)(sp.end - sp.begin);
    f.magref_bytes = (uint)(mr.end - mr.begin);
    // One segment: SigProp forward, then MagRef reversed.
    __global uchar* to = output + b.slot + r.bytes;
    for (uint k = 0; k < f.sigprop_bytes; ++k) *to++ = sp_buffer[k];
    for (uint k = f.magref_bytes; k > 0; --k) *to++ = mr_buffer[k - 1];
    sizes[i] = (ulong)r.bytes + f.sigprop_bytes + f.magref_bytes;
  }
  figures[i] = f;
}

// The plane model of a block (estimate_planes, block_energy) and its record (ModelFigures,
// ht_block_encoder.cpp): one work-item a block.
typedef struct {
  ulong data;  // int32 values from its buffer's start
  long stride;
  int width, height, fraction_bits, reversible, source, unused;
} ModelJob;

typedef struct {
  double bytes[32], removed[32];
  double energy;
  int planes, unused;
} ModelFigures;

#define EMPTY_QUAD_BITS 0.4
#define SIGNIFICANT_QUAD_BITS 5.0

__kernel void model_blocks(__global const ModelJob* jobs, int count, int source, __global const int* in, __global ModelFigures* out) {
  const int i = (int)get_global_id(0);
  if (i >= count) return;
  const ModelJob j = jobs[i];
  if (j.source != source) return;
  __global const int* data = in + j.data;
  const int width = j.width, height = j.height, fb = j.fraction_bits;
  uint any = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) any |= magnitude_of(data[(long)y * j.stride + x]) >> fb;
  const int planes = bit_length(any);
  double bits[32], removed[32], scale[32];
  for (int p = 0; p < planes; ++p) {
    bits[p] = 0;
    removed[p] = 0;
    scale[p] = (double)((ulong)1 << p);
  }
  const double step = 1 / (double)((ulong)1 << fb);
  for (int y0 = 0; y0 < height; y0 += 2)
    for (int x0 = 0; x0 < width; x0 += 2) {
      uint q[4] = {0, 0, 0, 0};
      double a[4] = {0, 0, 0, 0};
      int n = 0;
      for (int k = 0; k < 4; ++k) {
        const int x = x0 + (k >> 1), y = y0 + (k & 1);
        if (x >= width || y >= height) continue;
        const uint m = magnitude_of(data[(long)y * j.stride + x]);
        q[n] = m >> fb;
        a[n] = (double)m * step;
        ++n;
      }
      for (int p = 0; p < planes; ++p) {
        int significant = 0, big_u = 0;
        if (((q[0] | q[1] | q[2] | q[3]) >> p) == 0) {
          for (int r = p; r < planes; ++r) bits[r] += EMPTY_QUAD_BITS;
          break;
        }
        for (int k = 0; k < n; ++k) {
          const uint mu = q[k] >> p;
          if (mu == 0) continue;
          ++significant;
          big_u = max(big_u, bit_length(2 * (mu - 1) + 1));
          const double r = j.reversible && p == 0 ? (double)mu : ((double)mu + 0.5) * scale[p];
          removed[p] += a[k] * a[k] - (a[k] - r) * (a[k] - r);
        }
        bits[p] += significant > 0 ? significant * big_u + SIGNIFICANT_QUAD_BITS : EMPTY_QUAD_BITS;
      }
    }
  double energy = 0;
  const double unit = (double)((ulong)1 << (2 * fb));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const double c = (double)data[(long)y * j.stride + x];
      energy += c * c / unit;
    }
  __global ModelFigures* f = out + i;
  for (int p = 0; p < planes; ++p) {
    f->bytes[p] = bits[p] / 8 + 2;
    f->removed[p] = removed[p];
  }
  f->energy = energy;
  f->planes = planes;
}
#endif  // J2K_FP64
