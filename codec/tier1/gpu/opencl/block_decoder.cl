// SPDX-License-Identifier: BSD-2-Clause
// The Tier-1 decoder of JPEG 2000 code-blocks (ISO/IEC 15444-1 Annex D, and Part 15's HT
// code-blocks further down) in OpenCL C 1.2, one code-block per work-item: the OpenCL
// counterpart of cuda/block_decoder.cu. It mirrors, bit
// for bit, block_passes.hpp (the three coding passes, run_as), mq_decoder.hpp (the MQ decoder)
// and raw_decoder.hpp (BYPASS), then undoes the ROI shift and dequantises in place as
// quant/dequantiser.cpp does; the host test compares its coefficients with decode_block()'s.
// Names follow the C++ (mq_decode, raw_bit, significance_pass, ...) so the two read side by side.
//
// The constant tables come from the host, uploaded from the C++ constexpr ones, so there is one
// copy of each: next_words (mq_detail::kNextWords.after), zero_contexts (kWindowZeroContexts:
// ll_lh, hl, hh, 512 each) and sign_table (kSignTable.entry). The caller checks each block
// first, as decode_block() does (sizes, at most 30 bit planes, segments within its bytes).

// A block as the host lays it out (gpu_block_records.hpp's GpuBlockRecord: a static_assert there
// keeps the two at 64 bytes).
typedef struct {
  ulong bytes;        // offset of the block's segments in `bytes`
  ulong words;        // offset of its flag words in `words`: (width + 2) * ((height + 3) / 4 + 2);
                      // an HT block's scratch there (device_block_decoder.hpp's scratch_bytes() / 4)
  long at;            // its first coefficient: out[plane_at[plane] + at + y * stride + x]
  long stride;
  uint size;          // its bytes (the sum of its segments)
  uint segments_at;   // its first segment in segment_bytes / segment_passes
  uint segments;
  float step;         // 0: the 5/3 (int32 v / 2); else the 9/7 (float v * step / 2, as_int)
  short width, height;
  uchar band, modes, bitplanes, roi;
  uint plane;
} DeviceBlock;

// Mode switches (Table A.19, block_encoder.hpp's BlockMode) and band kinds (j2k_band_type).
#define MODE_BYPASS 0x01
#define MODE_RESET 0x02
#define MODE_CAUSAL 0x08
#define MODE_SEGMARK 0x20
#define BAND_HL 1
#define BAND_HH 3

// The 19 contexts (contexts.hpp): 0..8 zero coding, 9..13 sign, 14..16 refinement, 17 run
// length, 18 uniform.
#define CONTEXTS 19
#define REFINE_BASE 14
#define RUN_LENGTH 17
#define UNIFORM 18

// The decoder's words of Table D.7's initial states: MqDecoderContext::pack(state, 0), Qe in
// bits 0..15 and the key 2 * state + mps in bits 16..23, printed from contexts.hpp (kFirstWord,
// kZeroWord, kRunWord, kUniformWord).
#define FIRST_WORD 0x00005601u    // state 0: every other context
#define ZERO_WORD 0x00080521u     // state 4: zero-coding context 0
#define RUN_WORD 0x00060AC1u      // state 3: run length
#define UNIFORM_WORD 0x005C5601u  // state 46: uniform

// The flag word of a stripe column (stripe_flags.hpp): significance of the 6 x 3 samples
// around it at bit 3r + j (r 0 the row above the stripe .. 5 the row below, j 0 west, 1 the
// column, 2 east), the signs of rows r = 0..5 at 18 + r, visited at 24 + i, refined at 28 + i.
#define SIG_BIT(r, j) (1u << (3 * (r) + (j)))
#define OWN_SIG(i) SIG_BIT((i) + 1, 1)
#define VISITED(i) (1u << (24 + (i)))
#define REFINED(i) (1u << (28 + (i)))
#define SIG_AROUND 0x3FFFFu
#define OWN_SIG_ALL (OWN_SIG(0) | OWN_SIG(1) | OWN_SIG(2) | OWN_SIG(3))
#define VISITED_ALL (0xFu << 24)
#define WINDOW 0x1FFu        // a row's 3 x 3 neighbourhood
#define CENTRE 0x10u         // the row's own sample in it
#define WINDOW_ABOVE 0x3Fu   // less the row below (VSC)
#define ROW_BELOW (SIG_BIT(5, 0) | SIG_BIT(5, 1) | SIG_BIT(5, 2))

enum PassKind { SIGNIFICANCE, REFINEMENT, CLEANUP };

// ---- The MQ decoder (mq_decoder.hpp, C.3) -------------------------------------------------

typedef struct {
  __global const uchar* data;
  uint size, pos;  // pos: B, the byte last read in
  uint a, c;
  int ct;
} MqDecoder;

// Byte k after B; bytes past the end read as 0xFF (C.3.4), a cut codeword's missing tail.
static inline uint mq_byte(const MqDecoder* d, uint k) { return d->pos + k < d->size ? d->data[d->pos + k] : 0xFFu; }

