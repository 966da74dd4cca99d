// SPDX-License-Identifier: BSD-2-Clause
// The HT block decoder, a quad row (two sample rows) at a time in two sub-passes:
//   1. VLC: each quad's CxtVLC codeword (rho, u_off, the EMB patterns) and its u from the
//      U-VLC, with the MEL events of the zero context, into a small array per row;
//   2. MagSgn: each significant sample's bits, written straight into the output as the
//      coefficient the EBCOT decoder would hold, and the bottom row's exponents, which the
//      next row's exponent bounds (kappa) read.
// The two never wait on each other within a row, the tables hold a quad's decoded codeword in
// 16 bits, and the readers (word_readers.hpp) take 8 bytes at a time. It decodes bit for bit
// as reference_block_decoder.cpp, which reads the standard's steps one at a time, hostile input
// included (tests/ht_block_decoder_test.cpp, the ht_block fuzzer).
#include "codec/tier1/ht/block_decoder.hpp"

#include <algorithm>
#include <cstring>

#include "codec/tier1/ht/coded_set.hpp"
#include "codec/tier1/ht/quad_rules.hpp"
#include "codec/tier1/ht/vlc_tables.hpp"
#include "codec/tier1/ht/word_readers.hpp"

namespace j2k::codec::ht {
namespace {

// Thrown inside the decoder when the data contradicts itself; the block decodes to zeros.
struct Inconsistent {};
[[noreturn, gnu::cold, gnu::noinline]] void inconsistent() { throw Inconsistent{}; }

// The widest block (A.6.1: 1024 x 4) and its quads.
constexpr int kMaxWidth = 1024;
constexpr int kMaxQuads = kMaxWidth / 2;
constexpr int kMaxSamples = 4096;

// A CxtVLC codeword decoded (vlc_tables.hpp's CxtVlcEntry) in 16 bits; 0 for no codeword (and
// for an insignificant quad).
namespace packed {
constexpr unsigned kRho = 0x000F;    // bits 0-3: significant samples
constexpr unsigned kUOff = 0x0010;   // bit 4: u is coded
constexpr int kLengthShift = 5;      // bits 5-7: the codeword's length
constexpr int kEkShift = 8;          // bits 8-11: e_k
constexpr int kE1Shift = 12;         // bits 12-15: e_1
constexpr uint16_t pack(const CxtVlcEntry& e) {
  return static_cast<uint16_t>(e.rho | e.u_off << 4 | e.length << kLengthShift | e.e_k << kEkShift | e.e_1 << kE1Shift);
}
constexpr int length(unsigned entry) { return static_cast<int>((entry >> kLengthShift) & 7); }
}  // namespace packed

// The U-VLC bits of a quad pair up to their suffixes (the prefixes, and in the initial row
// the bit that stands for the second prefix), decoded from the next 6 bits: the bits they
// take, each quad's u before its suffix, and each suffix's length (0, 1 or 5).
struct UvlcPrefixes {
  uint8_t bits = 0, u_first = 0, u_second = 0, suffix_first = 0, suffix_second = 0;
};

// How a pair's u are coded: which quads have u_off, and for two in the initial row, what the
// pair's MEL event says (1: both u above 2, each coded less 2).
enum UvlcMode : unsigned { kNoU = 0, kFirstU = 1, kSecondU = 2, kBothU = 3, kInitialBothAbove2 = 4, kInitialBoth = 5 };

struct Tables {
  uint16_t cxt[2][8 * 128];        // [initial row][context * 128 + next 7 bits]
  UvlcPrefixes uvlc[6][64];        // [UvlcMode][next 6 bits]
  uint8_t left_context[2][16];     // [initial row][rho of the quad to the left]: its context bits
};

// The U-VLC prefix at the head of `bits`: "1", "01", "001", "000" for 1, 2, 3, 5.
struct Prefix {
  int bits, value;
};
constexpr Prefix uvlc_prefix(unsigned bits) {
  return (bits & 1) ? Prefix{1, 1} : (bits & 2) ? Prefix{2, 2} : (bits & 4) ? Prefix{3, 3} : Prefix{3, 5};
}
constexpr int uvlc_suffix_bits(int prefix) { return prefix == 3 ? 1 : prefix == 5 ? 5 : 0; }

UvlcPrefixes uvlc_entry(unsigned mode, unsigned bits) {
  auto u8 = [](int v) { return static_cast<uint8_t>(v); };
  const Prefix a = uvlc_prefix(bits);
  switch (mode) {
    case kFirstU: return {u8(a.bits), u8(a.value), 0, u8(uvlc_suffix_bits(a.value)), 0};
    case kSecondU: return {u8(a.bits), 0, u8(a.value), 0, u8(uvlc_suffix_bits(a.value))};
    case kBothU:
    case kInitialBothAbove2: {
      const Prefix b = uvlc_prefix(bits >> a.bits);
      const int base = mode == kInitialBothAbove2 ? 2 : 0;
      return {u8(a.bits + b.bits), u8(base + a.value), u8(base + b.value), u8(uvlc_suffix_bits(a.value)),
              u8(uvlc_suffix_bits(b.value))};
    }
    case kInitialBoth: {
      // The first u above 2: the second (1 or 2) is one bit after the first's prefix.
      if (a.value > 2) return {u8(a.bits + 1), u8(a.value), u8(1 + ((bits >> a.bits) & 1)), u8(uvlc_suffix_bits(a.value)), 0};
      // Otherwise the first is its prefix alone, and the second is coded in full.
      const Prefix b = uvlc_prefix(bits >> a.bits);
      return {u8(a.bits + b.bits), u8(a.value), u8(b.value), 0, u8(uvlc_suffix_bits(b.value))};
    }
    default: return {};
  }
}

const Tables& tables() {
  static const Tables t = [] {
    Tables n{};
    for (int initial = 0; initial < 2; ++initial) {
      const CxtVlcEntry* entries = cxt_vlc_table(initial != 0);
      for (int i = 0; i < 8 * 128; ++i) n.cxt[initial][i] = entries[i].length ? packed::pack(entries[i]) : 0;
    }
    for (unsigned mode = 0; mode < 6; ++mode)
      for (unsigned bits = 0; bits < 64; ++bits) n.uvlc[mode][bits] = uvlc_entry(mode, bits);
    // The left quad's part of a context (quad_rules.hpp): the initial row's three bits; the
    // other rows' bit 1 (the rows above give bits 0 and 2, see above_contexts()).
    for (unsigned rho = 0; rho < 16; ++rho) {
      n.left_context[1][rho] = static_cast<uint8_t>(initial_row_context(rho));
      n.left_context[0][rho] = static_cast<uint8_t>(other_row_context(0, 0, 0, rho));
    }
    return n;
  }();
  return t;
}

// What a quad row's VLC sub-pass leaves for its MagSgn sub-pass and the next row.
struct QuadRow {
  uint16_t codeword_storage[kMaxQuads + 2] = {};  // packed entries, [-1] and [qw] empty quads
  uint8_t u[kMaxQuads + 2] = {};
  uint8_t above_context[kMaxQuads + 1] = {};      // each quad's context bits from the row above
  uint16_t* codeword() { return codeword_storage + 1; }
};

// The exponents of a sample row's significant samples, by column, [-1] and those past the
// block's last quad 0.
struct ExponentRow {
  uint8_t storage[kMaxWidth + 4] = {};
  uint8_t* at() { return storage + 1; }
};

class Decoder {
 public:
  Decoder(const BlockCode& c, const HtSet& set, int32_t* out, ptrdiff_t stride)
      : c_(c), set_(set), out_(out), stride_(stride), w_(c.width), h_(c.height) {}

