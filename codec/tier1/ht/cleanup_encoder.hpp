// SPDX-License-Identifier: BSD-2-Clause
// The HT cleanup pass of one code-block (ISO/IEC 15444-15 clause 7.3), one source for the CPU
// encoder (block_encoder.cpp) and the host emulation of the GPU batch
// (gpu/host_ht_image_encoder.cpp); the CUDA kernel (gpu/cuda/warp_cleanup.cuh) spreads the
// same work over a warp and feeds the same writers. Quad by quad, two
// line-pairs at a time: each quad's significance and exponent bound in MEL, CxtVLC and U-VLC,
// its magnitude and sign bits in MagSgn, quads paired for their U-VLC codes.
//
// The coder reads a block's samples at the cleanup plane p through a quad source (`Quads`):
// each sample as 2 * mu + sign (mu: its magnitude's bits from p up; the sign 0 where mu is 0),
// 0 outside the block. The CPU's (PaddedQuads) reads a plane gathered first, padded to whole
// quads; the in-place one (PlaneQuads) reads the coefficients where they are.
// The tables (CxtVLC codewords, U-VLC codes) come by pointer: the host's, or device copies.
// Every buffer is the caller's, its size known from the block's (the *_capacity functions):
// nothing here allocates.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/ht/bit_writers.hpp"
#include "codec/tier1/ht/host_device.hpp"
#include "codec/tier1/ht/quad_rules.hpp"
#include "codec/tier1/ht/vlc_tables.hpp"

namespace j2k::codec::ht {

// The U-VLC codeword of u >= 1 (see uvlc_prefix in block_decoder.cpp): the prefix, then the
// suffix and extension, each as (bits, length) with the first bit in bit 0.
struct Uvlc {
  uint32_t prefix = 0, suffix = 0, extension = 0;
  int prefix_length = 0, suffix_length = 0, extension_length = 0;
};
constexpr Uvlc uvlc(int u) {
  Uvlc c;
  if (u == 1) {
    c.prefix = 1, c.prefix_length = 1;
  } else if (u == 2) {
    c.prefix = 2, c.prefix_length = 2;  // 0 then 1
  } else if (u <= 4) {
    c.prefix = 4, c.prefix_length = 3;  // 0, 0, 1
    c.suffix = static_cast<uint32_t>(u - 3), c.suffix_length = 1;
  } else if (u <= 32) {
    c.prefix_length = 3;  // 0, 0, 0
    c.suffix = static_cast<uint32_t>(u - 5), c.suffix_length = 5;
  } else {
    c.prefix_length = 3;
    c.suffix = static_cast<uint32_t>(28 + (u - 33) % 4), c.suffix_length = 5;
    c.extension = static_cast<uint32_t>((u - 33) / 4), c.extension_length = 4;
  }
  return c;
}

// Every u a quad can have (a sample's exponent is at most 32, kappa at least 1), 0 giving the
// empty codeword.
struct UvlcTable {
  static constexpr int kSize = 33;
  Uvlc code[kSize];
  constexpr UvlcTable() : code() {
    for (int u = 1; u < kSize; ++u) code[u] = uvlc(u);
  }
};
inline constexpr UvlcTable kUvlcTable;

// Where the coder finds its tables: cxt_vlc[1] the initial line-pair's CxtVLC codewords and
// cxt_vlc[0] the others' (cxt_vlc_encode_table()), uvlc UvlcTable::code. On the GPU each
// points to a device copy.
struct CleanupTables {
  const CxtVlcCodeword* cxt_vlc[2] = {nullptr, nullptr};
  const Uvlc* uvlc = nullptr;
};
// The host's.
inline CleanupTables host_cleanup_tables() {
  CleanupTables t;
  t.cxt_vlc[0] = cxt_vlc_encode_table(false);
  t.cxt_vlc[1] = cxt_vlc_encode_table(true);
  t.uvlc = kUvlcTable.code;
  return t;
}

// What a cleanup pass at `plane` gives a block whose magnitudes, fraction bits dropped, OR to
// `any` (CodedBlock's meaning, block_encoder.hpp): `bitplanes` plane + 1 where a magnitude is
// significant at the plane, else 0 (no pass: nothing to code); `magnitude_bitplanes` the bits
// of the largest magnitude; `too_large` where the pass cannot be coded: a magnitude of 2^31 at
// plane 0 (2 * mu + sign does not fit 32 bits).
struct CleanupPlan {
  int bitplanes = 0, magnitude_bitplanes = 0;
  bool too_large = false;
};
J2K_HD inline CleanupPlan plan_cleanup(uint32_t any, int plane) {
  CleanupPlan p;
  p.magnitude_bitplanes = bit_length(any);
  p.bitplanes = (any >> plane) != 0 ? plane + 1 : 0;
  p.too_large = plane == 0 && (any >> 31) != 0;
  return p;
}

// A coefficient's magnitude (|INT32_MIN| is 2^31), and a sample as the coder reads it at
// `shift` (fraction bits plus the cleanup plane): 2 * mu + sign, mu = magnitude >> shift,
// the sign (1: negative) only where mu > 0. Branch-free, for the CPU's vectoriser.
J2K_HD inline uint32_t sign_of(int32_t v) { return static_cast<uint32_t>(v) >> 31; }
J2K_HD inline uint32_t magnitude_of(int32_t v) {
  const uint32_t sign = sign_of(v);
  return (static_cast<uint32_t>(v) ^ (0u - sign)) + sign;
}
J2K_HD inline uint32_t quad_sample(uint32_t magnitude, uint32_t sign, int shift) {
  const uint32_t mu = magnitude >> shift;
  return (mu << 1) | (mu != 0 ? sign : 0u);
}

// The CPU's quad source: the block at the cleanup plane gathered row by row into `data` (rows
// `stride` samples apart, a multiple of 4, padded with 0s, and the height padded to whole
// quads).
struct PaddedQuads {
  const uint32_t* data = nullptr;
  size_t stride = 0;