// BYTEIN (C.3.4): after 0xFF a byte carries 7 bits; 0xFF then more than 0x8F is a marker (or
// the end), where the decoder feeds itself 1 bits and stays.
static inline void mq_byte_in(MqDecoder* d) {
  if (mq_byte(d, 0) == 0xFF) {
    if (mq_byte(d, 1) > 0x8F) {
      d->c += 0xFF00;
      d->ct = 8;
    } else {
      ++d->pos;
      d->c += mq_byte(d, 0) << 9;
      d->ct = 7;
    }
  } else {
    ++d->pos;
    d->c += mq_byte(d, 0) << 8;
    d->ct = 8;
  }
}

// INITDEC (C.3.5) over data[0..size).
static inline void mq_init(MqDecoder* d, __global const uchar* data, uint size) {
  d->data = data;
  d->size = size;
  d->pos = 0;
  d->a = 0;
  d->ct = 0;
  d->c = mq_byte(d, 0) << 16;
  mq_byte_in(d);
  d->c <<= 7;
  d->ct -= 7;
  d->a = 0x8000;
}

// RENORMD (C.3.3): the shifts counted at once (A is above 0), a byte in whenever CT runs out.
static inline void mq_renormalise(MqDecoder* d) {
  int shift = (int)clz(d->a) - 16;
  while (shift > d->ct) {
    d->a <<= d->ct;
    d->c <<= d->ct;
    shift -= d->ct;
    mq_byte_in(d);
  }
  d->a <<= shift;
  d->c <<= shift;
  d->ct -= shift;
}

// DECODE (C.3.2) in the context word *cx (MqDecoderOf::decode; decode_even() decides the
// same). A renormalising decision takes the context's next word from next_words[key]: the low
// half after an MPS, the high half after an LPS.
static inline int mq_decode(MqDecoder* d, uint* cx, __global const ulong* next_words) {
  const uint word = *cx, qe = word & 0xFFFF;
  uint lps;
  d->a -= qe;
  if ((d->c >> 16) < qe) {  // the lower sub-interval: LPS_EXCHANGE
    lps = d->a >= qe;
    d->a = qe;
  } else {
    d->c -= qe << 16;
    if (d->a & 0x8000) return (int)(word >> 16 & 1);  // no renormalisation
    lps = d->a < qe;                                   // MPS_EXCHANGE
  }
  *cx = (uint)(next_words[word >> 16] >> (32 * lps));
  mq_renormalise(d);
  return (int)((word >> 16 & 1) ^ lps);
}

// ---- The raw decoder (raw_decoder.hpp, D.6) -------------------------------------------------

typedef struct {
  __global const uchar* data;
  uint size, pos;
  uint cur;  // the byte being read
  int left;  // its bits not yet read
} RawDecoder;

static inline void raw_init(RawDecoder* r, __global const uchar* data, uint size) {
  r->data = data;
  r->size = size;
  r->pos = 0;
  r->cur = 0;
  r->left = 0;
}

static inline uint raw_byte(const RawDecoder* r) { return r->pos < r->size ? r->data[r->pos] : 0xFFu; }

// The next bit, most significant first, skipping the 0 stuffed after 0xFF; 1s past the end
// and after a marker (0xFF then above 0x8F).
static inline int raw_bit(RawDecoder* r) {
  if (r->left == 0) {
    if (r->cur == 0xFF && raw_byte(r) > 0x8F) {
      r->left = 8;  // cur stays 0xFF: 1s from here on
    } else {
      r->left = r->cur == 0xFF ? 7 : 8;
      r->cur = raw_byte(r);
      if (r->pos < r->size) ++r->pos;
    }
  }
  --r->left;
  return (int)((r->cur >> r->left) & 1);
}

// ---- How a pass reads its decisions (block_passes.hpp's MqBits / RawBits) --------------------

typedef struct {
  MqDecoder mq;
  RawDecoder raw;
  int is_raw;  // this pass reads raw bits (BYPASS): never a cleanup pass
  uint* cx;    // the 19 context words
  __global const ulong* next_words;
} Bits;

static inline int decide(Bits* b, int context) {
  return b->is_raw ? raw_bit(&b->raw) : mq_decode(&b->mq, b->cx + context, b->next_words);
}

// A sign from its kSignTable entry (context in bits 0..4, the flip in bit 7); raw, the bit itself.
static inline int decide_sign(Bits* b, uint entry) {
  return b->is_raw ? raw_bit(&b->raw) : mq_decode(&b->mq, b->cx + (entry & 31), b->next_words) ^ (int)(entry >> 7);
}

static inline void reset_contexts(uint* cx) {
  for (int k = 0; k < CONTEXTS; ++k)
    cx[k] = k == 0 ? ZERO_WORD : k == RUN_LENGTH ? RUN_WORD : k == UNIFORM ? UNIFORM_WORD : FIRST_WORD;
}

// ---- The block's geometry (block_passes.hpp's Geometry, the general Shape) ------------------

typedef struct {
  int w, h, stripes;
  long pitch, stride;           // of the words, of the coefficients
  __global uint* words;         // stripe -1's first word, before column -1's
  __global int* out;
  __global const uchar* zc;     // Table D.1 for the band, by window
  __global const uchar* sign_table;
  uint last_row_window;         // WINDOW, or WINDOW_ABOVE with VSC
} Geometry;

static inline __global uint* stripe_words(const Geometry* g, int s) { return g->words + (s + 1) * g->pitch + 1; }
static inline __global int* stripe_values(const Geometry* g, int s) { return g->out + 4 * s * g->stride; }
static inline int stripe_rows(const Geometry* g, int s) { return g->h - 4 * s < 4 ? g->h - 4 * s : 4; }