  void cleanup() {
    const uint8_t* d = set_.cleanup;
    const size_t lcup = set_.cleanup_size;
    if (lcup < 2) inconsistent();
    // The last 12 bits of the segment: the bytes of MEL and VLC (Scup), at most 4079.
    const size_t scup = (static_cast<size_t>(d[lcup - 1]) << 4) | (d[lcup - 2] & 0x0F);
    if (scup < 2 || scup > lcup || scup > 4079) inconsistent();
    const size_t pcup = lcup - scup;
    MelRunDecoder mel(d + pcup, scup - 1);
    BackwardWordReader vlc(d + pcup, scup - 1, true);
    ForwardWordReader magsgn(d, pcup, true);

    const int qw = (w_ + 1) / 2, qh = (h_ + 1) / 2;
    const Tables& t = tables();
    for (int r = 0; r < qh; ++r) {
      const bool initial = r == 0;
      decode_vlc_row(t, vlc, mel, initial, qw);
      decode_magsgn_row(magsgn, r, qw);
      std::swap(exponents_above_, exponents_row_);
      set_above_contexts(qw);
    }
  }

  // SigProp and MagRef follow the reference's steps (reference_block_decoder.cpp); they are
  // there only for a cleanup above plane 0.
  void refinement(int passes) {
    mark_significance();
    ForwardWordReader sigprop(set_.refinement, set_.refinement_size, false);
    significance_propagation(sigprop);
    if (passes > 1) {
      BackwardWordReader magref(set_.refinement, set_.refinement_size, false);
      magnitude_refinement(magref);
    }
  }

