// SPDX-License-Identifier: BSD-2-Clause
// The coding passes of one code-block's Tier-1 decoding (ISO/IEC 15444-1 Annex D), what
// decode_block() runs on the CPU and the CUDA kernel runs on the GPU, one code-block a thread
// (cuda/block_decoder.cu): the same code, so the same coefficients bit for bit. `Tables` says
// where the constant tables are (kNextWords, Table D.1 by window, kSignTable): on the CPU the
// constants themselves (HostTables), on the GPU copies in device memory.
//
// The caller checks the block first (decode_block's checks): sizes within A.6.1's, at most
// kMaxDecodedBitplanes planes, segments within `size`; the passes trust them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "codec/tier1/ebcot/block_decoder.hpp"
#include "codec/tier1/ebcot/host_device.hpp"
#include "codec/tier1/ebcot/mq_decoder.hpp"
#include "codec/tier1/ebcot/raw_decoder.hpp"
#include "codec/tier1/ebcot/stripe_flags.hpp"

namespace j2k::codec::t1 {

struct HostTables : mq_detail::HostNextWords {
  static const uint8_t* zero_contexts(j2k_band_type band) { return kWindowZeroContexts.of(band); }
  static unsigned sign_entry(unsigned index) { return kSignTable.entry[index]; }
};

// How a pass reads its decisions: through the MQ decoder in a context, or raw (BYPASS). A
// pass copies its reader into a local and back, so that the decoder's registers stay in CPU
// registers: as members they would be reloaded after every store of a flag or coefficient.
template <class Tables>
struct MqBits {
  MqDecoderOf<Tables> mq;
  MqDecoderContext* cx;
  J2K_T1_HD J2K_T1_INLINE int decide(int context) { return mq.decode(cx[context]); }
  // A refinement or significance bit: close to a coin toss in the lower planes, where most
  // decisions are (decode_even(); the cleanup pass's, more skewed, gain nothing from it).
  J2K_T1_HD J2K_T1_INLINE int decide_even(int context) { return mq.decode_even(cx[context]); }
  // A sign (a kSignTable entry's context and flip): close to a coin toss, so without branches
  // on the outcome (8-bit blocks about 2% faster than with decode(): bench/tier1_ab.sh).
  J2K_T1_HD J2K_T1_INLINE int sign(unsigned entry) { return mq.decode_even(cx[entry & 31]) ^ static_cast<int>(entry >> 7); }
  // A context a pass keeps in a register while it runs (refinement_pass), and puts back.
  J2K_T1_HD J2K_T1_INLINE MqDecoderContext take(int context) const { return cx[context]; }
  J2K_T1_HD J2K_T1_INLINE void put_back(int context, MqDecoderContext held) { cx[context] = held; }
  J2K_T1_HD J2K_T1_INLINE int decide_even_in(MqDecoderContext& held) { return mq.decode_even(held); }
};
struct RawBits {
  RawDecoder raw;
  J2K_T1_HD J2K_T1_INLINE int decide(int) { return raw.bit(); }
  J2K_T1_HD J2K_T1_INLINE int decide_even(int) { return raw.bit(); }
  J2K_T1_HD J2K_T1_INLINE int sign(unsigned) { return raw.bit(); }
  J2K_T1_HD J2K_T1_INLINE MqDecoderContext take(int) const { return {}; }
  J2K_T1_HD J2K_T1_INLINE void put_back(int, MqDecoderContext) {}
  J2K_T1_HD J2K_T1_INLINE int decide_even_in(MqDecoderContext&) { return raw.bit(); }
};

// The block's geometry and where its flags and coefficients are.
struct Geometry {
  int w = 0, h = 0, stripes = 0;
  ptrdiff_t pitch = 0, stride = 0;  // of the words, of the coefficients
  uint32_t* words = nullptr;        // stripe -1's first word, before column -1's
  int32_t* out = nullptr;
  const uint8_t* zc = nullptr;      // Table D.1 for the band (kWindowZeroContexts)
  uint32_t last_row_window = kWindow;
};

template <class Tables>
class BlockPasses {
 public:
  // `words`: room for words_for(c) flag words.
  J2K_T1_HD BlockPasses(const BlockCode& c, uint32_t* words, int32_t* out, ptrdiff_t stride) : c_(c) {
    Geometry& g = geometry_;
    g.w = c.width;
    g.h = c.height;
    g.stripes = (c.height + 3) / 4;
    g.pitch = static_cast<ptrdiff_t>(c.width) + 2;
    g.stride = stride;
    g.out = out;
    g.zc = Tables::zero_contexts(c.band);
    g.last_row_window = (c.modes & kModeCausal) ? kWindowAbove : kWindow;
    // A border of one word all round (a stripe above and below, a column left and right), so
    // that the neighbours of an edge column need no checks.
    const size_t count = words_for(c);
    for (size_t i = 0; i < count; ++i) words[i] = 0;
    g.words = words;
    for (int y = 0; y < g.h; ++y)
      for (int x = 0; x < g.w; ++x) out[y * stride + x] = 0;
    reset_contexts(cx_);
  }