// Row i's neighbourhood in the column word f; with VSC the last row does not see the stripe
// below (D.7).
static inline uint window(const Geometry* g, int i, uint f) { return (f >> (3 * i)) & (i == 3 ? g->last_row_window : WINDOW); }

// Row i's index into kSignTable from its window n, its column's word f and the words west and
// east: significance where the window has it (bits 1, 3, 5, 7), the signs between (west 0,
// north 2, south 4, east 6).
static inline uint sign_index(int i, uint n, uint f, uint west, uint east) {
  return (n & 0xAA) | ((f >> (16 + i)) & 0x14) | ((west >> (19 + i)) & 1) | ((east >> (13 + i)) & 0x40);
}

// Row i of col[x] becomes significant, `negative` its sign: its own bits in f (the caller's
// copy of col[x]) and its significance in the words that see it, the stripe's above or below
// for the first or last row.
static inline void mark_significant(int i, __global uint* col, int x, long pitch, uint* f, uint negative) {
  *f |= OWN_SIG(i) | negative << (19 + i);
  col[x - 1] |= SIG_BIT(i + 1, 2);
  col[x + 1] |= SIG_BIT(i + 1, 0);
  if (i == 0) {
    __global uint* up = col - pitch;
    up[x - 1] |= SIG_BIT(5, 2);
    up[x] |= SIG_BIT(5, 1) | negative << 23;
    up[x + 1] |= SIG_BIT(5, 0);
  } else if (i == 3) {
    __global uint* down = col + pitch;
    down[x - 1] |= SIG_BIT(0, 2);
    down[x] |= SIG_BIT(0, 1) | negative << 18;
    down[x + 1] |= SIG_BIT(0, 0);
  }
}

// Row i of column x becomes significant in the plane of `magnitude` (3 * 2^p: the plane's bit
// twice plus half the interval below): its sign (Table D.3), its value, its flags.
static inline void become_significant(const Geometry* g, Bits* b, int i, __global uint* col, int x, uint* f,
                                      __global int* value, int magnitude) {
  const uint n = window(g, i, *f);
  const uint negative = (uint)decide_sign(b, g->sign_table[sign_index(i, n, *f, col[x - 1], col[x + 1])]);
  *value = negative ? -magnitude : magnitude;
  mark_significant(i, col, x, g->pitch, f, negative);
}

// ---- The passes (block_passes.hpp) ---------------------------------------------------------

// D.3.1: the insignificant samples with a significant neighbour.
static void significance_pass(const Geometry* g, Bits* b, int p) {
  const int magnitude = (int)(3u << p);
  for (int s = 0; s < g->stripes; ++s) {
    __global uint* col = stripe_words(g, s);
    __global int* values = stripe_values(g, s);
    const int rows = stripe_rows(g, s);
    for (int x = 0; x < g->w; ++x) {
      uint f = col[x];
      if ((f & SIG_AROUND) == 0) continue;
      for (int i = 0; i < rows; ++i) {
        if (f & OWN_SIG(i)) continue;
        const uint n = window(g, i, f);
        if (n == 0) continue;
        if (decide(b, g->zc[n])) become_significant(g, b, i, col, x, &f, values + i * g->stride + x, magnitude);
        f |= VISITED(i);
      }
      col[x] = f;
    }
  }
}

// D.3.3: a bit of each sample significant before this plane; it moves the value half the
// interval up or down.
static void refinement_pass(const Geometry* g, Bits* b, int p) {
  const int half_interval = 1 << p;  // (`half` is a type in OpenCL C)
  for (int s = 0; s < g->stripes; ++s) {
    __global uint* col = stripe_words(g, s);
    __global int* values = stripe_values(g, s);
    const int rows = stripe_rows(g, s);
    for (int x = 0; x < g->w; ++x) {
      uint f = col[x];
      if ((f & OWN_SIG_ALL) == 0) continue;
      for (int i = 0; i < rows; ++i) {
        if ((f & (OWN_SIG(i) | VISITED(i))) != OWN_SIG(i)) continue;
        // Table D.4: refined before, context 16; else 15 where a neighbour is significant, 14 not.
        const uint before = (f >> (28 + i)) & 1;
        const uint around = (window(g, i, f) & ~CENTRE) != 0 ? 1u : 0u;
        const int context = REFINE_BASE + (int)((before << 1) | (around & (before ^ 1)));
        const int bit = decide(b, context);
        __global int* v = values + i * g->stride + x;
        *v += (bit ^ (*v < 0 ? 1 : 0)) ? half_interval : -half_interval;
        f |= REFINED(i);
      }
      col[x] = f;
    }
  }
}