 private:
  // Sub-pass 1: the quad row's codewords and u, in the order the standard interleaves them:
  // per quad pair, the first quad's codeword, the second's, then their U-VLC (prefixes,
  // suffixes, extensions).
  void decode_vlc_row(const Tables& t, BackwardWordReader& vlc, MelRunDecoder& mel, bool initial, int qw) {
    const uint16_t* table = t.cxt[initial ? 1 : 0];
    const uint8_t* left_context = t.left_context[initial ? 1 : 0];
    uint16_t* codeword = quads_.codeword();
    uint8_t* u = quads_.u;
    const uint8_t* above = quads_.above_context;
    unsigned left_rho = 0;
    bool unknown = false;  // a codeword that is none of the table's
    // One quad's codeword; a quad in the zero context is insignificant unless MEL says not.
    auto decode_quad = [&](int q) -> unsigned {
      const unsigned context = initial ? left_context[left_rho] : above[q] | left_context[left_rho];
      unsigned entry = 0;
      if (context != 0 || mel.event()) {
        entry = table[context << 7 | static_cast<unsigned>(vlc.bits() & 127)];
        unknown |= entry == 0;
        vlc.skip(packed::length(entry));
      }
      left_rho = entry & packed::kRho;
      return entry;
    };
    for (int q = 0; q < qw; q += 2) {
      // Two codewords (7 bits each at most) and the pair's U-VLC (2 x (3 + 5 + 4) bits).
      vlc.need(38);
      const unsigned first = decode_quad(q);
      const unsigned second = q + 1 < qw ? decode_quad(q + 1) : 0;
      codeword[q] = static_cast<uint16_t>(first);
      codeword[q + 1] = static_cast<uint16_t>(second);  // [qw]: the empty quad past the row
      unsigned mode = ((first & packed::kUOff) ? kFirstU : 0u) | ((second & packed::kUOff) ? kSecondU : 0u);
      if (mode == kNoU) {
        u[q] = u[q + 1] = 0;
        continue;
      }
      if (initial && mode == kBothU) mode = mel.event() ? kInitialBothAbove2 : kInitialBoth;
      const UvlcPrefixes& p = t.uvlc[mode][vlc.bits() & 63];
      vlc.skip(p.bits);
      unsigned u_first = p.u_first, u_second = p.u_second;
      const unsigned suffix_first = static_cast<unsigned>(vlc.bits()) & ((1u << p.suffix_first) - 1);
      vlc.skip(p.suffix_first);
      const unsigned suffix_second = static_cast<unsigned>(vlc.bits()) & ((1u << p.suffix_second) - 1);
      vlc.skip(p.suffix_second);
      u_first += suffix_first;
      u_second += suffix_second;
      // A 5-bit suffix of 28 or more has a 4-bit extension, worth 4 each.
      if (p.suffix_first == 5 && suffix_first >= 28) u_first += 4 * vlc.take(4);
      if (p.suffix_second == 5 && suffix_second >= 28) u_second += 4 * vlc.take(4);
      u[q] = static_cast<uint8_t>(u_first);
      u[q + 1] = static_cast<uint8_t>(u_second);
    }
    if (unknown) inconsistent();
  }