  // Line-pair r: rows 2r and 2r + 1.
  struct Line {
    const uint32_t* top;
    const uint32_t* bottom;
    // Quad k: its samples in column order (top left, bottom left, top right, bottom right).
    J2K_HD void quad(int k, uint32_t m[4]) const {
      const int x = 2 * k;
      m[0] = top[x];
      m[1] = bottom[x];
      m[2] = top[x + 1];
      m[3] = bottom[x + 1];
    }
  };
  J2K_HD Line line_pair(int r) const {
    const uint32_t* top = data + static_cast<size_t>(2 * r) * stride;
    return Line{top, top + stride};
  }
};

// The context the coder keeps from one line-pair to the next: each quad's significance rho
// (one empty quad either side), each column's bottom sample's exponent (one column either
// side, and the width padded to a multiple of 4), of the line-pair above and of this one.
// carve() lays them out in caller's memory, bytes(width) of it, 4-byte aligned.
struct CleanupRows {
  unsigned* rho[2];
  uint8_t* e[2];

  J2K_HD static constexpr size_t rho_entries(int width) { return static_cast<size_t>((width + 1) / 2) + 3; }
  J2K_HD static constexpr size_t e_entries(int width) { return static_cast<size_t>((width + 3) & ~3) + 4; }
  J2K_HD static constexpr size_t bytes(int width) {
    return 2 * rho_entries(width) * sizeof(unsigned) + 2 * e_entries(width);
  }
  J2K_HD static CleanupRows carve(void* memory, int width) {
    CleanupRows r;
    r.rho[0] = static_cast<unsigned*>(memory);
    r.rho[1] = r.rho[0] + rho_entries(width);
    r.e[0] = reinterpret_cast<uint8_t*>(r.rho[1] + rho_entries(width));
    r.e[1] = r.e[0] + e_entries(width);
    return r;
  }
};

// The streams' buffers of a block of n samples: MagSgn and VLC stream_capacity(n) bytes
// each, MEL mel_capacity(n).
struct CleanupBuffers {
  uint8_t* magsgn;
  uint8_t* mel;
  uint8_t* vlc;
};

// A significant sample's exponent E (quad_rules.hpp) from 2 * mu + sign; 0 for mu = 0.
// Branch-free: (2 mu + sign) | 1 less 2 is 2 mu - 1, odd, so never 0 where mu > 0.
J2K_HD inline int exponent(uint32_t twice_mu) {
  const int e = 32 - leading_zeros(((twice_mu | 1) - 2) | 1);
  return twice_mu > 1 ? e : 0;
}

// The low n bits set (n <= 32).
J2K_HD inline uint32_t low_bits(int n) { return static_cast<uint32_t>((uint64_t{1} << n) - 1); }

J2K_HD inline int min_int(int a, int b) { return a < b ? a : b; }
J2K_HD inline int max_int(int a, int b) { return a > b ? a : b; }

// The U-VLC codes of a quad pair: both prefixes, both suffixes, both extensions, at most 24
// bits (none for u = 0), as one field of `length` bits.
struct UvlcPairBits {
  uint32_t bits = 0;
  int length = 0;
};
J2K_HD constexpr UvlcPairBits uvlc_pair_bits(const Uvlc& a, const Uvlc& b) {
  uint32_t bits = a.prefix;
  int n = a.prefix_length;
  bits |= b.prefix << n;
  n += b.prefix_length;
  bits |= a.suffix << n;
  n += a.suffix_length;
  bits |= b.suffix << n;
  n += b.suffix_length;
  bits |= a.extension << n;
  n += a.extension_length;
  bits |= b.extension << n;
  n += b.extension_length;
  return UvlcPairBits{bits, n};
}
// The same in one put.
J2K_HD inline void put_uvlc_pair(BackwardWriter& vlc, const Uvlc& a, const Uvlc& b) {
  const UvlcPairBits p = uvlc_pair_bits(a, b);
  vlc.put(p.bits, p.length);
}

// The u of a quad pair, as decode_u() reads them (0: none coded): in the initial line-pair a
// pair whose quads both have one sends a MEL event (both above 2) and, where both are, each
// less 2.
template <bool kInitial>
J2K_HD inline void put_u(MelEncoder& mel, BackwardWriter& vlc, int ua, int ub, const Uvlc* code) {
  if (kInitial && ua > 0 && ub > 0) {
    mel.put(min_int(ua, ub) > 2);
    if (ua > 2 && ub > 2) {
      put_uvlc_pair(vlc, code[ua - 2], code[ub - 2]);
    } else if (ua > 2) {
      const Uvlc& ca = code[ua];
      vlc.put(ca.prefix, ca.prefix_length);
      vlc.put(static_cast<uint32_t>(ub - 1), 1);
      vlc.put(ca.suffix, ca.suffix_length);
      vlc.put(ca.extension, ca.extension_length);
    } else {
      put_uvlc_pair(vlc, code[ua], code[ub]);
    }
    return;
  }
  put_uvlc_pair(vlc, code[ua], code[ub]);
}

// The cleanup pass of a width x height block (1..1024 each, at most 4096 samples):
//   CleanupEncoder<PaddedQuads> coder(w, h, tables, rows, buffers);
//   const size_t bytes = coder.run(quads);   // 0: MEL and VLC outgrow Scup's 4079 bytes
//   coder.write(out);                        // the segment, `bytes` of them
template <class Quads>
class CleanupEncoder {
 public:
  J2K_HD CleanupEncoder(int width, int height, const CleanupTables& tables, const CleanupRows& rows, const CleanupBuffers& buffers)
      : tables_(tables), rows_(rows), w_(width), h_(height),
        magsgn_(buffers.magsgn), mel_(buffers.mel), vlc_(buffers.vlc, BackwardWriter::kVlc) {}