// D.3.4: the samples the significance pass left, a quiet column of four run-length coded.
// Always through the MQ decoder. Returns 0 where SEGMARK's four decisions after it (D.5) are
// not 1010.
static int cleanup_pass(const Geometry* g, Bits* b, int p, int segmark) {
  const int magnitude = (int)(3u << p);
  const uint quiet = VISITED_ALL | (g->last_row_window == WINDOW ? SIG_AROUND : SIG_AROUND & ~ROW_BELOW);
  for (int s = 0; s < g->stripes; ++s) {
    __global uint* col = stripe_words(g, s);
    __global int* values = stripe_values(g, s);
    const int rows = stripe_rows(g, s);
    for (int x = 0; x < g->w; ++x) {
      uint f = col[x];
      int from = 0;  // the first row coded one by one
      if (rows == 4 && (f & quiet) == 0) {
        if (!decide(b, RUN_LENGTH)) continue;
        from = decide(b, UNIFORM) << 1;
        from |= decide(b, UNIFORM);
        // The column's first significant sample: its sign, coded as in any row.
        become_significant(g, b, from, col, x, &f, values + from * g->stride + x, magnitude);
        ++from;
      }
      for (int i = from; i < rows; ++i) {
        if (f & (OWN_SIG(i) | VISITED(i))) continue;
        if (decide(b, g->zc[window(g, i, f)])) become_significant(g, b, i, col, x, &f, values + i * g->stride + x, magnitude);
      }
      col[x] = f & ~VISITED_ALL;
    }
  }
  if (!segmark) return 1;
  int v = 0;
  for (int n = 0; n < 4; ++n) v = (v << 1) | decide(b, UNIFORM);
  return v == 0xA;
}

// Pass n: the cleanup of the top plane, then significance, refinement and cleanup of each
// plane below.
static inline enum PassKind pass_kind(int n) {
  if (n == 0) return CLEANUP;
  const int k = (n - 1) % 3;
  return k == 0 ? SIGNIFICANCE : k == 1 ? REFINEMENT : CLEANUP;
}
static inline int pass_plane(int bitplanes, int n) { return n == 0 ? bitplanes - 1 : bitplanes - 2 - (n - 1) / 3; }

// run_as(): the block's passes, as far as its segments go. Returns whether a SEGMARK check failed.
static int run_passes(const Geometry* g, __global const DeviceBlock* blk, __global const uint* segment_bytes,
                      __global const int* segment_passes, __global const uchar* bytes, __global const ulong* next_words) {
  const int bitplanes = blk->bitplanes, modes = blk->modes;
  const int total = bitplanes > 0 ? 3 * bitplanes - 2 : 0;
  uint cx[CONTEXTS];
  reset_contexts(cx);
  int segmark_error = 0;
  ulong offset = 0;
  int n = 0;
  for (uint s = 0; s < blk->segments && n < total; ++s) {
    __global const uchar* data = bytes + offset;
    const uint size = segment_bytes[s];
    offset += size;
    // With BYPASS a segment is raw when its first pass is a significance or refinement pass
    // of the fifth plane or below; a cleanup pass is MQ coded whatever the segment claims.
    const int raw = (modes & MODE_BYPASS) && n >= 10 && pass_kind(n) != CLEANUP;
    Bits b;
    mq_init(&b.mq, data, size);
    raw_init(&b.raw, data, size);
    b.cx = cx;
    b.next_words = next_words;
    for (int k = 0; k < segment_passes[s] && n < total; ++k, ++n) {
      const int p = pass_plane(bitplanes, n);
      const enum PassKind kind = pass_kind(n);
      b.is_raw = raw && kind != CLEANUP;
      if (kind == SIGNIFICANCE) significance_pass(g, &b, p);
      else if (kind == REFINEMENT) refinement_pass(g, &b, p);
      else if (!cleanup_pass(g, &b, p, (modes & MODE_SEGMARK) != 0)) segmark_error = 1;
      if ((modes & MODE_RESET) && !raw) reset_contexts(cx);
    }
  }
  return segmark_error;
}

// ---- HT code-blocks (Part 15): ht/device_block_decoder.hpp in OpenCL C -------------------
// The cleanup pass in two sub-passes a quad row at a time, then SigProp and MagRef, each step
// named as there; errors return 0, and the block then decodes to zeros, counted as corrupt.
// The readers are bit_readers.hpp's byte readers (the CPU's word readers read the same bits a
// word at a time). The tables are the CPU's (cleanup::tables(), uploaded once per context):
// the packed CxtVLC entries [initial row][context * 128 + next 7 bits], then the U-VLC
// prefixes [mode][next 6 bits] of 8 bytes each. The rows live in the block's scratch in
// `words` (device_block_decoder.hpp's scratch_layout()).

#define MODE_HT 0x40
#define MAX_PLANES 30  // kMaxDecodedBitplanes
// cleanup_pass.hpp's packed CxtVLC entries.
#define HT_RHO 0x000Fu
#define HT_U_OFF 0x0010u
#define HT_LENGTH(e) (((e) >> 5) & 7u)
#define HT_EK(e) (((e) >> 8) & 0xFu)
#define HT_E1(e) (((e) >> 12) & 0xFu)
#define HT_RIGHT_CONTEXT(e) (((e) >> 16) & 7u)
#define HT_UNKNOWN (1u << 20)
#define HT_UVLC_AT 8192  // bytes: the U-VLC prefixes after the 2 x 1024 CxtVLC entries
// UvlcMode.
#define FIRST_U 1u
#define SECOND_U 2u
#define BOTH_U 3u
#define INITIAL_BOTH_ABOVE2 4u
#define INITIAL_BOTH 5u

// MagSgn and SigProp (ForwardBits): forward, each byte from its LSB, 7 bits after 0xFF;
// past the end `fill` bytes.
typedef struct {
  __global const uchar* data;
  ulong size, pos;
  uint fill;
  int last_ff;
  ulong bits;
  int count;
} ForwardBits;

