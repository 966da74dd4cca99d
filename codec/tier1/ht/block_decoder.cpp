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

// decode_magsgn_row's sample rows: v below bit 31, and bit 31 set where the sample is coded.
constexpr int kCodedShift = 31;
constexpr uint32_t kEachByte = 0x01010101u;

// A CxtVLC codeword decoded (vlc_tables.hpp's CxtVlcEntry) in 32 bits, 0 for no codeword (and
// for an insignificant quad); the row arrays keep the low 16.
namespace packed {
constexpr unsigned kRho = 0x000F;    // bits 0-3: significant samples
constexpr unsigned kUOff = 0x0010;   // bit 4: u is coded
constexpr int kLengthShift = 5;      // bits 5-7: the codeword's length
constexpr int kEkShift = 8;          // bits 8-11: e_k
constexpr int kE1Shift = 12;         // bits 12-15: e_1
// Bits 16-18: the context bits the quad gives the quad to its right (quad_rules.hpp), so
// that the next lookup waits on one load, not two.
constexpr int kRightContextShift = 16;
constexpr uint32_t pack(const CxtVlcEntry& e, unsigned right_context) {
  return static_cast<uint32_t>(e.rho | e.u_off << 4 | e.length << kLengthShift | e.e_k << kEkShift | e.e_1 << kE1Shift) |
         right_context << kRightContextShift;
}
constexpr int length(uint32_t entry) { return static_cast<int>((entry >> kLengthShift) & 7); }
constexpr unsigned right_context(uint32_t entry) { return entry >> kRightContextShift; }
}  // namespace packed

// The U-VLC bits of a quad pair but the extensions, decoded from the next 6 bits: the
// prefixes (and in the initial row the bit that stands for the second prefix), then each
// quad's suffix (0, 1 or 5 bits). `bits`: all of them; `prefix_bits`: the prefixes'; each
// quad's u before its suffix and the length and mask of its suffix, which follow the
// prefixes in turn.
struct UvlcPrefixes {
  uint8_t bits = 0, prefix_bits = 0, u_first = 0, u_second = 0;
  uint8_t suffix_bits_first = 0, suffix_mask_first = 0, suffix_mask_second = 0;
};

// How a pair's u are coded: which quads have u_off, and for two in the initial row, what the
// pair's MEL event says (1: both u above 2, each coded less 2).
enum UvlcMode : unsigned { kNoU = 0, kFirstU = 1, kSecondU = 2, kBothU = 3, kInitialBothAbove2 = 4, kInitialBoth = 5 };

struct Tables {
  uint32_t cxt[2][8 * 128];  // [initial row][context * 128 + next 7 bits]
  UvlcPrefixes uvlc[6][64];  // [UvlcMode][next 6 bits]
};

// The U-VLC prefix at the head of `bits`: "1", "01", "001", "000" for 1, 2, 3, 5.
struct Prefix {
  int bits, value;
};
constexpr Prefix uvlc_prefix(unsigned bits) {
  return (bits & 1) ? Prefix{1, 1} : (bits & 2) ? Prefix{2, 2} : (bits & 4) ? Prefix{3, 3} : Prefix{3, 5};
}
constexpr int uvlc_suffix_bits(int prefix) { return prefix == 3 ? 1 : prefix == 5 ? 5 : 0; }

// The prefixes' bits, each u before its suffix and each suffix's length.
struct UvlcFields {
  int prefix_bits = 0, u_first = 0, u_second = 0, suffix_first = 0, suffix_second = 0;
};

UvlcFields uvlc_fields(unsigned mode, unsigned bits) {
  const Prefix a = uvlc_prefix(bits);
  switch (mode) {
    case kFirstU: return {a.bits, a.value, 0, uvlc_suffix_bits(a.value), 0};
    case kSecondU: return {a.bits, 0, a.value, 0, uvlc_suffix_bits(a.value)};
    case kBothU:
    case kInitialBothAbove2: {
      const Prefix b = uvlc_prefix(bits >> a.bits);
      const int base = mode == kInitialBothAbove2 ? 2 : 0;
      return {a.bits + b.bits, base + a.value, base + b.value, uvlc_suffix_bits(a.value), uvlc_suffix_bits(b.value)};
    }
    case kInitialBoth: {
      // The first u above 2: the second (1 or 2) is one bit after the first's prefix.
      if (a.value > 2) return {a.bits + 1, a.value, 1 + static_cast<int>((bits >> a.bits) & 1), uvlc_suffix_bits(a.value), 0};
      // Otherwise the first is its prefix alone, and the second is coded in full.
      const Prefix b = uvlc_prefix(bits >> a.bits);
      return {a.bits + b.bits, a.value, b.value, 0, uvlc_suffix_bits(b.value)};
    }
    default: return {};  // kNoU: no bits, both u 0
  }
}

UvlcPrefixes uvlc_entry(unsigned mode, unsigned bits) {
  const UvlcFields f = uvlc_fields(mode, bits);
  auto u8 = [](int v) { return static_cast<uint8_t>(v); };
  return {u8(f.prefix_bits + f.suffix_first + f.suffix_second), u8(f.prefix_bits), u8(f.u_first), u8(f.u_second),
          u8(f.suffix_first), u8((1 << f.suffix_first) - 1), u8((1 << f.suffix_second) - 1)};
}