  // The flag words a block needs: a border of one word all round its stripe columns.
  J2K_T1_HD static size_t words_for(const BlockCode& c) {
    return static_cast<size_t>(c.width + 2) * static_cast<size_t>((c.height + 3) / 4 + 2);
  }

  J2K_T1_HD BlockDecodeReport run() { return fixed64() ? run_as<64>() : run_as<0>(); }

 private:
  // The block's passes, as far as its segments go, with its geometry as Shape<N>.
  template <int N>
  J2K_T1_HD BlockDecodeReport run_as() {
    BlockDecodeReport report;
    const int total = c_.bitplanes > 0 ? 3 * c_.bitplanes - 2 : 0;
    size_t offset = 0;
    int n = 0;
    for (size_t s = 0; s < c_.segments && n < total; ++s) {
      const uint8_t* bytes = c_.bytes + offset;
      const size_t size = c_.segment_bytes[s];
      offset += size;
      // With BYPASS a segment is raw when its first pass is a significance or refinement pass
      // of the fifth plane or below; a cleanup pass is MQ coded whatever the segment claims.
      const bool raw = (c_.modes & kModeBypass) && n >= 10 && kind(n) != PassKind::Cleanup;
      MqBits<Tables> mq{MqDecoderOf<Tables>(bytes, size), cx_};
      RawBits bits{raw ? RawDecoder(bytes, size) : RawDecoder()};
      for (int k = 0; k < c_.segment_passes[s] && n < total; ++k, ++n) {
        const int p = plane(n);
        switch (kind(n)) {
          case PassKind::Significance:
            if (raw) significance_pass<N>(p, bits);
            else significance_pass<N>(p, mq);
            break;
          case PassKind::Refinement:
            if (raw) refinement_pass<N>(p, bits);
            else refinement_pass<N>(p, mq);
            break;
          case PassKind::Cleanup:
            if (!cleanup_pass<N>(p, mq, (c_.modes & kModeSegmark) != 0)) report.segmark_error = true;
            break;
        }
        if ((c_.modes & kModeReset) && !raw) reset_contexts(cx_);
      }
    }
    report.passes = n;
    return report;
  }

  // Pass n of the block: the cleanup of the top plane, then significance, refinement and
  // cleanup of each plane below.
  J2K_T1_HD static PassKind kind(int n) {
    if (n == 0) return PassKind::Cleanup;
    const int k = (n - 1) % 3;
    return k == 0 ? PassKind::Significance : k == 1 ? PassKind::Refinement : PassKind::Cleanup;
  }
  J2K_T1_HD int plane(int n) const { return n == 0 ? c_.bitplanes - 1 : c_.bitplanes - 2 - (n - 1) / 3; }


  // The geometry as a pass reads it: a local copy, so that the compiler knows that no store
  // of a coefficient changes it (an int32 store may alias an int member) and keeps it in
  // registers. Shape<64> is a 64 x 64 block written at stride 64, the size almost every
  // stream uses: its sizes are constants, which frees the registers they would hold and
  // folds away the short stripe at the foot (OpenJPEG specialises its passes so too).
  template <int N>
  struct Shape : Geometry {
    J2K_T1_HD int width() const { return N ? N : w; }
    J2K_T1_HD int stripe_count() const { return N ? N / 4 : stripes; }
    J2K_T1_HD ptrdiff_t word_pitch() const { return N ? N + 2 : pitch; }
    J2K_T1_HD ptrdiff_t value_stride() const { return N ? N : stride; }
    J2K_T1_HD uint32_t* stripe_words(int s) const { return words + (s + 1) * word_pitch() + 1; }
    J2K_T1_HD int32_t* stripe_values(int s) const { return out + 4 * s * value_stride(); }
    J2K_T1_HD int stripe_rows(int s) const { return N ? 4 : (h - 4 * s < 4 ? h - 4 * s : 4); }
    // Row I's neighbourhood in the column word f; with VSC the last row does not see the
    // stripe below (D.7).
    template <int I>
    J2K_T1_HD uint32_t window(uint32_t f) const {
      return (f >> (3 * I)) & (I == 3 ? last_row_window : kWindow);
    }
  };
  J2K_T1_HD bool fixed64() const {  // Shape<64> applies
    return geometry_.w == 64 && geometry_.h == 64 && geometry_.stride == 64;
  }

