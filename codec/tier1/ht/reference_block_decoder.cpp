// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/ht/reference_block_decoder.hpp"

#include <algorithm>
#include <vector>

#include "codec/tier1/ht/bit_readers.hpp"
#include "codec/tier1/ht/coded_set.hpp"
#include "codec/tier1/ht/quad_rules.hpp"
#include "codec/tier1/ht/refinement_decoder.hpp"
#include "codec/tier1/ht/vlc_tables.hpp"

namespace j2k::codec::ht {
namespace {

// Thrown inside the decoder when the data contradicts itself; the block decodes to zeros.
struct Inconsistent {};

// What the VLC and MEL streams say of one quad.
struct Quad {
  uint8_t rho = 0, e_k = 0, e_1 = 0, u_off = 0;
  int u = 0;
};

// The U-VLC code (Annex C): a prefix "1", "01", "001" or "000" for 1, 2, 3 and 5, then a
// suffix of 0, 0, 1 or 5 bits added to it, then, after a 5-bit suffix of 28 or more, a 4-bit
// extension worth 4 each. The prefixes of a quad pair come first, then their suffixes, then
// their extensions.
int uvlc_prefix(BackwardBits& vlc) {
  const uint32_t b = vlc.peek(3);
  const int length = (b & 1) ? 1 : (b & 2) ? 2 : 3;
  vlc.skip(length);
  return (b & 1) ? 1 : (b & 2) ? 2 : (b & 4) ? 3 : 5;
}
int uvlc_suffix(BackwardBits& vlc, int prefix) {
  return prefix == 3 ? static_cast<int>(vlc.take(1)) : prefix == 5 ? static_cast<int>(vlc.take(5)) : 0;
}
int uvlc_extension(BackwardBits& vlc, int prefix, int suffix) {
  return prefix == 5 && suffix >= 28 ? 4 * static_cast<int>(vlc.take(4)) : 0;
}

struct Scratch {
  std::vector<Quad> above, row;   // the quads of the row above and of this row
  std::vector<uint8_t> e_above;   // the exponents of the row above's bottom samples, by column (+1)
  std::vector<uint8_t> e_row;
  std::vector<uint8_t> sig;       // 1: significant after cleanup; 2: made significant by SigProp
};

class Decoder {
 public:
  Decoder(const BlockCode& c, const HtSet& set, int32_t* out, ptrdiff_t stride, Scratch& s)
      : set_(set), out_(out), stride_(stride), s_(s), w_(c.width), h_(c.height) {}

  void cleanup() {
    const uint8_t* d = set_.cleanup;
    const size_t lcup = set_.cleanup_size;
    if (lcup < 2) throw Inconsistent{};
    // The last 12 bits of the segment: the bytes of MEL and VLC (Scup), at most 4079.
    const size_t scup = (static_cast<size_t>(d[lcup - 1]) << 4) | (d[lcup - 2] & 0x0F);
    if (scup < 2 || scup > lcup || scup > 4079) throw Inconsistent{};
    const size_t pcup = lcup - scup;
    MelDecoder mel(d + pcup, scup - 1);
    BackwardBits vlc(d + pcup, scup - 1, true);
    ForwardBits magsgn(d, pcup, 0xFF);

    const int qw = (w_ + 1) / 2, qh = (h_ + 1) / 2;
    s_.above.assign(static_cast<size_t>(qw) + 2, Quad{});
    s_.row.assign(static_cast<size_t>(qw) + 2, Quad{});
    s_.e_above.assign(static_cast<size_t>(w_) + 3, 0);
    s_.e_row.assign(static_cast<size_t>(w_) + 3, 0);
    const CxtVlcEntry* const tables[2] = {cxt_vlc_table(false), cxt_vlc_table(true)};
    for (int r = 0; r < qh; ++r) {
      const bool initial = r == 0;
      const CxtVlcEntry* table = tables[initial ? 1 : 0];
      Quad* above = s_.above.data() + 1;  // above[-1] and above[qw] are empty quads
      Quad* row = s_.row.data() + 1;
      for (int q = 0; q < qw; ++q) row[q] = Quad{};
      for (int q = 0; q < qw; q += 2) {
        const int pair = std::min(2, qw - q);
        for (int i = 0; i < pair; ++i) {
          const int k = q + i;
          const int cx = initial ? initial_row_context(row[k - 1].rho)
                                 : other_row_context(above[k - 1].rho, above[k].rho, above[k + 1].rho, row[k - 1].rho);
          if (cx == 0 && mel.event() == 0) continue;  // an insignificant quad
          const CxtVlcEntry& e = table[cx * 128 + static_cast<int>(vlc.peek(7))];
          if (e.length == 0) throw Inconsistent{};
          vlc.skip(e.length);
          row[k] = Quad{e.rho, e.e_k, e.e_1, e.u_off, 0};
        }
        decode_u(vlc, mel, initial, row[q], pair == 2 ? &row[q + 1] : nullptr);
      }
      magnitudes(magsgn, r, row, qw);
      std::swap(s_.above, s_.row);
      std::swap(s_.e_above, s_.e_row);
    }
  }