  // Sub-pass 2: the MagSgn bits of the quad row. Each significant sample sends U - e_k bits,
  // its sign first, and the EMB bit e_1 completes them above; its magnitude at the cleanup's
  // plane p is then mu = (v >> 1) + 1, and its coefficient sign and (2 mu + 1) 2^p.
  void decode_magsgn_row(ForwardWordReader& magsgn, int r, int qw) {
    const int plane = set_.plane;
    const uint16_t* codeword = quads_.codeword();
    const uint8_t* u = quads_.u;
    const uint8_t* e_above = exponents_above_->at();
    uint8_t* e_row = exponents_row_->at();
    // Samples past the block's edge (odd sizes) are never coded: a stream that says otherwise
    // has them skipped. A cut bottom row goes to a scratch row.
    const bool bottom_cut = 2 * r + 1 >= h_;
    const unsigned row_mask = bottom_cut ? 0x5u : 0xFu;
    int32_t* const top = out_ + 2 * r * stride_;
    int32_t* const bottom = bottom_cut ? cut_row_ : top + stride_;
    // A magnitude below 2^30 (kMaxDecodedBitplanes) has an exponent of at most 31 - plane;
    // only at that bound can mu itself still be too large, which `overflow` collects.
    const int mu_limit = kMaxDecodedBitplanes - plane;
    uint32_t overflow = 0;
    for (int q = 0; q < qw; ++q) {
      const int x = 2 * q;
      const unsigned entry = codeword[q];
      const unsigned rho = entry & packed::kRho;
      if (rho == 0) {
        top[x] = bottom[x] = 0;
        e_row[x] = e_row[x + 1] = 0;
        if (x + 1 < w_) top[x + 1] = bottom[x + 1] = 0;
        continue;
      }
      // The exponent bound U = u + kappa; kappa, for a quad with more than one significant
      // sample, from the largest exponent of the four samples above it (all 0 in row 0).
      const int e_max = std::max(std::max(e_above[x - 1], e_above[x]), std::max(e_above[x + 1], e_above[x + 2]));
      const int kappa = (rho & (rho - 1)) != 0 ? std::max(1, e_max - 1) : 1;
      const int big_u = u[q] + kappa;
      if (big_u + plane > kMaxDecodedBitplanes + 1) inconsistent();
      const unsigned todo = rho & row_mask & (x + 1 < w_ ? 0xFu : 0x3u);
      const unsigned e_k = entry >> packed::kEkShift & 0xF, e_1 = entry >> packed::kE1Shift & 0xF;
      int32_t coefficient[4];
      uint8_t exponent[4];
      for (unsigned j = 0; j < 4; ++j) {
        const uint32_t significant = (todo >> j) & 1;
        const int bits = static_cast<int>((static_cast<unsigned>(big_u) - ((e_k >> j) & 1)) & (0u - significant));
        const uint32_t v = magsgn.take(bits) | (((e_1 >> j) & significant) << bits);
        overflow |= (((v >> 1) + 1) >> mu_limit) & significant;
        const uint32_t magnitude = ((v & ~1u) + 3) << plane;  // (2 mu + 1) 2^p, below 2^31
        const uint32_t negative = 0u - (v & 1);
        coefficient[j] = static_cast<int32_t>(((magnitude ^ negative) - negative) & (0u - significant));
        exponent[j] = static_cast<uint8_t>(bit_length(v | 1) & (0u - significant));  // of 2 (mu - 1) + 1
      }
      top[x] = coefficient[0];
      bottom[x] = coefficient[1];
      e_row[x] = exponent[1];
      e_row[x + 1] = exponent[3];
      if (x + 1 < w_) {
        top[x + 1] = coefficient[2];
        bottom[x + 1] = coefficient[3];
      }
    }
    if (overflow) inconsistent();
  }

  // The context bits 0 (NW, N) and 2 (NE, NF) of each quad of the next row, from this row's
  // bottom samples (its codewords' rho, whether or not past the block's edge).
  void set_above_contexts(int qw) {
    const uint16_t* codeword = quads_.codeword();  // [-1] and [qw] are empty quads
    for (int q = 0; q < qw; ++q) {
      const unsigned left = codeword[q - 1], own = codeword[q], right = codeword[q + 1];
      quads_.above_context[q] = static_cast<uint8_t>(other_row_context(left, own, right, 0));
    }
  }

