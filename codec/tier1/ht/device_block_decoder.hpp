// SPDX-License-Identifier: BSD-2-Clause
// The HT block decoder of block_decoder.cpp as one source for the host and for the CUDA
// kernel that decodes a batch's code-blocks on the GPU (gpu/cuda/block_decoder.cu): the
// cleanup pass's two sub-passes as cleanup_pass.hpp's portable build does them, then SigProp
// and MagRef (refinement_decoder.hpp), over the same word readers and tables. What differs:
// - device code cannot throw, so where the CPU decoder throws Inconsistent each step here
//   returns false, and decode_block() zeros the block and sets BlockDecodeReport::corrupt,
//   as ht::decode_block() does;
// - nothing is on the stack but a few registers' worth: the quad rows and SigProp's
//   significance live in the caller's scratch (scratch_bytes()), a GPU thread's stack being
//   local memory reserved for every thread the device can hold; the MagSgn sub-pass writes
//   each quad's coefficients where they go, not through rows of its own;
// - the tables (cleanup::tables()) come by reference: the host's, or a device copy.
// The CPU keeps block_decoder.cpp (AVX2 where it can); tests/ht_device_decoder_test.cpp runs
// this one on the host against it, bit for bit, over blocks of every size, lossless and
// lossy, cut and corrupted.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ht/cleanup_pass.hpp"
#include "codec/tier1/ht/coded_set.hpp"
#include "codec/tier1/ht/host_device.hpp"
#include "codec/tier1/ht/quad_rules.hpp"
#include "codec/tier1/ht/refinement_decoder.hpp"
#include "codec/tier1/ht/word_readers.hpp"