  // Row I of column x (word f, a local the caller stores back) becomes significant in plane
  // p: its sign (Table D.3 from the four neighbours), its value (twice the plane's bit plus
  // half the interval below: `magnitude`, 3 * 2^p), and its significance in the words that
  // see it: its column's, the two beside, and for the first or last row the stripe's above
  // or below.
  template <int I, int N, class Bits>
  J2K_T1_HD J2K_T1_INLINE static void become_significant(const Shape<N>& g, Bits& b, uint32_t* col, int x, uint32_t& f, int32_t* value, int32_t magnitude) {
    const uint32_t n = g.template window<I>(f);
    const auto negative = static_cast<uint32_t>(b.sign(Tables::sign_entry(sign_index<I>(n, f, col[x - 1], col[x + 1]))));
    *value = negative ? -magnitude : magnitude;
    mark_significant<I>(col, x, g.word_pitch(), f, negative);
  }

  // D.3.1: the insignificant samples with a significant neighbour. (Each pass writes out its
  // loops over stripes and columns: with a shared helper taking the pass's body, GCC did not
  // inline the helper, and the MQ decoder's registers went to memory.)
  template <int N, class Bits>
  J2K_T1_HD void significance_pass(int p, Bits& bits) {
    Bits b = bits;
    const Shape<N> g{geometry_};
    const auto magnitude = static_cast<int32_t>(3u << p);
    for (int s = 0; s < g.stripe_count(); ++s) {
      uint32_t* col = g.stripe_words(s);
      int32_t* values = g.stripe_values(s);
      const int rows = g.stripe_rows(s);
      for (int x = 0; x < g.width(); ++x) {
        uint32_t f = col[x];
        if ((f & kSigAround) == 0) continue;
        each_row(rows, [&](auto row) {
          constexpr int I = decltype(row)::value;
          if (f & own_sig(I)) return;
          const uint32_t n = g.template window<I>(f);
          if (n == 0) return;
          if (b.decide_even(g.zc[n])) become_significant<I>(g, b, col, x, f, values + I * g.value_stride() + x, magnitude);
          f |= visited(I);
        });
        col[x] = f;
      }
    }
    bits = b;
  }