 private:
  // The u of a quad pair (the second may be missing at the row's end) from the U-VLC, with
  // the initial line-pair's rule for two quads that both have u_off: a MEL event says whether
  // both u exceed 2 (each then coded less 2); if not, and the first's prefix says it exceeds 2,
  // the second's (1 or 2) is a single bit after that prefix.
  static void decode_u(BackwardBits& vlc, MelDecoder& mel, bool initial, Quad& a, Quad* b) {
    const bool both = b && a.u_off && b->u_off;
    if (initial && both) {
      if (mel.event()) {
        const int pa = uvlc_prefix(vlc), pb = uvlc_prefix(vlc);
        const int sa = uvlc_suffix(vlc, pa), sb = uvlc_suffix(vlc, pb);
        const int ea = uvlc_extension(vlc, pa, sa), eb = uvlc_extension(vlc, pb, sb);
        a.u = 2 + pa + sa + ea;
        b->u = 2 + pb + sb + eb;
        return;
      }
      const int pa = uvlc_prefix(vlc);
      if (pa > 2) {
        b->u = 1 + static_cast<int>(vlc.take(1));
        const int sa = uvlc_suffix(vlc, pa);
        a.u = pa + sa + uvlc_extension(vlc, pa, sa);
        return;
      }
      const int pb = uvlc_prefix(vlc);
      const int sb = uvlc_suffix(vlc, pb);
      a.u = pa;
      b->u = pb + sb + uvlc_extension(vlc, pb, sb);
      return;
    }
    const int pa = a.u_off ? uvlc_prefix(vlc) : 0;
    const int pb = b && b->u_off ? uvlc_prefix(vlc) : 0;
    const int sa = a.u_off ? uvlc_suffix(vlc, pa) : 0;
    const int sb = b && b->u_off ? uvlc_suffix(vlc, pb) : 0;
    const int ea = a.u_off ? uvlc_extension(vlc, pa, sa) : 0;
    const int eb = b && b->u_off ? uvlc_extension(vlc, pb, sb) : 0;
    a.u = pa + sa + ea;
    if (b) b->u = pb + sb + eb;
  }