namespace j2k::codec::ht::device {

// Where a block's rows live in its scratch (`width` samples wide, `height` high): the quad
// row (codewords with an empty quad either side, exponent bounds, contexts from above), the
// bottom exponents of two sample rows (with [-1] and room past the last quad: kappa() reads
// 2q - 1 .. 2q + 2), then SigProp's significance, a byte a sample.
struct ScratchLayout {
  size_t codewords, big_u, above, exponents, sig, total;
  int exponent_row;  // bytes of one exponent row
};
J2K_HD inline ScratchLayout scratch_layout(int width, int height) {
  const size_t qw = static_cast<size_t>(width + 1) / 2;
  ScratchLayout l{};
  l.codewords = 0;  // uint16: the scratch's start, 4-byte aligned
  l.big_u = l.codewords + 2 * (qw + 2);
  l.above = l.big_u + (qw + 2);
  l.exponent_row = static_cast<int>(2 * qw + 4);
  l.exponents = l.above + (qw + 1);
  l.sig = l.exponents + 2 * static_cast<size_t>(l.exponent_row);
  l.total = (l.sig + static_cast<size_t>(width) * static_cast<size_t>(height) + 3) / 4 * 4;
  return l;
}
// The scratch decode_block() needs for a width x height block, a multiple of 4 bytes.
J2K_HD inline size_t scratch_bytes(int width, int height) { return scratch_layout(width, height).total; }

// The quad row's arrays in the scratch.
struct Rows {
  uint16_t* codeword;     // [-1] and [qw]: empty quads
  uint8_t* big_u;         // exponent bounds U = u + kappa
  uint8_t* above;         // each quad's context bits from the row above
  uint8_t* exponents[2];  // two rows' bottom exponents, each from its [-1]
};

// One quad's codeword (cleanup_pass.hpp's decode_quad).
J2K_HD inline uint32_t decode_quad(const uint32_t* table, unsigned context, BackwardWordReader& vlc, MelRunDecoder& mel) {
  if (context == 0 && !mel.event()) return 0;
  const uint32_t entry = table[context << 7 | static_cast<unsigned>(vlc.bits() & 127)];
  vlc.skip(cleanup::packed::length(entry));
  return entry;
}

// Sub-pass 1 of a quad row (cleanup_pass.hpp's decode_vlc_row_of_kind, step for step):
// false where a codeword is none of the table's.
J2K_HD inline bool decode_vlc_row(const cleanup::Tables& t, BackwardWordReader& vlc, MelRunDecoder& mel, bool initial, int qw,
                                  const uint8_t* e_above, const Rows& rows) {
  namespace packed = cleanup::packed;
  const uint32_t* table = t.cxt[initial ? 1 : 0];
  uint32_t seen = 0, left = 0;
  for (int q = 0; q < qw; q += 2) {
    vlc.need(30);
    const uint32_t first = decode_quad(table, rows.above[q] | packed::right_context(left), vlc, mel);
    const uint32_t second = q + 1 < qw ? decode_quad(table, rows.above[q + 1] | packed::right_context(first), vlc, mel) : 0;
    left = second;
    seen |= first | second;
    rows.codeword[q] = static_cast<uint16_t>(first);
    rows.codeword[q + 1] = static_cast<uint16_t>(second);  // [qw]: the empty quad past the row
    unsigned mode = ((first & packed::kUOff) ? cleanup::kFirstU : 0u) | ((second & packed::kUOff) ? cleanup::kSecondU : 0u);
    if (initial && mode == cleanup::kBothU) mode = mel.event() ? cleanup::kInitialBothAbove2 : cleanup::kInitialBoth;
    const uint64_t bits = vlc.bits();
    const cleanup::UvlcPrefixes& p = t.uvlc[mode][bits & 63];
    vlc.skip(p.bits);
    const unsigned suffixes = static_cast<unsigned>(bits >> p.prefix_bits);
    const unsigned suffix_first = suffixes & p.suffix_mask_first;
    const unsigned suffix_second = (suffixes >> p.suffix_bits_first) & p.suffix_mask_second;
    unsigned u_first = p.u_first + suffix_first, u_second = p.u_second + suffix_second;
    if (suffix_first >= 28) u_first += 4 * vlc.take(4);
    if (suffix_second >= 28) u_second += 4 * vlc.take(4);
    rows.big_u[q] = static_cast<uint8_t>(u_first + cleanup::kappa(first & packed::kRho, e_above, q));
    rows.big_u[q + 1] = static_cast<uint8_t>(u_second + cleanup::kappa(second & packed::kRho, e_above, q + 1));
  }
  return (seen & packed::kUnknown) == 0;
}

// Sub-pass 2 of a quad row (cleanup_pass.hpp's PortableMagSgnRow, one quad at a time): each
// significant sample's U - e_k bits, its EMB bit e_1 above them, as the coefficient
// (2 mu + 1) 2^p with its sign. `bottom` null: the block ends after `top`. False where an
// exponent bound or a magnitude passes kMaxDecodedBitplanes.
J2K_HD inline bool decode_magsgn_row(ForwardWordReader& magsgn, const Rows& rows, uint8_t* e_row, int32_t* top, int32_t* bottom,
                                     int width, int qw, int plane) {
  namespace packed = cleanup::packed;
  const unsigned row_mask = bottom ? 0xFu : 0x5u;
  const int mu_limit = kMaxDecodedBitplanes - plane;
  uint32_t overflow = 0;
  for (int q = 0; q < qw; ++q) {
    const int x = 2 * q;
    const bool right_inside = x + 1 < width;
    const unsigned entry = rows.codeword[q];
    const unsigned rho = entry & packed::kRho;
    unsigned todo = 0;
    uint32_t v[4] = {0, 0, 0, 0};
    e_row[x] = e_row[x + 1] = 0;
    if (rho != 0) {
      const unsigned big_u = rows.big_u[q];
      if (static_cast<int>(big_u) + plane > kMaxDecodedBitplanes + 1) return false;  // exponent_bound()
      // Samples past the block's edge (odd sizes) are never coded.
      todo = rho & row_mask & (right_inside ? 0xFu : 0x3u);
      const unsigned e_k = entry >> packed::kEkShift & 0xF, e_1 = entry >> packed::kE1Shift & todo & 0xF;
      // Each coded sample's bits (big_u >= 1: kappa >= 1), all of them read at once where
      // they fit what a refill brings (at most 4 x 31), as PortableMagSgnRow does.
      int n[4], total = 0;
      for (int j = 0; j < 4; ++j) {
        n[j] = ((todo >> j) & 1) ? static_cast<int>(big_u - ((e_k >> j) & 1)) : 0;
        total += n[j];
      }
      if (total <= kRefilled) {
        magsgn.need(total);
        uint64_t word = magsgn.bits();
        for (int j = 0; j < 4; ++j) {
          v[j] = static_cast<uint32_t>(word) & ((1u << n[j]) - 1);  // n[j] <= 31
          word >>= n[j];
        }
        magsgn.skip(total);
      } else {
        for (int j = 0; j < 4; ++j) v[j] = magsgn.take(n[j]);
      }
      for (int j = 0; j < 4; ++j) v[j] |= ((e_1 >> j) & 1) << n[j];
      // The exponent of a bottom sample, for the next row's kappa.
      if (todo & 2) e_row[x] = static_cast<uint8_t>(bit_length(v[1] | 1));
      if (todo & 8) e_row[x + 1] = static_cast<uint8_t>(bit_length(v[3] | 1));
    }
    // The coefficients, 0 where not coded (PortableMagSgnRow::write_coefficients).
    int32_t c[4];
    for (int j = 0; j < 4; ++j) {
      const uint32_t present = 0u - ((todo >> j) & 1);
      const uint32_t value = v[j] & 0x7FFFFFFFu;  // the CPU's rows keep bit 31 for "coded"
      const uint32_t magnitude = ((value & ~1u) + 3) << plane;
      const uint32_t negative = 0u - (value & 1);
      c[j] = static_cast<int32_t>(((magnitude ^ negative) - negative) & present);
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

// The context bits 0 and 2 of each quad of the next row (cleanup_pass.hpp's
// set_above_contexts).
J2K_HD inline void set_above_contexts(int qw, const Rows& rows) {
  for (int q = 0; q < qw; ++q)
    rows.above[q] = static_cast<uint8_t>(other_row_context(rows.codeword[q - 1], rows.codeword[q], rows.codeword[q + 1], 0));
}

// The cleanup pass at `plane` into every sample of the width x height block at out
// (cleanup_pass.hpp's decode_cleanup); false where the data contradicts itself.
J2K_HD inline bool decode_cleanup(const cleanup::Tables& t, const uint8_t* d, size_t lcup, int32_t* out, ptrdiff_t stride,
                                  int width, int height, int plane, uint8_t* scratch) {
  if (lcup < 2) return false;
  // The last 12 bits of the segment: the bytes of MEL and VLC (Scup), at most 4079.
  const size_t scup = (static_cast<size_t>(d[lcup - 1]) << 4) | (d[lcup - 2] & 0x0F);
  if (scup < 2 || scup > lcup || scup > 4079) return false;
  const size_t pcup = lcup - scup;
  MelStream mel_stream(d + pcup, scup - 1);
  MelRunDecoder mel(mel_stream);
  BackwardWordReader vlc(d + pcup, scup - 1, true);
  ForwardWordReader magsgn(d, pcup, true);

  const ScratchLayout l = scratch_layout(width, height);
  const int qw = (width + 1) / 2, qh = (height + 1) / 2;
  Rows rows;
  rows.codeword = reinterpret_cast<uint16_t*>(scratch + l.codewords) + 1;
  rows.big_u = scratch + l.big_u;
  rows.above = scratch + l.above;
  rows.exponents[0] = scratch + l.exponents + 1;
  rows.exponents[1] = rows.exponents[0] + l.exponent_row;
  // Row 0 has no contexts nor exponents from above, and an empty quad either side.
  for (int q = 0; q < qw; ++q) rows.above[q] = 0;
  rows.codeword[-1] = rows.codeword[qw] = 0;
  for (int i = 0; i < 2 * l.exponent_row; ++i) scratch[l.exponents + static_cast<size_t>(i)] = 0;
  int above = 0;  // which exponent row is the row above's
  for (int r = 0; r < qh; ++r) {
    if (!decode_vlc_row(t, vlc, mel, r == 0, qw, rows.exponents[above], rows)) return false;
    int32_t* const top = out + 2 * r * stride;
    int32_t* const bottom = 2 * r + 1 < height ? top + stride : nullptr;
    if (!decode_magsgn_row(magsgn, rows, rows.exponents[1 - above], top, bottom, width, qw, plane)) return false;
    above = 1 - above;
    set_above_contexts(qw, rows);
  }
  return true;
}

J2K_HD inline void zero(int32_t* out, ptrdiff_t stride, int width, int height) {
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) out[y * stride + x] = 0;
}

// Decodes the block into out[y * stride + x] as ht::decode_block() does (block_decoder.hpp
// says in what form), the same report; `scratch`: scratch_bytes(width, height) bytes from a
// 4-byte boundary. The caller checks the block first (check_block(), which ht::decode_block()
// makes and which throws): sizes within A.6.1's, at most kMaxDecodedBitplanes planes,
// segments within its bytes.
J2K_HD inline BlockDecodeReport decode_block(const BlockCode& code, const cleanup::Tables& t, uint8_t* scratch, int32_t* out,
                                             ptrdiff_t stride) {
  BlockDecodeReport report;
  HtSet set;
  if (code.bitplanes <= 0 || !find_set(code, set)) {
    zero(out, stride, code.width, code.height);
    return report;
  }
  // More placeholder passes than planes, or a cleanup pass that contradicts itself.
  if (set.plane < 0 || !decode_cleanup(t, set.cleanup, set.cleanup_size, out, stride, code.width, code.height, set.plane, scratch)) {
    zero(out, stride, code.width, code.height);
    report.corrupt = true;
    return report;
  }
  // Passes below plane 0 do not exist: a SigProp or MagRef after a cleanup at plane 0 is
  // ignored.
  const int refinement = set.plane > 0 ? set.refinement_passes : 0;
  if (refinement > 0) {
    RefinementDecoder r(code.width, code.height, set.plane, (code.modes & kModeCausal) != 0, out, stride,
                        scratch + scratch_layout(code.width, code.height).sig);
    ForwardWordReader sigprop(set.refinement, set.refinement_size, false);
    r.significance_propagation(sigprop);
    if (refinement > 1) {
      BackwardWordReader magref(set.refinement, set.refinement_size, false);
      r.magnitude_refinement(magref);
    }
  }
  report.passes = set.passes - (set.refinement_passes - refinement);
  return report;
}

}  // namespace j2k::codec::ht::device