  // D.3.3: a bit of each sample significant before this plane (not made so by this plane's
  // significance pass); it moves the value half the interval up or down (the interval halves).
  // Below the top planes most samples were refined before, and decide in context 2 (Table
  // D.4) one after the other: the pass holds that context in a register, so that each
  // decision no longer waits for the last one's store and load of its word (16-bit blocks 5%
  // faster, bench/tier1_ab.sh).
  template <int N, class Bits>
  J2K_T1_HD void refinement_pass(int p, Bits& bits) {
    Bits b = bits;
    MqDecoderContext refined_before = b.take(kRefineBase + 2);
    const Shape<N> g{geometry_};
    const int32_t half = int32_t{1} << p;
    for (int s = 0; s < g.stripe_count(); ++s) {
      uint32_t* col = g.stripe_words(s);
      int32_t* values = g.stripe_values(s);
#if !defined(__CUDA_ARCH__)
      // On the CPU: which samples refine, and in which context, is known before the pass's
      // first decision (its decisions change no significance), so the pass first sweeps
      // sixteen columns' words at a time into two masks (refine_masks), then decides only where
      // a mask bit is set, in the masks' order (column by column, row by row within one, as D.3
      // scans).
      for (int x0 = 0; x0 < g.width(); x0 += 16) {
        uint64_t todo, again;
        refine_masks(col + x0, g.width() - x0 < 16 ? g.width() - x0 : 16, todo, again);
        while (todo != 0) {
          const int k = __builtin_ctzll(todo);
          todo &= todo - 1;
          const int x = x0 + (k >> 2), i = k & 3;
          int bit;
          if ((again >> k) & 1) {
            bit = b.decide_even_in(refined_before);
          } else {
            const uint32_t window = (col[x] >> (3 * i)) & (i == 3 ? g.last_row_window : kWindow);
            bit = b.decide_even(kRefineBase + ((window & ~kCentre) != 0 ? 1 : 0));
          }
          refine(values[i * g.value_stride() + x], bit, half);
        }
      }
#else
      // In the CUDA kernel, row by row (the kernel was not measured with the CPU's masks).
      const int rows = g.stripe_rows(s);
      for (int x = 0; x < g.width(); ++x) {
        uint32_t f = col[x];
        if ((f & kOwnSig) == 0) continue;
        each_row(rows, [&](auto row) {
          constexpr int I = decltype(row)::value;
          if ((f & (own_sig(I) | visited(I))) != own_sig(I)) return;
          // Refined before: context 2, else 1 where a neighbour is significant, else 0.
          int bit;
          if (f & refined(I)) {
            bit = b.decide_even_in(refined_before);
          } else {
            const uint32_t around = (g.template window<I>(f) & ~kCentre) != 0 ? 1u : 0u;
            bit = b.decide_even(kRefineBase + static_cast<int>(around));
          }
          refine(values[I * g.value_stride() + x], bit, half);
          f |= refined(I);
        });
        col[x] = f;
      }
#endif
    }
    b.put_back(kRefineBase + 2, refined_before);
    bits = b;
  }
  // A refinement bit moves the magnitude of the sample's value v (its sign and twice its
  // magnitude, decode_block's form) half the interval up for a 1, down for a 0.
  J2K_T1_HD J2K_T1_INLINE static void refine(int32_t& v, int bit, int32_t half) {
    v += (bit ^ (v < 0 ? 1 : 0)) ? half : -half;
  }

  // D.3.4: the samples the significance pass left, a column of four with no significant
  // sample around run-length coded. Returns false where SEGMARK's four decisions after the
  // pass (D.5) are not 1010.
  template <int N>
  J2K_T1_HD bool cleanup_pass(int p, MqBits<Tables>& bits, bool segmark) {
    MqBits<Tables> b = bits;
    const Shape<N> g{geometry_};
    const auto magnitude = static_cast<int32_t>(3u << p);
    const uint32_t quiet = kVisitedAll | (g.last_row_window == kWindow ? kSigAround : kSigAround & ~kRowBelow);
    for (int s = 0; s < g.stripe_count(); ++s) {
      uint32_t* col = g.stripe_words(s);
      int32_t* values = g.stripe_values(s);
      const int rows = g.stripe_rows(s);
      for (int x = 0; x < g.width(); ++x) {
        uint32_t f = col[x];
        int from = 0;  // the first row coded one by one
        if (rows == 4 && (f & quiet) == 0) {
          if (!b.decide(kRunLength)) continue;
          from = b.decide(kUniform) << 1;
          from |= b.decide(kUniform);
          // The first significant sample of the column: its sign, coded as in any row.
          switch (from) {
            case 0: become_significant<0>(g, b, col, x, f, values + x, magnitude); break;
            case 1: become_significant<1>(g, b, col, x, f, values + g.value_stride() + x, magnitude); break;
            case 2: become_significant<2>(g, b, col, x, f, values + 2 * g.value_stride() + x, magnitude); break;
            default: become_significant<3>(g, b, col, x, f, values + 3 * g.value_stride() + x, magnitude); break;
          }
          ++from;
        }
        each_row(rows, [&](auto row) {
          constexpr int I = decltype(row)::value;
          if (I < from || (f & (own_sig(I) | visited(I)))) return;
          if (b.decide(g.zc[g.template window<I>(f)])) become_significant<I>(g, b, col, x, f, values + I * g.value_stride() + x, magnitude);
        });
        col[x] = f & ~kVisitedAll;
      }
    }
    bool ok = true;
    if (segmark) {
      int v = 0;
      for (int n = 0; n < 4; ++n) v = (v << 1) | b.decide(kUniform);
      ok = v == 0xA;
    }
    bits = b;
    return ok;
  }

  const BlockCode& c_;
  Geometry geometry_;
  MqDecoderContext cx_[kContexts];
};

}  // namespace j2k::codec::t1