static inline void forward_init(ForwardBits* r, __global const uchar* data, ulong size, uint fill) {
  r->data = data;
  r->size = size;
  r->pos = 0;
  r->fill = fill;
  r->last_ff = 0;
  r->bits = 0;
  r->count = 0;
}

static inline uint forward_take(ForwardBits* r, int n) {
  if (n == 0) return 0;
  while (r->count <= 32) {
    const uint byte = r->pos < r->size ? r->data[r->pos] : r->fill;
    ++r->pos;
    const int width = r->last_ff ? 7 : 8;
    r->bits |= (ulong)(byte & ((1u << width) - 1)) << r->count;
    r->count += width;
    r->last_ff = byte == 0xFF;
  }
  const uint v = (uint)(r->bits & ((1ul << n) - 1));
  r->bits >>= n;
  r->count -= n;
  return v;
}

// VLC and MagRef (BackwardBits): backward from data[size - 1], each byte from its LSB, 7 bits
// from a byte whose low 7 bits are all 1 after one above 0x8F; past data[0] 0s.
typedef struct {
  __global const uchar* data;
  ulong left;
  int last_above_8f;
  ulong bits;
  int count;
} BackwardBits;

static inline void backward_init(BackwardBits* r, __global const uchar* data, ulong size, int first_nibble) {
  r->data = data;
  r->left = size;
  r->last_above_8f = 1;
  r->bits = 0;
  r->count = 0;
  if (first_nibble && r->left > 0) {
    const uint byte = data[--r->left];
    const uint nibble = byte >> 4;
    const int width = (nibble & 7) == 7 ? 3 : 4;
    r->bits = nibble & ((1u << width) - 1);
    r->count = width;
    r->last_above_8f = (byte | 0x0F) > 0x8F;
  }
}

static inline uint backward_peek(BackwardBits* r, int n) {
  while (r->count <= 32) {
    const uint byte = r->left > 0 ? r->data[--r->left] : 0u;
    const int width = (r->last_above_8f && (byte & 0x7F) == 0x7F) ? 7 : 8;
    r->bits |= (ulong)(byte & ((1u << width) - 1)) << r->count;
    r->count += width;
    r->last_above_8f = byte > 0x8F;
  }
  return (uint)(r->bits & ((1ul << n) - 1));
}

static inline void backward_skip(BackwardBits* r, int n) {
  backward_peek(r, 0);
  r->bits >>= n;
  r->count -= n;
}

static inline uint backward_take(BackwardBits* r, int n) {
  if (n == 0) return 0;
  const uint v = backward_peek(r, n);
  backward_skip(r, n);
  return v;
}

// MEL (MelDecoder): forward, each byte from its MSB, 7 bits after 0xFF, past the end 0xFF; its
// last byte, shared with VLC, reads with its low nibble set. States k 0..12.
typedef struct {
  __global const uchar* data;
  ulong size, pos;
  uint byte;
  int count, last_ff, k, zeros, one;
} Mel;

static inline void mel_init(Mel* m, __global const uchar* data, ulong size) {
  m->data = data;
  m->size = size;
  m->pos = 0;
  m->byte = 0;
  m->count = 0;
  m->last_ff = 0;
  m->k = 0;
  m->zeros = 0;
  m->one = 0;
}

static inline int mel_bit(Mel* m) {
  if (m->count == 0) {
    uint byte = 0xFF;
    if (m->pos < m->size) byte = m->data[m->pos] | (m->pos + 1 == m->size ? 0x0Fu : 0u);
    ++m->pos;
    m->count = m->last_ff ? 7 : 8;
    m->byte = byte;
    m->last_ff = byte == 0xFF;
  }
  --m->count;
  return (int)((m->byte >> m->count) & 1);
}

static inline int mel_event(Mel* m) {
  if (m->zeros == 0 && !m->one) {
    const int e = m->k < 9 ? m->k / 3 : m->k < 11 ? 3 : m->k - 7;  // 0,0,0,1,1,1,2,2,2,3,3,4,5
    if (mel_bit(m)) {
      m->zeros = 1 << e;
      if (m->k < 12) ++m->k;
    } else {
      int run = 0;
      for (int i = 0; i < e; ++i) run = (run << 1) | mel_bit(m);
      m->zeros = run;
      m->one = 1;
      if (m->k > 0) --m->k;
    }
  }
  if (m->zeros > 0) {
    --m->zeros;
    return 0;
  }
  m->one = 0;
  return 1;
}

// quad_rules.hpp's context bits.
static inline uint initial_row_context(uint left) { return ((left | (left >> 1)) & 1) | (((left >> 2) & 1) << 1) | (((left >> 3) & 1) << 2); }
static inline uint other_row_context(uint above_left, uint above, uint above_right, uint left) {
  const uint nw = (above_left >> 3) & 1, n = (above >> 1) & 1, ne = (above >> 3) & 1, nf = (above_right >> 1) & 1;
  const uint w = (left >> 2) & 1, sw = (left >> 3) & 1;
  return (nw | n) | ((w | sw) << 1) | ((ne | nf) << 2);
}
static inline uint bit_length(uint x) { return x ? 32 - clz(x) : 0; }