  // Codes the block's quads; returns the segment's bytes, 0 where MEL and VLC exceed 4079.
  J2K_HD size_t run(const Quads& quads) {
    const int qw = (w_ + 1) / 2, qh = (h_ + 1) / 2;
    const size_t rho_n = CleanupRows::rho_entries(w_), e_n = CleanupRows::e_entries(w_);
    for (int i = 0; i < 2; ++i) {
      for (size_t k = 0; k < rho_n; ++k) rows_.rho[i][k] = 0;
      for (size_t k = 0; k < e_n; ++k) rows_.e[i][k] = 0;
    }
    int above = 0;  // rows_.rho[above], rows_.e[above]: the line-pair above's
    for (int r = 0; r < qh; ++r) {
      if (r == 0) line_pair<true>(quads.line_pair(0), qw, above);
      else line_pair<false>(quads.line_pair(r), qw, above);
      above ^= 1;
    }
    return finish_cleanup(magsgn_, mel_, vlc_);
  }
  // The segment run() measured, into `out`.
  J2K_HD void write(uint8_t* out) const { write_cleanup(magsgn_, mel_, vlc_, out); }

 private:
  // The quads of one line-pair, in pairs. `line` and the tables by value, in locals: the
  // writers' byte stores could change anything reached through a pointer or reference, which
  // the loop would then load again after each (2% of the CPU encoder's time).
  template <bool kInitial>
  J2K_HD void line_pair(const typename Quads::Line line, int qw, int above_index) {
    const unsigned* above = rows_.rho[above_index] + 1;
    unsigned* row = rows_.rho[above_index ^ 1] + 1;
    const uint8_t* e_above = rows_.e[above_index] + 1;
    uint8_t* e_row = rows_.e[above_index ^ 1] + 1;
    const CxtVlcCodeword* table = tables_.cxt_vlc[kInitial ? 1 : 0];
    const Uvlc* uvlc = tables_.uvlc;
    for (int q = 0; q < qw; q += 2) {
      int u[2] = {0, 0};
      const int count = min_int(2, qw - q);
      for (int i = 0; i < count; ++i) {
        const int k = q + i, x = 2 * k;
        uint32_t m[4];
        line.quad(k, m);
        const int e[4] = {exponent(m[0]), exponent(m[1]), exponent(m[2]), exponent(m[3])};
        const unsigned rho = (m[0] > 1 ? 1u : 0u) | (m[1] > 1 ? 2u : 0u) | (m[2] > 1 ? 4u : 0u) | (m[3] > 1 ? 8u : 0u);
        row[k] = rho;
        e_row[x] = static_cast<uint8_t>(e[1]);
        e_row[x + 1] = static_cast<uint8_t>(e[3]);
        const int e_max = max_int(max_int(e[0], e[1]), max_int(e[2], e[3]));
        const int cx = kInitial ? initial_row_context(row[k - 1]) : other_row_context(above[k - 1], above[k], above[k + 1], row[k - 1]);
        int kappa = 1;
        if (!kInitial) {
          const int e_near = max_int(max_int(e_above[x - 1], e_above[x]), max_int(e_above[x + 1], e_above[x + 2]));
          kappa = (rho & (rho - 1)) != 0 ? max_int(1, e_near - 1) : 1;
        }
        const int big_u = max_int(e_max, kappa);
        u[i] = big_u - kappa;
        // Context 0: MEL says whether the quad is significant; an insignificant one sends no
        // codeword (and no bits).
        if (cx == 0) mel_.put(rho != 0);
        const unsigned at_bound =
            (e[0] == big_u ? 1u : 0u) | (e[1] == big_u ? 2u : 0u) | (e[2] == big_u ? 4u : 0u) | (e[3] == big_u ? 8u : 0u);
        const CxtVlcCodeword& cw = table[(static_cast<unsigned>(cx) * 16 + rho) * 17 + (u[i] > 0 ? 1 + at_bound : 0)];
        vlc_.put(cw.codeword, (cx | rho) != 0 ? cw.length : 0);
        // Each significant sample's bits below those the codeword gives; none for the others
        // (branch-free: which samples are significant is what the coder cannot predict).
        uint32_t v[4];
        int bits[4];
        for (int j = 0; j < 4; ++j) {
          bits[j] = ((rho >> j) & 1) ? big_u - ((cw.e_k >> j) & 1) : 0;
          v[j] = (m[j] - 2) & low_bits(bits[j]);
        }
        if (big_u <= 8) {  // the quad's bits in one word
          magsgn_.put(v[0] | v[1] << bits[0] | v[2] << (bits[0] + bits[1]) | v[3] << (bits[0] + bits[1] + bits[2]),
                      bits[0] + bits[1] + bits[2] + bits[3]);
        } else if (big_u <= 16) {  // two samples' in one
          magsgn_.put(v[0] | v[1] << bits[0], bits[0] + bits[1]);
          magsgn_.put(v[2] | v[3] << bits[2], bits[2] + bits[3]);
        } else {
          for (int j = 0; j < 4; ++j) magsgn_.put(v[j], bits[j]);
        }
      }
      put_u<kInitial>(mel_, vlc_, u[0], u[1], uvlc);
    }
  }