const Tables& tables() {
  static const Tables t = [] {
    Tables n{};
    // The context bits a quad gives the quad to its right: in the initial row three; in the
    // others bit 1 (the row above gives bits 0 and 2, see set_above_contexts()).
    auto right_context = [](bool initial, unsigned rho) {
      return static_cast<unsigned>(initial ? initial_row_context(rho) : other_row_context(0, 0, 0, rho));
    };
    for (int initial = 0; initial < 2; ++initial) {
      const CxtVlcEntry* entries = cxt_vlc_table(initial != 0);
      for (int i = 0; i < 8 * 128; ++i)
        n.cxt[initial][i] = entries[i].length ? packed::pack(entries[i], right_context(initial != 0, entries[i].rho)) : 0;
    }
    for (unsigned mode = 0; mode < 6; ++mode)
      for (unsigned bits = 0; bits < 64; ++bits) n.uvlc[mode][bits] = uvlc_entry(mode, bits);
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
    const uint32_t* table = t.cxt[initial ? 1 : 0];
    uint16_t* codeword = quads_.codeword();
    uint8_t* u = quads_.u;
    // Before row 1 set_above_contexts() has not run: all 0, as the initial row's contexts want.
    const uint8_t* above = quads_.above_context;
    unsigned from_left = 0;  // the context bits from the quad to the left
    bool unknown = false;    // a codeword that is none of the table's
    // One quad's codeword; a quad in the zero context is insignificant unless MEL says not.
    auto decode_quad = [&](int q) -> uint32_t {
      const unsigned context = above[q] | from_left;
      uint32_t entry = 0;
      if (context != 0 || mel.event()) {
        entry = table[context << 7 | static_cast<unsigned>(vlc.bits() & 127)];
        unknown |= entry == 0;
        vlc.skip(packed::length(entry));
      }
      from_left = packed::right_context(entry);
      return entry;
    };
    for (int q = 0; q < qw; q += 2) {
      // Two codewords (7 bits each at most) and the pair's U-VLC prefixes (6) and suffixes
      // (5 each); take() refills for an extension.
      vlc.need(30);
      const uint32_t first = decode_quad(q);
      const uint32_t second = q + 1 < qw ? decode_quad(q + 1) : 0;
      codeword[q] = static_cast<uint16_t>(first);
      codeword[q + 1] = static_cast<uint16_t>(second);  // [qw]: the empty quad past the row
      unsigned mode = ((first & packed::kUOff) ? kFirstU : 0u) | ((second & packed::kUOff) ? kSecondU : 0u);
      if (initial && mode == kBothU) mode = mel.event() ? kInitialBothAbove2 : kInitialBoth;
      const uint64_t bits = vlc.bits();
      const UvlcPrefixes& p = t.uvlc[mode][bits & 63];  // kNoU: no bits, both u 0
      vlc.skip(p.bits);
      const unsigned suffixes = static_cast<unsigned>(bits >> p.prefix_bits);
      const unsigned suffix_first = suffixes & p.suffix_mask_first;
      const unsigned suffix_second = (suffixes >> p.suffix_bits_first) & p.suffix_mask_second;
      unsigned u_first = p.u_first + suffix_first, u_second = p.u_second + suffix_second;
      // A 5-bit suffix of 28 or more has a 4-bit extension, worth 4 each (the shorter
      // suffixes are at most 1).
      if (suffix_first >= 28 || suffix_second >= 28) [[unlikely]] {
        if (suffix_first >= 28) u_first += 4 * vlc.take(4);
        if (suffix_second >= 28) u_second += 4 * vlc.take(4);
      }
      u[q] = static_cast<uint8_t>(u_first);
      u[q + 1] = static_cast<uint8_t>(u_second);
    }
    if (unknown) inconsistent();
  }

  // Sub-pass 2: the MagSgn bits of the quad row. Each significant sample sends U - e_k bits,
  // its sign first, and the EMB bit e_1 completes them above: v. First each sample's v (with
  // kCoded) into a sample row, a quad's fields cut from one word; then the rows' coefficients
  // at once (write_coefficients).
  void decode_magsgn_row(ForwardWordReader& magsgn, int r, int qw) {
    const int plane = set_.plane;
    const uint16_t* codeword = quads_.codeword();
    const uint8_t* u = quads_.u;
    const uint8_t* e_above = exponents_above_->at();
    uint8_t* e_row = exponents_row_->at();
    uint32_t* const coded_top = coded_[0];
    uint32_t* const coded_bottom = coded_[1];
    // Samples past the block's edge (odd sizes) are never coded: a stream that says otherwise
    // has them skipped.
    const bool bottom_cut = 2 * r + 1 >= h_;
    const unsigned row_mask = bottom_cut ? 0x5u : 0xFu;
    for (int q = 0; q < qw; ++q) {
      const int x = 2 * q;
      const unsigned entry = codeword[q];
      const unsigned rho = entry & packed::kRho;
      if (rho == 0) {
        coded_top[x] = coded_bottom[x] = coded_top[x + 1] = coded_bottom[x + 1] = 0;
        e_row[x] = e_row[x + 1] = 0;
        continue;
      }
      // The exponent bound U = u + kappa; kappa, for a quad with more than one significant
      // sample, from the largest exponent of the four samples above it (all 0 in row 0).
      const int e_max = std::max(std::max(e_above[x - 1], e_above[x]), std::max(e_above[x + 1], e_above[x + 2]));
      const int kappa = (rho & (rho - 1)) != 0 ? std::max(1, e_max - 1) : 1;
      const unsigned big_u = u[q] + static_cast<unsigned>(kappa);
      // A magnitude below 2^30 (kMaxDecodedBitplanes) has an exponent of at most 31 - plane.
      if (static_cast<int>(big_u) + plane > kMaxDecodedBitplanes + 1) inconsistent();
      const unsigned todo = rho & row_mask & (x + 1 < w_ ? 0xFu : 0x3u);
      const unsigned e_k = entry >> packed::kEkShift & 0xF, e_1 = entry >> packed::kE1Shift & todo & 0xF;
      // A byte per sample, sample j in byte j: its bit count (0 if not coded), the bits
      // before it, and all of them in byte 3 of `sums` (4 x 31 at most: no carries).
      const uint32_t bits = (big_u * kEachByte - spread_bits(e_k)) & (spread_bits(todo) * 0xFF);
      const uint32_t sums = bits * kEachByte;
      const uint32_t before = sums << 8;
      const int total = static_cast<int>(sums >> 24);
      uint32_t v[4];
      if (total <= kRefilled) [[likely]] {
        magsgn.need(total);
        const uint64_t word = magsgn.bits();
        for (int j = 0; j < 4; ++j) v[j] = field(word, (before >> 8 * j) & 0xFF, (bits >> 8 * j) & 0xFF);
        magsgn.skip(total);
      } else {
        for (int j = 0; j < 4; ++j) v[j] = magsgn.take(static_cast<int>((bits >> 8 * j) & 0xFF));
      }
      for (int j = 0; j < 4; ++j) v[j] |= ((e_1 >> j) & 1) << ((bits >> 8 * j) & 0xFF);
      // The exponent of a bottom sample, bit_length(2 (mu - 1) + 1), for the next row's kappa.
      e_row[x] = static_cast<uint8_t>(bit_length(v[1] | 1) & (0u - ((todo >> 1) & 1)));
      e_row[x + 1] = static_cast<uint8_t>(bit_length(v[3] | 1) & (0u - ((todo >> 3) & 1)));
      coded_top[x] = v[0] | (todo & 1) << kCodedShift;
      coded_bottom[x] = v[1] | (todo >> 1 & 1) << kCodedShift;
      coded_top[x + 1] = v[2] | (todo >> 2 & 1) << kCodedShift;
      coded_bottom[x + 1] = v[3] | (todo >> 3 & 1) << kCodedShift;
    }
    int32_t* const top = out_ + 2 * r * stride_;
    uint32_t overflow = write_coefficients(coded_top, top, w_, plane);
    if (!bottom_cut) overflow |= write_coefficients(coded_bottom, top + stride_, w_, plane);
    if (overflow) inconsistent();
  }

  // A sample row's v (see decode_magsgn_row) as the EBCOT decoder's coefficients: sign and
  // (2 mu + 1) 2^p with mu = (v >> 1) + 1 at the cleanup's plane p, 0 where not coded. Returns
  // nonzero where a magnitude reaches 2^30 (kMaxDecodedBitplanes): only at the exponent bound
  // U = 31 - p can mu, below 2^U / 2 + 1, still be too large.
  static uint32_t write_coefficients(const uint32_t* coded, int32_t* out, int n, int plane) {
    const int mu_limit = kMaxDecodedBitplanes - plane;
    uint32_t overflow = 0;
    for (int x = 0; x < n; ++x) {
      const uint32_t c = coded[x];
      const uint32_t present = 0u - (c >> kCodedShift);
      const uint32_t v = c & ~(1u << kCodedShift);
      const uint32_t magnitude = ((v & ~1u) + 3) << plane;  // below 2^31 but where `overflow`
      const uint32_t negative = 0u - (v & 1);
      out[x] = static_cast<int32_t>(((magnitude ^ negative) - negative) & present);
      overflow |= (((v >> 1) + 1) >> mu_limit) & present;
    }
    return overflow;
  }

  // 0x01 in byte j where bit j of `mask` (4 bits) is set.
  static uint32_t spread_bits(unsigned mask) {
    return (mask & 1) | (mask & 2) << 7 | (mask & 4) << 14 | (mask & 8) << 21;
  }
  // `length` bits of `word` from bit `offset` (offset + length <= 64, length <= 31).
  static uint32_t field(uint64_t word, uint32_t offset, uint32_t length) {
    return static_cast<uint32_t>(word >> offset) & ((1u << length) - 1);
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
  uint32_t coded_[2][kMaxWidth + 2];  // a quad row's v, top and bottom, by column
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