// The exponent bound's kappa of a quad (cleanup_pass.hpp's kappa()).
static inline uint kappa(uint rho, __global const uchar* e_above, int q) {
  __global const uchar* e = e_above + 2 * q - 1;
  const int left = max(e[0], e[1]), right = max(e[2], e[3]);
  const int e_max = max(left, right);
  return (rho & (rho - 1)) != 0 && e_max > 2 ? (uint)(e_max - 1) : 1u;
}

// The quad row's arrays in the scratch (device_block_decoder.hpp's Rows).
typedef struct {
  __global ushort* codeword;  // [-1] and [qw]: empty quads
  __global uchar* big_u;
  __global uchar* above;
  __global uchar* exponents[2];
} Rows;

static inline uint decode_quad(__global const uint* table, uint context, BackwardBits* vlc, Mel* mel) {
  if (context == 0 && !mel_event(mel)) return 0;
  const uint entry = table[context << 7 | backward_peek(vlc, 7)];
  backward_skip(vlc, (int)HT_LENGTH(entry));
  return entry;
}

// Sub-pass 1 of a quad row: 0 where a codeword is none of the table's.
static int decode_vlc_row(__global const uchar* tables, BackwardBits* vlc, Mel* mel, int initial, int qw,
                          __global const uchar* e_above, const Rows* rows) {
  __global const uint* table = (__global const uint*)tables + (initial ? 1024 : 0);
  __global const uchar* uvlc = tables + HT_UVLC_AT;
  uint seen = 0, left = 0;
  for (int q = 0; q < qw; q += 2) {
    const uint first = decode_quad(table, rows->above[q] | HT_RIGHT_CONTEXT(left), vlc, mel);
    const uint second = q + 1 < qw ? decode_quad(table, rows->above[q + 1] | HT_RIGHT_CONTEXT(first), vlc, mel) : 0u;
    left = second;
    seen |= first | second;
    rows->codeword[q] = (ushort)first;
    rows->codeword[q + 1] = (ushort)second;
    uint mode = ((first & HT_U_OFF) ? FIRST_U : 0u) | ((second & HT_U_OFF) ? SECOND_U : 0u);
    if (initial && mode == BOTH_U) mode = mel_event(mel) ? INITIAL_BOTH_ABOVE2 : INITIAL_BOTH;
    const uint bits = backward_peek(vlc, 16);  // prefixes (6 bits at most) and two suffixes (5 each)
    // UvlcPrefixes: bits, prefix_bits, u_first, u_second, suffix_bits_first, suffix_mask_first, suffix_mask_second.
    __global const uchar* p = uvlc + 8 * (mode * 64 + (bits & 63));
    backward_skip(vlc, p[0]);
    const uint suffixes = bits >> p[1];
    const uint suffix_first = suffixes & p[5];
    const uint suffix_second = (suffixes >> p[4]) & p[6];
    uint u_first = p[2] + suffix_first, u_second = p[3] + suffix_second;
    if (suffix_first >= 28) u_first += 4 * backward_take(vlc, 4);
    if (suffix_second >= 28) u_second += 4 * backward_take(vlc, 4);
    rows->big_u[q] = (uchar)(u_first + kappa(first & HT_RHO, e_above, q));
    rows->big_u[q + 1] = (uchar)(u_second + kappa(second & HT_RHO, e_above, q + 1));
  }
  return (seen & HT_UNKNOWN) == 0;
}

// Sub-pass 2 of a quad row: each significant sample's MagSgn bits and EMB bit as its
// coefficient; `bottom` 0: the block ends after `top`. 0 where a bound or magnitude passes 30 planes.
static int decode_magsgn_row(ForwardBits* magsgn, const Rows* rows, __global uchar* e_row, __global int* top,
                             __global int* bottom, int width, int qw, int plane) {
  const uint row_mask = bottom ? 0xFu : 0x5u;
  const int mu_limit = MAX_PLANES - plane;
  uint overflow = 0;
  for (int q = 0; q < qw; ++q) {
    const int x = 2 * q;
    const int right_inside = x + 1 < width;
    const uint entry = rows->codeword[q];
    const uint rho = entry & HT_RHO;
    uint todo = 0;
    uint v[4] = {0, 0, 0, 0};
    e_row[x] = 0;
    e_row[x + 1] = 0;
    if (rho != 0) {
      const uint big_u = rows->big_u[q];
      if ((int)big_u + plane > MAX_PLANES + 1) return 0;
      todo = rho & row_mask & (right_inside ? 0xFu : 0x3u);
      const uint e_k = HT_EK(entry), e_1 = HT_E1(entry) & todo;
      for (int j = 0; j < 4; ++j) {
        if (((todo >> j) & 1) == 0) continue;
        const int n = (int)(big_u - ((e_k >> j) & 1));
        v[j] = forward_take(magsgn, n) | ((e_1 >> j) & 1) << n;
      }
      if (todo & 2) e_row[x] = (uchar)bit_length(v[1] | 1);
      if (todo & 8) e_row[x + 1] = (uchar)bit_length(v[3] | 1);
    }
    int c[4];
    for (int j = 0; j < 4; ++j) {
      const uint present = 0u - ((todo >> j) & 1);
      const uint value = v[j] & 0x7FFFFFFFu;
      const uint magnitude = ((value & ~1u) + 3) << plane;
      const uint negative = 0u - (value & 1);
      c[j] = (int)(((magnitude ^ negative) - negative) & present);
      overflow |= (((value >> 1) + 1) >> mu_limit) & present;
    }
    top[x] = c[0];
    if (bottom) bottom[x] = c[1];
    if (right_inside) {
      top[x + 1] = c[2];
      if (bottom) bottom[x + 1] = c[3];
    }
  }
  return overflow == 0;
}