  CleanupTables tables_;
  CleanupRows rows_;
  int w_, h_;
  ForwardWriter magsgn_;
  MelEncoder mel_;
  BackwardWriter vlc_;
};

// --- a block coded where its coefficients are (the GPU batch's host emulation) ---

// The in-place quad source: the coefficients data[y * stride + x] (int32, as BlockView has
// them) read as each quad needs them, at `shift` (fraction bits plus the cleanup plane), 0
// outside width x height.
struct PlaneQuads {
  const int32_t* data = nullptr;
  ptrdiff_t stride = 0;
  int width = 0, height = 0, shift = 0;

  struct Line {
    const int32_t* top;
    const int32_t* bottom;  // nullptr where the line-pair has only its top row
    int width, shift;
    J2K_HD uint32_t at(const int32_t* row, int x) const {
      if (row == nullptr || x >= width) return 0;
      const int32_t v = row[x];
      return quad_sample(magnitude_of(v), sign_of(v), shift);
    }
    J2K_HD void quad(int k, uint32_t m[4]) const {
      const int x = 2 * k;
      m[0] = at(top, x);
      m[1] = at(bottom, x);
      m[2] = at(top, x + 1);
      m[3] = at(bottom, x + 1);
    }
  };
  J2K_HD Line line_pair(int r) const {
    const int32_t* top = data + static_cast<ptrdiff_t>(2 * r) * stride;
    return Line{top, 2 * r + 1 < height ? top + stride : nullptr, width, shift};
  }
};

// The bytes a width x height block's segment needs where it is coded in place: MagSgn's
// buffer (stream_capacity, which holds MagSgn with the bytes its writer stores past its end),
// then MEL and VLC, at most 4079 bytes (Scup's limit, checked before they are written).
J2K_HD constexpr size_t cleanup_output_capacity(int width, int height) {
  return stream_capacity(static_cast<size_t>(width) * static_cast<size_t>(height)) + 4079;
}
// And its scratch: CleanupRows, MEL's buffer, VLC's, each from a 16-byte boundary (where the
// scratch starts on one).
J2K_HD constexpr size_t align16(size_t n) { return (n + 15) & ~size_t{15}; }
J2K_HD constexpr size_t cleanup_scratch_bytes(int width, int height) {
  return align16(CleanupRows::bytes(width)) + align16(mel_capacity(static_cast<size_t>(width) * static_cast<size_t>(height))) +
         stream_capacity(static_cast<size_t>(width) * static_cast<size_t>(height));
}

// What encode_cleanup_in_place() says of a block: CleanupPlan's figures as bytes, the
// segment's bytes (0: no pass), and whether it could not be coded.
enum CleanupStatus : uint8_t {
  kCleanupCoded = 0,       // coded (or nothing significant: no pass, no bytes)
  kCleanupTooLarge = 1,    // a magnitude of 2^31 at plane 0 (plan_cleanup's too_large)
  kCleanupScupOverflow = 2 // MEL and VLC exceed 4079 bytes
};
struct CleanupResult {
  uint32_t bytes = 0;
  uint8_t bitplanes = 0, magnitude_bitplanes = 0;
  uint8_t status = kCleanupCoded;
  uint8_t unused = 0;
};

// The cleanup pass at `plane` of the width x height block data[y * stride + x] (limits as
// BlockView's; fraction_bits + plane at most 31), into `out` (cleanup_output_capacity bytes)
// with `scratch` (cleanup_scratch_bytes, from a 16-byte boundary): ht::encode_block()'s
// bitplanes, magnitude_bitplanes and cleanup segment, read in place.
J2K_HD inline CleanupResult encode_cleanup_in_place(const int32_t* data, ptrdiff_t stride, int width, int height, int fraction_bits,
                                                    int plane, const CleanupTables& tables, uint8_t* out, uint8_t* scratch) {
  uint32_t any = 0;
  for (int y = 0; y < height; ++y) {
    const int32_t* row = data + static_cast<ptrdiff_t>(y) * stride;
    for (int x = 0; x < width; ++x) any |= magnitude_of(row[x]);
  }
  const CleanupPlan plan = plan_cleanup(any >> fraction_bits, plane);
  CleanupResult r;
  r.bitplanes = static_cast<uint8_t>(plan.bitplanes);
  r.magnitude_bitplanes = static_cast<uint8_t>(plan.magnitude_bitplanes);
  if (plan.bitplanes == 0) return r;  // nothing significant at that plane: no pass
  if (plan.too_large) {
    r.status = kCleanupTooLarge;
    return r;
  }
  const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
  uint8_t* mel = scratch + align16(CleanupRows::bytes(width));
  uint8_t* vlc = mel + align16(mel_capacity(n));
  CleanupEncoder<PlaneQuads> coder(width, height, tables, CleanupRows::carve(scratch, width), CleanupBuffers{out, mel, vlc});
  PlaneQuads quads;
  quads.data = data;
  quads.stride = stride;
  quads.width = width;
  quads.height = height;
  quads.shift = fraction_bits + plane;
  const size_t bytes = coder.run(quads);
  if (bytes == 0) {
    r.status = kCleanupScupOverflow;
    return r;
  }
  coder.write(out);
  r.bytes = static_cast<uint32_t>(bytes);
  return r;
}

}  // namespace j2k::codec::ht