  // The MagSgn bits of a row of quads: each significant sample sends U - e_k bits, its sign
  // first, and the EMB bit e_1 completes them above; the sample's magnitude is then
  // mu = (v >> 1) + 1 at the cleanup's plane.
  void magnitudes(ForwardBits& magsgn, int r, const Quad* row, int qw) {
    const int plane = set_.plane;
    uint8_t* e_above = s_.e_above.data() + 1;  // e_above[-1] is column -1
    uint8_t* e_row = s_.e_row.data() + 1;
    std::fill(s_.e_row.begin(), s_.e_row.end(), 0);
    const bool last_row_cut = 2 * r + 1 >= h_;  // the quads' bottom row lies past the block
    int32_t* const top = out_ + 2 * r * stride_;
    int32_t* const rows[2] = {top, last_row_cut ? top : top + stride_};
    for (int q = 0; q < qw; ++q) {
      const Quad& quad = row[q];
      if (quad.rho == 0) continue;
      const int x0 = 2 * q;
      int kappa = 1;
      if (r > 0 && (quad.rho & (quad.rho - 1)) != 0) {  // more than one significant sample
        const int e_max = std::max(std::max(e_above[x0 - 1], e_above[x0]), std::max(e_above[x0 + 1], e_above[x0 + 2]));
        kappa = std::max(1, e_max - 1);
      }
      // A magnitude below 2^30 (kMaxDecodedBitplanes) has an exponent of at most 31 - plane;
      // only at that bound can mu itself still be too large.
      const int big_u = quad.u + kappa;
      if (big_u + plane > kMaxDecodedBitplanes + 1) throw Inconsistent{};
      const bool at_bound = big_u + plane > kMaxDecodedBitplanes;
      // Samples past the block's edge (odd sizes) are never coded: a stream that says
      // otherwise has them skipped.
      unsigned todo = quad.rho;
      if (x0 + 1 >= w_) todo &= 0x3;
      if (last_row_cut) todo &= 0x5;
      for (; todo != 0; todo &= todo - 1) {
        const int j = __builtin_ctz(todo);
        const int m = big_u - ((quad.e_k >> j) & 1);
        const uint32_t v = magsgn.take(m) | (static_cast<uint32_t>((quad.e_1 >> j) & 1) << m);
        const uint32_t mu = (v >> 1) + 1;
        if (at_bound && (mu >> (kMaxDecodedBitplanes - plane)) != 0) throw Inconsistent{};
        const int32_t value = static_cast<int32_t>(2 * mu + 1) << plane;
        const int x = x0 + (j >> 1);
        rows[j & 1][x] = (v & 1) ? -value : value;
        if (j & 1) e_row[x] = static_cast<uint8_t>(bit_length(2 * (mu - 1) + 1));
      }
    }
  }

  const HtSet& set_;
  int32_t* out_;
  ptrdiff_t stride_;
  Scratch& s_;
  int w_, h_;
};

}  // namespace

BlockDecodeReport decode_block_reference(const BlockCode& code, int32_t* out, ptrdiff_t stride) {
  check_block(code);
  for (int y = 0; y < code.height; ++y)
    for (int x = 0; x < code.width; ++x) out[y * stride + x] = 0;
  BlockDecodeReport report;
  HtSet set;
  if (code.bitplanes <= 0 || !find_set(code, set)) return report;
  thread_local Scratch scratch;
  Decoder d(code, set, out, stride, scratch);
  try {
    if (set.plane < 0) throw Inconsistent{};  // more placeholder passes than planes
    d.cleanup();
    // Passes below plane 0 do not exist: a SigProp or MagRef after a cleanup at plane 0 is
    // ignored.
    const int refinement = set.plane > 0 ? set.refinement_passes : 0;
    if (refinement > 0) {
      scratch.sig.resize(static_cast<size_t>(code.width) * static_cast<size_t>(code.height));
      RefinementDecoder r(code.width, code.height, set.plane, (code.modes & kModeCausal) != 0, out, stride, scratch.sig.data());
      ForwardBits sigprop(set.refinement, set.refinement_size, 0);
      r.significance_propagation(sigprop);
      if (refinement > 1) {
        BackwardBits magref(set.refinement, set.refinement_size, false);
        r.magnitude_refinement(magref);
      }
    }
    report.passes = set.passes - (set.refinement_passes - refinement);
  } catch (const Inconsistent&) {
    for (int y = 0; y < code.height; ++y)
      for (int x = 0; x < code.width; ++x) out[y * stride + x] = 0;
    report.corrupt = true;
  }
  return report;
}

}  // namespace j2k::codec::ht