// The cleanup pass at `plane` into every sample of the block; 0 where the data contradicts itself.
static int decode_cleanup(__global const uchar* tables, __global const uchar* d, ulong lcup, __global int* out, long stride,
                          int width, int height, int plane, __global uchar* scratch) {
  if (lcup < 2) return 0;
  const ulong scup = ((ulong)d[lcup - 1] << 4) | (d[lcup - 2] & 0x0F);
  if (scup < 2 || scup > lcup || scup > 4079) return 0;
  const ulong pcup = lcup - scup;
  Mel mel;
  mel_init(&mel, d + pcup, scup - 1);
  BackwardBits vlc;
  backward_init(&vlc, d + pcup, scup - 1, 1);
  ForwardBits magsgn;
  forward_init(&magsgn, d, pcup, 0xFF);

  // scratch_layout(): codewords, big_u, above, two exponent rows, SigProp's significance.
  const int qw = (width + 1) / 2, qh = (height + 1) / 2;
  const int exponent_row = 2 * qw + 4;
  Rows rows;
  rows.codeword = (__global ushort*)scratch + 1;
  rows.big_u = scratch + 2 * (qw + 2);
  rows.above = rows.big_u + (qw + 2);
  rows.exponents[0] = rows.above + (qw + 1) + 1;
  rows.exponents[1] = rows.exponents[0] + exponent_row;
  for (int q = 0; q < qw; ++q) rows.above[q] = 0;
  rows.codeword[-1] = 0;
  rows.codeword[qw] = 0;
  for (int i = 0; i < 2 * exponent_row; ++i) rows.exponents[0][i - 1] = 0;
  int above = 0;
  for (int r = 0; r < qh; ++r) {
    if (!decode_vlc_row(tables, &vlc, &mel, r == 0, qw, rows.exponents[above], &rows)) return 0;
    __global int* top = out + 2 * r * stride;
    __global int* bottom = 2 * r + 1 < height ? top + stride : 0;
    if (!decode_magsgn_row(&magsgn, &rows, rows.exponents[1 - above], top, bottom, width, qw, plane)) return 0;
    above = 1 - above;
    for (int q = 0; q < qw; ++q)  // set_above_contexts
      rows.above[q] = (uchar)other_row_context(rows.codeword[q - 1], rows.codeword[q], rows.codeword[q + 1], 0);
  }
  return 1;
}

// SigProp and MagRef at plane - 1 (refinement_decoder.hpp), `sig` a byte a sample: 1
// significant after the cleanup pass, 2 made significant by SigProp.
static inline int ht_neighbour_significant(__global const uchar* sig, int w, int h, int x, int y, int below_end) {
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = y + dy;
    if (yy < 0 || yy >= h || yy >= below_end) continue;
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = x + dx;
      if ((dx || dy) && xx >= 0 && xx < w && sig[yy * w + xx]) return 1;
    }
  }
  return 0;
}

static void ht_refinement(__global int* out, long stride, int w, int h, int plane, int causal, int passes,
                          __global const uchar* data, ulong size, __global uchar* sig) {
  const int p = plane - 1;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) sig[y * w + x] = out[y * stride + x] != 0 ? 1 : 0;
  ForwardBits bits;
  forward_init(&bits, data, size, 0x00);
  int newly[16][2];
  for (int y0 = 0; y0 < h; y0 += 4) {
    const int y1 = min(y0 + 4, h);
    for (int x0 = 0; x0 < w; x0 += 4) {
      const int x1 = min(x0 + 4, w);
      int count = 0;
      for (int x = x0; x < x1; ++x)
        for (int y = y0; y < y1; ++y) {
          if (sig[y * w + x] || !ht_neighbour_significant(sig, w, h, x, y, causal ? y1 : h)) continue;
          if (forward_take(&bits, 1)) {
            sig[y * w + x] = 2;
            newly[count][0] = x;
            newly[count][1] = y;
            ++count;
          }
        }
      for (int i = 0; i < count; ++i) {
        const int v = 3 * (1 << p);
        out[newly[i][1] * stride + newly[i][0]] = forward_take(&bits, 1) ? -v : v;
      }
    }
  }
  if (passes < 2) return;
  BackwardBits back;
  backward_init(&back, data, size, 0);
  for (int y0 = 0; y0 < h; y0 += 4) {
    const int y1 = min(y0 + 4, h);
    for (int x = 0; x < w; ++x)
      for (int y = y0; y < y1; ++y) {
        if (sig[y * w + x] != 1) continue;
        __global int* v = out + y * stride + x;
        const int m = *v < 0 ? -*v : *v;
        const int refined = m - (1 << plane) + ((2 * (int)backward_take(&back, 1) + 1) << p);
        *v = *v < 0 ? -refined : refined;
      }
  }
}