  void mark_significance() {
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x) sig_[y * w_ + x] = out_[y * stride_ + x] != 0 ? 1 : 0;
  }
  bool sig(int x, int y) const { return sig_[y * w_ + x] != 0; }
  // Whether any of the 8 neighbours is significant now; rows from `below_end` on are unseen
  // (the stripe below, with the stripe-causal mode).
  bool neighbour_significant(int x, int y, int below_end) const {
    for (int dy = -1; dy <= 1; ++dy) {
      const int yy = y + dy;
      if (yy < 0 || yy >= h_ || yy >= below_end) continue;
      for (int dx = -1; dx <= 1; ++dx) {
        const int xx = x + dx;
        if ((dx || dy) && xx >= 0 && xx < w_ && sig(xx, yy)) return true;
      }
    }
    return false;
  }

  void significance_propagation(ForwardWordReader& bits) {
    const int p = set_.plane - 1;
    const bool causal = (c_.modes & kModeCausal) != 0;
    int newly[16][2];
    for (int y0 = 0; y0 < h_; y0 += 4) {
      const int y1 = std::min(y0 + 4, h_);
      for (int x0 = 0; x0 < w_; x0 += 4) {
        const int x1 = std::min(x0 + 4, w_);
        int count = 0;
        for (int x = x0; x < x1; ++x)
          for (int y = y0; y < y1; ++y) {
            if (sig(x, y) || !neighbour_significant(x, y, causal ? y1 : h_)) continue;
            if (bits.take(1)) {
              sig_[y * w_ + x] = 2;
              newly[count][0] = x;
              newly[count][1] = y;
              ++count;
            }
          }
        // The signs of the group's new coefficients follow its significance bits.
        for (int i = 0; i < count; ++i) {
          const int32_t v = 3 * (int32_t{1} << p);
          out_[newly[i][1] * stride_ + newly[i][0]] = bits.take(1) ? -v : v;
        }
      }
    }
  }

  void magnitude_refinement(BackwardWordReader& bits) {
    const int p = set_.plane - 1;
    for (int y0 = 0; y0 < h_; y0 += 4) {
      const int y1 = std::min(y0 + 4, h_);
      for (int x = 0; x < w_; ++x)
        for (int y = y0; y < y1; ++y) {
          if (sig_[y * w_ + x] != 1) continue;
          int32_t& v = out_[y * stride_ + x];
          const int32_t m = v < 0 ? -v : v;
          const int32_t refined = m - (int32_t{1} << set_.plane) + ((2 * static_cast<int32_t>(bits.take(1)) + 1) << p);
          v = v < 0 ? -refined : refined;
        }
    }
  }

  const BlockCode& c_;
  const HtSet& set_;
  int32_t* out_;
  ptrdiff_t stride_;
  int w_, h_;
  QuadRow quads_;
  ExponentRow exponent_rows_[2];
  ExponentRow* exponents_above_ = &exponent_rows_[0];
  ExponentRow* exponents_row_ = &exponent_rows_[1];
  int32_t cut_row_[kMaxWidth];
  uint8_t sig_[kMaxSamples];  // 1: significant after cleanup; 2: made significant by SigProp
};

void zero(int32_t* out, ptrdiff_t stride, int width, int height) {
  for (int y = 0; y < height; ++y) std::fill_n(out + y * stride, width, 0);
}

}  // namespace

BlockDecodeReport decode_block(const BlockCode& code, int32_t* out, ptrdiff_t stride) {
  check_block(code);
  BlockDecodeReport report;
  HtSet set;
  if (code.bitplanes <= 0 || !find_set(code, set)) {
    zero(out, stride, code.width, code.height);
    return report;
  }
  Decoder d(code, set, out, stride);
  try {
    if (set.plane < 0) throw Inconsistent{};  // more placeholder passes than planes
    d.cleanup();  // writes every sample of the block
    // Passes below plane 0 do not exist: a SigProp or MagRef after a cleanup at plane 0 is
    // ignored.
    const int refinement = set.plane > 0 ? set.refinement_passes : 0;
    if (refinement > 0) d.refinement(refinement);
    report.passes = set.passes - (set.refinement_passes - refinement);
  } catch (const Inconsistent&) {
    zero(out, stride, code.width, code.height);
    report.corrupt = true;
  }
  return report;
}

}  // namespace j2k::codec::ht
