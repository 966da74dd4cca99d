// SPDX-License-Identifier: BSD-2-Clause
// The HT cleanup pass of block_decoder.cpp, a quad row (two sample rows) at a time in two
// sub-passes:
//   1. VLC (decode_vlc_row): each quad's CxtVLC codeword (rho, u_off, the EMB patterns) and
//      its exponent bound U (u from the U-VLC, plus kappa from the row above), with the MEL
//      events of the zero context, into a small array;
//   2. MagSgn: each significant sample's bits, written into the output as the coefficient the
//      EBCOT decoder would hold, and the bottom row's exponents, which the next row's exponent
//      bounds (kappa) read.
// The second comes in three builds with the same results: PortableMagSgnRow here, for any
// CPU, Avx2MagSgnRow (block_decoder_avx2.cpp), which does a quad pair's eight samples in one
// vector, each with its own MagSgn reader (Rows::MagSgnReader), and Avx512MagSgnRow, two pairs
// in one vector.
// decode_cleanup() is a template over a build's row functions (PortableRows, Avx2Rows,
// Avx512Rows), so that the SIMD file compiles them, readers included, for its instruction
// sets; block_decoder.cpp chooses at run time.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ht/avx2_build.hpp"
#include "codec/tier1/ht/mel_runs.hpp"
#include "codec/tier1/ht/quad_rules.hpp"
#include "codec/tier1/ht/word_readers.hpp"