// The block into out (coded_set.hpp's find_set, then device_block_decoder.hpp's
// decode_block()): returns 1 where it is corrupt (decoded as zeros).
static int ht_decode_block(__global const DeviceBlock* blk, __global const uint* segment_bytes, __global const int* segment_passes,
                           __global const uchar* bytes, __global const uchar* tables, __global uchar* scratch,
                           __global int* out) {
  const int w = blk->width, h = blk->height;
  const long stride = blk->stride;
  // find_set: the last segment that ends with a cleanup pass and holds bytes, and the
  // refinement segment right after it.
  int found = 0, plane = 0, passes_to = 0, refinement_passes = 0;
  ulong offset = 0, cleanup_at = 0, cleanup_size = 0, refinement_at = 0, refinement_size = 0;
  int n = 0;
  for (uint s = 0; s < blk->segments; ++s) {
    const int passes = segment_passes[s];
    const ulong at = offset, size = segment_bytes[s];
    offset += size;
    if (passes <= 0) continue;
    const int last = n + passes - 1;
    if (last % 3 == 0 && size > 0) {
      found = 1;
      cleanup_at = at;
      cleanup_size = size;
      refinement_at = refinement_size = 0;
      refinement_passes = 0;
      plane = blk->bitplanes - 1 - last / 3;
      passes_to = last + 1;
    } else if (found && n == passes_to && n % 3 == 1) {
      refinement_at = at;
      refinement_size = size;
      refinement_passes = min(passes, 2);
      passes_to += refinement_passes;
    }
    n += passes;
  }
  int corrupt = 0;
  if (blk->bitplanes > 0 && found) {
    if (plane < 0 || !decode_cleanup(tables, bytes + cleanup_at, cleanup_size, out, stride, w, h, plane, scratch)) {
      corrupt = 1;
    } else {
      if (plane > 0 && refinement_passes > 0) {
        const ulong qw = (ulong)(w + 1) / 2;
        __global uchar* sig = scratch + 2 * (qw + 2) + (qw + 2) + (qw + 1) + 2 * (2 * qw + 4);  // scratch_layout().sig
        ht_refinement(out, stride, w, h, plane, (blk->modes & MODE_CAUSAL) != 0, refinement_passes, bytes + refinement_at,
                      refinement_size, sig);
      }
      return 0;
    }
  }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) out[y * stride + x] = 0;
  return corrupt;
}

__kernel void decode_blocks(__global const DeviceBlock* blocks, int count,
                            __global const uint* segment_bytes, __global const int* segment_passes,
                            __global const uchar* bytes, __global uint* words,
                            __global int* out, __global const long* plane_at,
                            __global int* counts, uint plane_from, uint plane_to, uint planes,
                            __global const ulong* next_words,
                            __global const uchar* zero_contexts,
                            __global const uchar* sign_table,
                            __global const uchar* ht_tables) {
  const int i = (int)get_global_id(0);
  if (i >= count) return;
  __global const DeviceBlock* blk = blocks + i;
  // A launch decodes the blocks of planes [plane_from, plane_to): those whose buffer it has.
  if (blk->plane < plane_from || blk->plane >= plane_to) return;

  Geometry g;
  g.w = blk->width;
  g.h = blk->height;
  g.stripes = (g.h + 3) / 4;
  g.pitch = (long)g.w + 2;
  g.stride = blk->stride;
  g.words = words + blk->words;
  g.out = out + plane_at[blk->plane] + blk->at;
  g.zc = zero_contexts + (blk->band == BAND_HH ? 1024 : blk->band == BAND_HL ? 512 : 0);
  g.sign_table = sign_table;
  g.last_row_window = (blk->modes & MODE_CAUSAL) ? WINDOW_ABOVE : WINDOW;

  // `counts`: each plane's SEGMARK failures, then each plane's corrupt HT blocks.
  if (blk->modes & MODE_HT) {
    if (ht_decode_block(blk, segment_bytes + blk->segments_at, segment_passes + blk->segments_at, bytes + blk->bytes, ht_tables,
                        (__global uchar*)g.words, g.out))
      atomic_inc(counts + planes + blk->plane);
  } else {
    // BlockPasses' constructor: the flag words, with their border of one word all round, and
    // the coefficients start at zero.
    const long count_words = g.pitch * (long)(g.stripes + 2);
    for (long k = 0; k < count_words; ++k) g.words[k] = 0;
    for (int y = 0; y < g.h; ++y)
      for (int x = 0; x < g.w; ++x) g.out[y * g.stride + x] = 0;
    if (run_passes(&g, blk, segment_bytes + blk->segments_at, segment_passes + blk->segments_at, bytes + blk->bytes,
                   next_words))
      atomic_inc(counts + blk->plane);
  }

  // undo_roi_shift, then dequantise_reversible (v / 2, toward zero) or _irreversible
  // ((float)v * (0.5f * step), stored as its bits), in place as cuda/block_decoder.cu does.
  const int shift = blk->roi;
  const float step = blk->step;
  const float half_step = 0.5f * step;
  for (int y = 0; y < g.h; ++y) {
    __global int* row = g.out + y * g.stride;
    for (int x = 0; x < g.w; ++x) {
      int v = row[x];
      if (shift >= 31) {
        v = 0;
      } else if (shift > 0) {
        int m = v < 0 ? -v : v;
        if (m >= (1 << shift)) {
          m >>= shift;
          v = v < 0 ? -m : m;
        }
      }
      row[x] = step == 0.0f ? v / 2 : as_int((float)v * half_step);
    }
  }
}