namespace j2k::codec::ht::cleanup {

// Thrown inside the decoder when the data contradicts itself; the block decodes to zeros.
struct Inconsistent {};
[[noreturn, gnu::cold, gnu::noinline]] inline void inconsistent() { throw Inconsistent{}; }

// The widest block (A.6.1: 1024 x 4) and its quads.
constexpr int kMaxWidth = 1024;
constexpr int kMaxQuads = kMaxWidth / 2;

// A CxtVLC codeword decoded (vlc_tables.hpp's CxtVlcEntry) in 32 bits, 0 for an insignificant
// quad; the row arrays keep the low 16.
namespace packed {
constexpr unsigned kRho = 0x000F;    // bits 0-3: significant samples
constexpr unsigned kUOff = 0x0010;   // bit 4: u is coded
constexpr int kLengthShift = 5;      // bits 5-7: the codeword's length
constexpr int kEkShift = 8;          // bits 8-11: e_k
constexpr int kE1Shift = 12;         // bits 12-15: e_1
// Bits 16-18: the context bits the quad gives the quad to its right (quad_rules.hpp), so
// that the next lookup waits on one load, not two.
constexpr int kRightContextShift = 16;
// Bit 20: no codeword starts with these bits (and the rest 0: none taken, insignificant).
constexpr uint32_t kUnknown = 1u << 20;
J2K_HD constexpr int length(uint32_t entry) { return static_cast<int>((entry >> kLengthShift) & 7); }
J2K_HD constexpr unsigned right_context(uint32_t entry) { return (entry >> kRightContextShift) & 7; }
}  // namespace packed

// The U-VLC bits of a quad pair but the extensions, decoded from the next 6 bits: the
// prefixes (and in the initial row the bit that stands for the second prefix), then each
// quad's suffix (0, 1 or 5 bits). `bits`: all of them; `prefix_bits`: the prefixes'; each
// quad's u before its suffix and the length and mask of its suffix, which follow the
// prefixes in turn.
struct UvlcPrefixes {
  uint8_t bits = 0, prefix_bits = 0, u_first = 0, u_second = 0;
  uint8_t suffix_bits_first = 0, suffix_mask_first = 0, suffix_mask_second = 0;
  uint8_t unused = 0;  // 8 bytes in all: the table's index is a shift
};

// How a pair's u are coded: which quads have u_off, and for two in the initial row, what the
// pair's MEL event says (1: both u above 2, each coded less 2).
enum UvlcMode : unsigned { kNoU = 0, kFirstU = 1, kSecondU = 2, kBothU = 3, kInitialBothAbove2 = 4, kInitialBoth = 5 };

struct Tables {
  uint32_t cxt[2][8 * 128];  // [initial row][context * 128 + next 7 bits]
  UvlcPrefixes uvlc[6][64];  // [UvlcMode][next 6 bits]
};
// Built once (block_decoder.cpp).
const Tables& tables();

// Tables::cxt again, laid out for the CPU's VLC sub-pass (decode_vlc_row), whose time is the
// chain from one quad's lookup to the next's: the length where a shift reads it without a
// mask (bits 3-5 are 0, and a 64-bit shift takes its count's low 6 bits), the context given to
// the quad to the right already in place in the next index, and u_off where it is the offset
// of the U-VLC table's rows (below), one operation each. The GPU keeps Tables::cxt.
namespace linked {
constexpr uint32_t kLength = 0x7;          // bits 0-2: the codeword's length (bits 3-5: 0)
constexpr uint32_t kUnknown = 0x40;        // bit 6: no codeword starts with these bits
constexpr uint32_t kRightContext = 0x380;  // bits 7-9: the right context, shifted by 7
constexpr uint32_t kUOff = 0x400;          // bit 10: u is coded
constexpr int kPackedShift = 16;           // bits 16-31: the packed entry's low 16 bits
}  // namespace linked
// Tables::uvlc's rows by mode: kFirstU's lies kUOff / 2 bytes after kNoU's, kSecondU's kUOff,
// kBothU's both, so that a pair's row is found from its two entries' u_off bits by an AND and
// two adds (decode_vlc_row_of_kind).
static_assert(sizeof(UvlcPrefixes) * 64 == linked::kUOff / 2 && kFirstU == 1 && kSecondU == 2 && kBothU == 3,
              "the U-VLC table's rows are found from linked::kUOff");
struct LinkedCxt {
  uint32_t entry[2][8 * 128];  // [initial row][context * 128 + next 7 bits]
};
const LinkedCxt& linked_cxt();  // built once (block_decoder.cpp)

// What a quad row's VLC sub-pass leaves for its MagSgn sub-pass and the next row (Scratch
// sets what row 0 reads).
struct QuadRow {
  uint16_t codeword_storage[kMaxQuads + 2];  // packed entries, [-1] and [qw] empty quads
  uint8_t u[kMaxQuads + 2];                  // the U-VLC's u (any for rho 0)
  uint8_t big_u[kMaxQuads + 2];              // exponent bounds U = u + kappa (any for rho 0)
  uint8_t above_context[kMaxQuads + 1];      // each quad's context bits from the row above
  uint16_t* codeword() { return codeword_storage + 1; }
};

// The exponents of a sample row's significant samples, by column; [-1] and those past the
// block's last quad stay 0.
struct ExponentRow {
  uint8_t storage[kMaxWidth + 4];
  uint8_t* at() { return storage + 1; }
};

// The exponent bound's kappa of a quad with significance `rho` (more than one significant
// sample: from the largest exponent of the four samples above it, which are all 0 in row 0;
// else 1). `e_above`: the row above's bottom exponents (ExponentRow::at()).
// Host and device code (device_block_decoder.hpp's cleanup pass reads it too).
J2K_HD inline unsigned kappa(unsigned rho, const uint8_t* e_above, int q) {
  const uint8_t* e = e_above + 2 * q - 1;
  const int e_max = max_of(max_of(e[0], e[1]), max_of(e[2], e[3]));
  return static_cast<unsigned>((rho & (rho - 1)) != 0 ? max_of(1, e_max - 1) : 1);
}

// One quad's LinkedCxt entry from `table` (its row kind's) at `context` (shifted by 7); a quad
// in the zero context is insignificant (0) unless MEL says not. The skip shifts by the entry
// itself (its low 6 bits are the length).
inline uint32_t decode_quad(const uint32_t* table, unsigned context, BackwardWordReader& vlc, MelEvents& mel) {
  if (context == 0 && !mel.event()) return 0;
  const uint32_t entry = table[context | static_cast<unsigned>(vlc.bits() & 127)];
  vlc.skip_by_low_bits(entry, linked::kLength);
  return entry;
}

// Sub-pass 1: the quad row's codewords and u, in the order the standard interleaves them:
// per quad pair, the first quad's codeword, the second's, then their U-VLC (prefixes,
// suffixes, extensions); each quad's exponent bound U = u + kappa follows in a pass of its
// own (exponent_bounds), out of this loop's chain of dependent lookups. kInitial: the block's
// first row, whose quads see only the quad to their left and have their own table and U-VLC
// rule. The readers are worked on as local copies: the stores to the row would otherwise make
// the compiler keep their state in memory.
template <bool kInitial>
void decode_vlc_row_of_kind(const Tables& t, const LinkedCxt& linked, BackwardWordReader& vlc_stream,
                            MelEvents& mel_stream, int qw, QuadRow& quads) {
  BackwardWordReader vlc = vlc_stream;
  MelEvents mel = mel_stream;
  const uint32_t* table = linked.entry[kInitial ? 1 : 0];
  uint16_t* codeword = quads.codeword();
  uint8_t* u = quads.u;
  const uint8_t* above = quads.above_context;  // all 0 for the initial row (Scratch::reset)
  uint32_t seen = 0;  // every entry ORed: linked::kUnknown where a codeword is none of the table's
  uint32_t left = 0;  // the LinkedCxt entry of the quad to the left
  const char* uvlc_rows = reinterpret_cast<const char*>(t.uvlc[0]);
  for (int q = 0; q < qw; q += 2) {
    // Two codewords (7 bits each at most) and the pair's U-VLC prefixes (6) and suffixes
    // (5 each); take() refills for an extension.
    vlc.need(30);
    const uint32_t first_linked = decode_quad(table, above[q] << 7 | (left & linked::kRightContext), vlc, mel);
    const uint32_t second_linked =
        q + 1 < qw ? decode_quad(table, above[q + 1] << 7 | (first_linked & linked::kRightContext), vlc, mel) : 0;
    left = second_linked;
    seen |= first_linked | second_linked;
    const uint32_t first = first_linked >> linked::kPackedShift, second = second_linked >> linked::kPackedShift;
    codeword[q] = static_cast<uint16_t>(first);
    codeword[q + 1] = static_cast<uint16_t>(second);  // [qw]: the empty quad past the row
    const uint64_t bits = vlc.bits();
    const UvlcPrefixes* row;  // kNoU: no bits, both u 0
    if (kInitial) {
      unsigned mode = ((first & packed::kUOff) ? kFirstU : 0u) | ((second & packed::kUOff) ? kSecondU : 0u);
      if (mode == kBothU) mode = mel.event() ? kInitialBothAbove2 : kInitialBoth;
      row = t.uvlc[mode];
    } else {
      row = reinterpret_cast<const UvlcPrefixes*>(uvlc_rows + ((first_linked & linked::kUOff) >> 1) + (second_linked & linked::kUOff));
    }
    const UvlcPrefixes& p = row[bits & 63];
    vlc.skip(p.bits);
    const unsigned suffixes = static_cast<unsigned>(bits >> p.prefix_bits);
    const unsigned suffix_first = suffixes & p.suffix_mask_first;
    const unsigned suffix_second = (suffixes >> p.suffix_bits_first) & p.suffix_mask_second;
    unsigned u_first = p.u_first + suffix_first, u_second = p.u_second + suffix_second;
    // A 5-bit suffix of 28 or more has a 4-bit extension, worth 4 each (the shorter suffixes
    // are at most 1).
    if (suffix_first >= 28 || suffix_second >= 28) {
      if (suffix_first >= 28) u_first += 4 * vlc.take(4);
      if (suffix_second >= 28) u_second += 4 * vlc.take(4);
    }
    // u is at most 5 + 31 + 4 x 15 + 2 (and kappa at most 30: U fits in a byte too).
    u[q] = static_cast<uint8_t>(u_first);
    u[q + 1] = static_cast<uint8_t>(u_second);  // [qw]: the empty quad's, never read
  }
  if (seen & linked::kUnknown) inconsistent();
  vlc_stream = vlc;
  mel_stream = mel;
}

inline void decode_vlc_row(const Tables& t, const LinkedCxt& linked, BackwardWordReader& vlc, MelEvents& mel,
                           bool initial, int qw, QuadRow& quads) {
  if (initial)
    decode_vlc_row_of_kind<true>(t, linked, vlc, mel, qw, quads);
  else
    decode_vlc_row_of_kind<false>(t, linked, vlc, mel, qw, quads);
}

// Each quad's exponent bound U = u + kappa (any where rho is 0), from the VLC sub-pass's u
// and rho and the row above's bottom exponents (ExponentRow::at()); in an odd row also the
// empty quad's past it, which MagSgn's last pair reads.
inline void exponent_bounds(int qw, const uint8_t* e_above, QuadRow& quads) {
  const uint16_t* codeword = quads.codeword();
  for (int q = 0; q < qw + (qw & 1); ++q)
    quads.big_u[q] = static_cast<uint8_t>(quads.u[q] + kappa(codeword[q] & packed::kRho, e_above, q));
}

// The context bits 0 (NW, N) and 2 (NE, NF) of each quad of the next row, from this row's
// bottom samples (its codewords' rho, whether or not past the block's edge).
inline void set_above_contexts(int qw, QuadRow& quads) {
  const uint16_t* codeword = quads.codeword();  // [-1] and [qw] are empty quads
  for (int q = 0; q < qw; ++q) {
    const unsigned left = codeword[q - 1], own = codeword[q], right = codeword[q + 1];
    quads.above_context[q] = static_cast<uint8_t>(other_row_context(left, own, right, 0));
  }
}

// How decode_cleanup leaves each coefficient: in block_decoder.hpp's form (no `dequantise`),
// or dequantised by `q` (block_coder.hpp: the 5/3's int32, the 9/7's float bits) straight into
// the band, without a copy of the block in between.
struct OutputForm {
  bool dequantise = false;
  Dequantisation q;
};

// What sub-pass 2 reads and writes for a quad row. Each significant sample sends U - e_k
// MagSgn bits, its sign first, and the EMB bit e_1 completes them above: v. Its magnitude at
// the cleanup's plane p is mu = (v >> 1) + 1, its coefficient sign and (2 mu + 1) 2^p.
struct MagSgnRow {
  const uint16_t* codeword;  // the VLC sub-pass's, and its exponent bounds
  const uint8_t* big_u;
  uint8_t* e_row;            // this row's bottom exponents (ExponentRow::at())
  int32_t* top;              // the output's two rows; `bottom` a scratch row where the
  int32_t* bottom;           // block ends after `top`
  int width, quads, plane;
  unsigned row_mask;         // the samples of a quad inside the block's rows (0x5 or 0xF)
  uint32_t* scratch;         // 2 x (kMaxWidth + 2) values for the decoder's own use
  OutputForm form;           // what `top` and `bottom` receive
  // Whether a significant quad may have the largest bound U = largest_bound(plane), the only
  // one at which a magnitude can reach 2^30 (kMaxDecodedBitplanes): where not, a build may
  // leave out that check.
  bool at_largest_bound;
};

// The largest exponent bound U a significant quad may have at `plane`: a magnitude below 2^30
// (kMaxDecodedBitplanes) has an exponent of at most 31 - plane; a larger bound is
// inconsistent.
constexpr int largest_bound(int plane) { return kMaxDecodedBitplanes + 1 - plane; }

// The exponent bound U of the row's quad q, checked.
inline unsigned exponent_bound(const MagSgnRow& row, int q) {
  const unsigned big_u = row.big_u[q];
  if (static_cast<int>(big_u) > largest_bound(row.plane)) inconsistent();
  return big_u;
}

// Sub-pass 2 for any CPU: each sample's v (with kCoded) into two sample rows, a quad's fields
// cut from one word; then each row's coefficients in one loop that the compiler vectorises.
class PortableMagSgnRow {
 public:
  // The reader and the row are worked on as local copies (see decode_vlc_row).
  static void decode(ForwardWordReader& magsgn_stream, const MagSgnRow& row_in) {
    ForwardWordReader magsgn = magsgn_stream;
    const MagSgnRow row = row_in;
    uint32_t* const coded_top = row.scratch;
    uint32_t* const coded_bottom = row.scratch + kMaxWidth + 2;
    uint8_t* e_row = row.e_row;
    for (int q = 0; q < row.quads; ++q) {
      const int x = 2 * q;
      const unsigned entry = row.codeword[q];
      const unsigned rho = entry & packed::kRho;
      if (rho == 0) {
        coded_top[x] = coded_bottom[x] = coded_top[x + 1] = coded_bottom[x + 1] = 0;
        e_row[x] = e_row[x + 1] = 0;
        continue;
      }
      const unsigned big_u = exponent_bound(row, q);
      // Samples past the block's edge (odd sizes) are never coded: a stream that says
      // otherwise has them skipped.
      const unsigned todo = rho & row.row_mask & (x + 1 < row.width ? 0xFu : 0x3u);
      const unsigned e_k = entry >> packed::kEkShift & 0xF, e_1 = entry >> packed::kE1Shift & todo & 0xF;
      // A byte per sample, sample j in byte j: its bit count (0 if not coded), the bits
      // before it, and all of them in byte 3 of `sums` (4 x 31 at most: no carries).
      const uint32_t bits = (big_u * kEachByte - kSpread[e_k]) & (kSpread[todo] * 0xFF);
      const uint32_t sums = bits * kEachByte;
      const uint32_t before = sums << 8;
      const int total = static_cast<int>(sums >> 24);
      uint32_t v[4];
      if (total <= kRefilled) {
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
    const uint32_t overflow = write_row(coded_top, row.top, row) | write_row(coded_bottom, row.bottom, row);
    if (overflow) inconsistent();
    magsgn_stream = magsgn;
  }

 private:
  // The sample rows' v: below bit 31, and bit 31 set where the sample is coded.
  static constexpr int kCodedShift = 31;
  static constexpr uint32_t kEachByte = 0x01010101u;
  // 0x01 in byte j where bit j of the index is set.
  static constexpr uint32_t kSpread[16] = {0x00000000, 0x00000001, 0x00000100, 0x00000101, 0x00010000, 0x00010001,
                                           0x00010100, 0x00010101, 0x01000000, 0x01000001, 0x01000100, 0x01000101,
                                           0x01010000, 0x01010001, 0x01010100, 0x01010101};

  // `length` bits of `word` from bit `offset` (offset + length <= 64, length <= 31).
  static uint32_t field(uint64_t word, uint32_t offset, uint32_t length) {
    return static_cast<uint32_t>(word >> offset) & ((1u << length) - 1);
  }

  // A sample row's v as coefficients, 0 where not coded, each handed to store(x, coefficient).
  // Returns nonzero where a magnitude reaches 2^30 (kMaxDecodedBitplanes): only at the
  // exponent bound U = 31 - p can mu, at most 2^(U - 1), still be too large.
  template <class Store>
  static uint32_t write_coefficients(const uint32_t* coded, int n, int plane, Store store) {
    const int mu_limit = kMaxDecodedBitplanes - plane;
    uint32_t overflow = 0;
    for (int x = 0; x < n; ++x) {
      const uint32_t c = coded[x];
      const uint32_t present = 0u - (c >> kCodedShift);
      const uint32_t v = c & ~(1u << kCodedShift);
      const uint32_t magnitude = ((v & ~1u) + 3) << plane;  // below 2^31 but where `overflow`
      const uint32_t negative = 0u - (v & 1);
      store(x, static_cast<int32_t>(((magnitude ^ negative) - negative) & present));
      overflow |= (((v >> 1) + 1) >> mu_limit) & present;
    }
    return overflow;
  }

  // The row's coefficients into `out` in the row's form (one loop per form, each vectorised).
  static uint32_t write_row(const uint32_t* coded, int32_t* out, const MagSgnRow& row) {
    if (!row.form.dequantise)
      return write_coefficients(coded, row.width, row.plane, [out](int x, int32_t c) { out[x] = c; });
    if (row.form.q.reversible)
      return write_coefficients(coded, row.width, row.plane,
                                [out](int x, int32_t c) { out[x] = Dequantisation::reversible_value(c); });
    const Dequantisation q = row.form.q;
    return write_coefficients(coded, row.width, row.plane, [out, q](int x, int32_t c) {
      const float f = q.irreversible_value(c);
      std::memcpy(out + x, &f, sizeof f);  // a float plane's bits
    });
  }
};

// The MagSgn stream's bytes, and the most bits a block of its size reads from them (4 a
// sample of 31 bits at most): what a build's MagSgn reader is made from.
struct MagSgnSegment {
  const uint8_t* data;
  size_t size, max_bits;
};

// The portable build's row functions, for decode_cleanup.
struct PortableRows {
  struct MagSgnReader : ForwardWordReader {
    explicit MagSgnReader(MagSgnSegment s) : ForwardWordReader(s.data, s.size, true) {}
  };
  static void vlc(const Tables& t, const LinkedCxt& linked, BackwardWordReader& vlc, MelEvents& mel, bool initial,
                  int qw, QuadRow& quads) {
    decode_vlc_row(t, linked, vlc, mel, initial, qw, quads);
  }
  // (MagSgn checks each significant quad's bound, exponent_bound(), and every magnitude.)
  static bool bounds(int qw, const uint8_t* e_above, QuadRow& quads, int /*plane*/) {
    exponent_bounds(qw, e_above, quads);
    return true;
  }
  static void magsgn(ForwardWordReader& magsgn, const MagSgnRow& row) { PortableMagSgnRow::decode(magsgn, row); }
};

// The cleanup segment's streams: MagSgn forward from its start, MEL forward and VLC backward
// from the split that the segment's last 12 bits (Scup) give.
struct CleanupSegment {
  const uint8_t* data;
  size_t size;
};

// decode_cleanup's rows (about 14 KiB, on its stack: a thread_local would cost an address
// computation at each use in position-independent code).
struct Scratch {
  QuadRow quads;
  ExponentRow exponents[2];
  int32_t cut_row[kMaxWidth + 2];
  uint32_t magsgn_rows[2 * (kMaxWidth + 2)];
  // What row 0 of a block `width` wide needs: no contexts nor exponents from above, and an
  // empty quad past the row's end.
  void reset(int width) {
    const int qw = (width + 1) / 2;
    std::fill_n(quads.above_context, qw, 0);
    quads.codeword()[-1] = quads.codeword()[qw] = 0;
    for (ExponentRow& e : exponents) std::fill_n(e.storage, width + 3, 0);
  }
};

// Decodes the cleanup pass at `plane` into every sample of the width x height block at out, in
// `form` (a float plane's bits where it dequantises the 9/7's). Throws Inconsistent.
template <class Rows>
void decode_cleanup(CleanupSegment segment, int32_t* out, ptrdiff_t stride, int width, int height, int plane,
                    const OutputForm& form) {
  const uint8_t* d = segment.data;
  const size_t lcup = segment.size;
  if (lcup < 2) inconsistent();
  // The last 12 bits of the segment: the bytes of MEL and VLC (Scup), at most 4079.
  const size_t scup = (static_cast<size_t>(d[lcup - 1]) << 4) | (d[lcup - 2] & 0x0F);
  if (scup < 2 || scup > lcup || scup > 4079) inconsistent();
  const size_t pcup = lcup - scup;
  MelRunQueue mel_runs(d + pcup, scup - 1);
  MelEvents mel(mel_runs);
  BackwardWordReader vlc(d + pcup, scup - 1, true);
  const int qw = (width + 1) / 2, qh = (height + 1) / 2;
  typename Rows::MagSgnReader magsgn(MagSgnSegment{d, pcup, static_cast<size_t>(4 * 31) * static_cast<size_t>(qw * qh)});

  Scratch s;
  s.reset(width);
  const Tables& t = tables();
  const LinkedCxt& linked = linked_cxt();
  ExponentRow* e_above = &s.exponents[0];
  ExponentRow* e_row = &s.exponents[1];
  for (int r = 0; r < qh; ++r) {
    Rows::vlc(t, linked, vlc, mel, r == 0, qw, s.quads);
    const bool at_largest_bound = Rows::bounds(qw, e_above->at(), s.quads, plane);
    int32_t* const top = out + 2 * r * stride;
    const bool bottom_cut = 2 * r + 1 >= height;
    const MagSgnRow row{s.quads.codeword(), s.quads.big_u, e_row->at(), top, bottom_cut ? s.cut_row : top + stride,
                        width, qw, plane, bottom_cut ? 0x5u : 0xFu, s.magsgn_rows, form, at_largest_bound};
    Rows::magsgn(magsgn, row);
    std::swap(e_above, e_row);
    set_above_contexts(qw, s.quads);
  }
}

#if J2K_HT_HAVE_AVX2
// decode_cleanup<Avx2MagSgnRow>, compiled for AVX2 and BMI2 (block_decoder_avx2.cpp); only for
// a CPU that has both.
void avx2_cleanup(CleanupSegment segment, int32_t* out, ptrdiff_t stride, int width, int height, int plane,
                  const OutputForm& form);
// The same with the MagSgn sub-pass four quads at a time (AVX-512 F, BW, VL, DQ and CD); only for a
// CPU that has them (avx512_runs()).
void avx512_cleanup(CleanupSegment segment, int32_t* out, ptrdiff_t stride, int width, int height, int plane,
                    const OutputForm& form);
#endif

}  // namespace j2k::codec::ht::cleanup
