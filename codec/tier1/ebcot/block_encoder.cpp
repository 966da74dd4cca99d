// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/ebcot/block_encoder.hpp"

#include <algorithm>
#include <cstdlib>

#include "codec/tier1/ebcot/contexts.hpp"
#include "codec/tier1/ebcot/mq_encoder.hpp"
#include "codec/tier1/ebcot/raw_encoder.hpp"
#include "codec/tier1/ebcot/stripe_flags.hpp"

namespace j2k::codec {
namespace {

using namespace t1;

// The buffers of a thread's blocks, reused from block to block: allocating and clearing them
// for each costs as much as coding a sparse block.
struct Scratch {
  std::vector<uint32_t> words;  // the stripe columns' flags (stripe_flags.hpp)
  std::vector<uint32_t> mag;    // the magnitudes, row by row
  MqEncoder mq;
  RawEncoder raw;
};

// The passes keep their flags as the decoder does (stripe_flags.hpp): one word per column of a
// stripe of four rows, which holds the significance of the 6 x 3 samples around it, the signs
// of its own, and what the passes visited and refined; a pass skips most columns on one test
// and finds a context in one shift of the word.
class PassEncoder {
 public:
  PassEncoder(const BlockView& b, Scratch& scratch)
      : b_(b), w_(b.width), h_(b.height), stripes_((b.height + 3) / 4), pitch_(static_cast<ptrdiff_t>(b.width) + 2),
        words_(scratch.words), mag_(scratch.mag), mq_(scratch.mq), raw_coder_(scratch.raw) {
    zc_ = kWindowZeroContexts.of(b.band);
    last_row_window_ = (b.modes & kModeCausal) ? kWindowAbove : kWindow;
    // A border of one word all round (a stripe above and below, a column left and right).
    words_.assign(static_cast<size_t>(pitch_) * static_cast<size_t>(stripes_ + 2), 0);
    mag_.resize(static_cast<size_t>(w_) * static_cast<size_t>(h_));
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x)
        mag_[static_cast<size_t>(y * w_ + x)] = static_cast<uint32_t>(std::abs(static_cast<int64_t>(b.data[y * b.stride + x])));
    mq_.restart();
    raw_coder_.restart();
    reset_contexts();
  }

  CodedBlock run() {
    CodedBlock out;
    uint32_t all = 0;
    for (const uint32_t m : mag_) {  // row by row
      all |= m;
      out.energy += static_cast<double>(m) * static_cast<double>(m);
    }
    out.energy /= static_cast<double>(uint64_t{1} << (2 * b_.fraction_bits));
    all >>= b_.fraction_bits;
    while (all >> out.bitplanes) ++out.bitplanes;
    out.magnitude_bitplanes = out.bitplanes;
    if (out.bitplanes == 0) return out;
    const int total = 3 * out.bitplanes - 2;
    out.passes.resize(static_cast<size_t>(total));
    segment_first_ = 0;
    int n = 0;
    for (int p = out.bitplanes - 1; p >= 0; --p) {
      for (PassKind kind : {PassKind::Significance, PassKind::Refinement, PassKind::Cleanup}) {
        if (p == out.bitplanes - 1 && kind != PassKind::Cleanup) continue;  // the top plane: cleanup only
        // BYPASS (D.6): from the 11th pass, significance and refinement passes are raw.
        raw_ = (b_.modes & kModeBypass) && n >= 10 && kind != PassKind::Cleanup;
        distortion_ = 0;
        if (kind == PassKind::Significance) significance_pass(p);
        else if (kind == PassKind::Refinement) refinement_pass(p);
        else cleanup_pass(p);
        CodedPass& pass = out.passes[static_cast<size_t>(n)];
        pass.distortion = distortion_ / static_cast<double>(uint64_t{1} << (2 * b_.fraction_bits));
        pass.terminated = terminated(n, total);
        if (pass.terminated) {
          end_segment(out, n);
        } else if (raw_) {
          ends_[static_cast<size_t>(n)] = {raw_coder_.bytes_needed(), 0, 0, 0, 0};
        } else {
          ends_[static_cast<size_t>(n)] = mq_.state();
        }
        if (b_.modes & kModeReset) reset_contexts();
        ++n;
      }
    }
    return out;
  }

 private:
  // Where a pass ends in its segment: the MQ coder's state then (raw passes: bytes only).
  using PendingEnd = MqEncoder::State;

  bool terminated(int n, int total) const {
    if (n == total - 1 || (b_.modes & kModeTermAll)) return true;
    // BYPASS: the MQ codeword ends after the 10th pass; then every raw pair and every
    // cleanup pass is a segment of its own.
    return (b_.modes & kModeBypass) && (n == 9 || (n >= 10 && (n - 10) % 3 != 0));
  }

  // Terminates the codeword of passes segment_first_..n, appends it, and fixes those passes'
  // ends (truncation points). A decoder reads 1s past the bytes it has; an MQ pass needs the
  // fewest bytes of the final codeword that, so continued, still lie in the interval its
  // decisions left, so that it decodes them all; a raw pass needs the bytes its bits started.
  // Never past the segment's end, never ending on 0xFF (that byte is the 1s a decoder reads
  // anyway), never before the pass before.
  void end_segment(CodedBlock& out, int n) {
    const bool predictable = (b_.modes & kModePredictable) != 0;
    const uint8_t* seg;
    size_t size;
    if (raw_) {
      raw_coder_.flush(predictable);
      seg = raw_coder_.bytes().data();
      size = raw_coder_.bytes().size();
    } else {
      if (predictable) mq_.flush_predictable();
      else mq_.flush();
      seg = mq_.data();
      size = mq_.size();
    }
    const size_t base = out.bytes.size();
    for (int k = segment_first_; k < n; ++k) {
      const PendingEnd& e = ends_[static_cast<size_t>(k)];
      size_t end = raw_ ? e.bytes : mq_truncation(e, seg, size);
      end = std::min(end, size);
      while (end > 0 && seg[end - 1] == 0xFF) --end;
      uint32_t e32 = static_cast<uint32_t>(base + end);
      if (k > 0) e32 = std::max(e32, out.passes[static_cast<size_t>(k - 1)].end);
      out.passes[static_cast<size_t>(k)].end = e32;
    }
    out.bytes.insert(out.bytes.end(), seg, seg + size);
    out.passes[static_cast<size_t>(n)].end = static_cast<uint32_t>(out.bytes.size());
    if (raw_) raw_coder_.restart();
    else mq_.restart();
    segment_first_ = n + 1;
  }

  // The fewest bytes of codeword `seg` that decode every decision made up to state `e`:
  // with the bytes after B placed below B, 27 - CT bits of them down to C's bit 0, and 1s
  // below what the bytes cover, the value must lie in the interval the decisions left,
  // [B * 2^(27 - CT) + C, that + A) (64-bit: B's 8 bits above C's 27). A byte after 0xFF
  // sits 7 bits below it, not 8: its top bit is the stuffed one, which a carry sets and which
  // adds to the 0xFF's lowest bit (as the decoder's BYTEIN adds it, C.3.4); so the bytes
  // must reach past a carry still pending in C, or the value falls below the interval.
  static size_t mq_truncation(const PendingEnd& e, const uint8_t* seg, size_t size) {
    // Byte j of the codeword; byte -1 is the zero before it (C.2.8), B before any byte-out.
    auto byte = [&](size_t j) -> uint64_t { return j == 0 ? 0 : seg[j - 1]; };  // j: 1-based
    const int top = 27 - e.ct;
    const uint64_t low = (uint64_t{e.b} << top) + e.c, high = low + e.a;
    for (size_t length = e.bytes; length < size; ++length) {
      uint64_t v = byte(e.bytes) << top;
      int pos = top;
      for (size_t j = e.bytes + 1; j <= length && pos > 0; ++j) {
        pos -= byte(j - 1) == 0xFF ? 7 : 8;
        const uint64_t bits = byte(j);
        v += pos >= 0 ? bits << pos : bits >> -pos;
      }
      if (pos > 0) v += (uint64_t{1} << pos) - 1;
      if (v >= low && v < high) return length;
    }
    return size;
  }

  void reset_contexts() { t1::reset_contexts(cx_); }

  void code(MqRegisters& r, int context, int d) {
    if (raw_) raw_coder_.put(d);
    else mq_encode(r, cx_[context], d);
  }

  // A pass codes through a local copy of the MQ registers, with room for its decisions (at
  // most 10 per stripe column of 4, and SEGMARK's 4).
  MqRegisters begin_pass() {
    mq_.reserve(static_cast<size_t>(3 * w_ * h_ + 4));
    return mq_.registers();
  }

  // Row I's neighbourhood in the column word f (stripe_flags.hpp); with VSC the last row does
  // not see the stripe below (D.7).
  template <int I>
  uint32_t window(uint32_t f) const { return (f >> (3 * I)) & (I == 3 ? last_row_window_ : kWindow); }
  uint32_t* stripe_words(int s) const { return words_.data() + (s + 1) * pitch_ + 1; }
  size_t at(int x, int y) const { return static_cast<size_t>(y * w_ + x); }

  // Whether the magnitude at mag_[i] has a 1 in plane p.
  bool bit(size_t i, int p) const { return ((mag_[i] >> (p + b_.fraction_bits)) & 1) != 0; }

  // The squared error, in fraction units, of magnitude m (with its fraction bits) as a
  // decoder reconstructs it once plane p is decoded (E.1.1.2): at the middle of the interval
  // the planes leave, or at its bottom once the last plane of a reversible block is. Only the
  // bits below the plane count.
  double error_after(uint32_t m, int p) const {
    const int s = p + b_.fraction_bits;  // at most 30: m < 2^31
    const double below = static_cast<double>(m & ((uint32_t{1} << s) - 1));
    if (p == 0 && b_.reversible) return below * below;
    const double e = below - (s > 0 ? static_cast<double>(uint32_t{1} << (s - 1)) : 0.5);
    return e * e;
  }

  // Row I of column x (word f, a local the caller stores back), sample (x, y), is significant
  // from plane p on: its sign (Table D.3 from the four neighbours; raw passes put it as it
  // is), its distortion, and its significance in the words that see it: its column's, the
  // two beside, and for the first or last row the stripe's above or below.
  template <int I>
  void become_significant(MqRegisters& r, uint32_t* col, int x, uint32_t& f, int y, int p) {
    const uint32_t negative = b_.data[y * b_.stride + x] < 0 ? 1 : 0;
    if (raw_) {
      raw_coder_.put(static_cast<int>(negative));
    } else {
      const unsigned entry = sign_entry<I>(window<I>(f), f, col[x - 1], col[x + 1]);
      mq_encode(r, cx_[entry & 31], static_cast<int>(negative ^ (entry >> 7)));
    }
    mark_significant<I>(col, x, pitch_, f, negative);
    const uint32_t m = mag_[at(x, y)];
    if (b_.estimate_distortion) distortion_ += static_cast<double>(m) * static_cast<double>(m) - error_after(m, p);
  }

  // Codes whether row I of column x (sample (x, y)), with neighbourhood n, becomes significant
  // in plane p, and its sign if it does.
  template <int I>
  void code_significance(MqRegisters& r, uint32_t* col, int x, uint32_t& f, uint32_t n, int y, int p) {
    const int b = bit(at(x, y), p);
    code(r, zc_[n], b);
    if (b) become_significant<I>(r, col, x, f, y, p);
  }

  // D.3.1: the insignificant samples with a significant neighbour.
  void significance_pass(int p) {
    MqRegisters r = begin_pass();
    for (int s = 0; s < stripes_; ++s) {
      uint32_t* col = stripe_words(s);
      const int rows = std::min(4, h_ - 4 * s);
      for (int x = 0; x < w_; ++x) {
        uint32_t f = col[x];
        if ((f & kSigAround) == 0) continue;
        each_row(rows, [&](auto row) {
          constexpr int I = decltype(row)::value;
          if (f & own_sig(I)) return;
          const uint32_t n = window<I>(f);
          if (n == 0) return;
          code_significance<I>(r, col, x, f, n, 4 * s + I, p);
          f |= visited(I);
        });
        col[x] = f;
      }
    }
    mq_.set_registers(r);
  }

  // D.3.3: a bit of each sample significant before this plane.
  void refinement_pass(int p) {
    MqRegisters r = begin_pass();
    for (int s = 0; s < stripes_; ++s) {
      uint32_t* col = stripe_words(s);
      const int rows = std::min(4, h_ - 4 * s);
      for (int x = 0; x < w_; ++x) {
        uint32_t f = col[x];
        if ((f & kOwnSig) == 0) continue;
        each_row(rows, [&](auto row) {
          constexpr int I = decltype(row)::value;
          if ((f & (own_sig(I) | visited(I))) != own_sig(I)) return;
          const int context = (f & refined(I)) ? kRefineBase + 2 : kRefineBase + ((window<I>(f) & ~kCentre) ? 1 : 0);
          const size_t i = at(x, 4 * s + I);
          code(r, context, bit(i, p));
          f |= refined(I);
          if (b_.estimate_distortion) distortion_ += error_after(mag_[i], p + 1) - error_after(mag_[i], p);
        });
        col[x] = f;
      }
    }
    mq_.set_registers(r);
  }

  // D.3.4: the samples the significance pass left, a column of four with no significant
  // sample around run-length coded.
  void cleanup_pass(int p) {
    MqRegisters r = begin_pass();
    const uint32_t quiet = kVisitedAll | (last_row_window_ == kWindow ? kSigAround : kSigAround & ~kRowBelow);
    for (int s = 0; s < stripes_; ++s) {
      uint32_t* col = stripe_words(s);
      const int rows = std::min(4, h_ - 4 * s), y0 = 4 * s;
      for (int x = 0; x < w_; ++x) {
        uint32_t f = col[x];
        int from = 0;  // the first row coded one by one
        if (rows == 4 && (f & quiet) == 0) {
          int first = 0;
          while (first < 4 && !bit(at(x, y0 + first), p)) ++first;
          mq_encode(r, cx_[kRunLength], first < 4 ? 1 : 0);
          if (first == 4) continue;
          mq_encode(r, cx_[kUniform], first >> 1);
          mq_encode(r, cx_[kUniform], first & 1);
          switch (first) {  // the column's first significant sample: its sign, coded as in any row
            case 0: become_significant<0>(r, col, x, f, y0, p); break;
            case 1: become_significant<1>(r, col, x, f, y0 + 1, p); break;
            case 2: become_significant<2>(r, col, x, f, y0 + 2, p); break;
            default: become_significant<3>(r, col, x, f, y0 + 3, p); break;
          }
          from = first + 1;
        }
        each_row(rows, [&](auto row) {
          constexpr int I = decltype(row)::value;
          if (I < from || (f & (own_sig(I) | visited(I)))) return;
          code_significance<I>(r, col, x, f, window<I>(f), y0 + I, p);
        });
        col[x] = f & ~kVisitedAll;  // for the next plane's passes
      }
    }
    // SEGMARK (D.5): 1010 in the uniform context, which a decoder checks.
    if (b_.modes & kModeSegmark)
      for (int d : {1, 0, 1, 0}) mq_encode(r, cx_[kUniform], d);
    mq_.set_registers(r);
  }

  const BlockView& b_;
  int w_, h_, stripes_;
  ptrdiff_t pitch_;  // words from a stripe's column to the next stripe's
  const uint8_t* zc_ = nullptr;        // Table D.1 for the band (kWindowZeroContexts)
  uint32_t last_row_window_ = kWindow;
  std::vector<uint32_t>& words_;
  std::vector<uint32_t>& mag_;
  MqContext cx_[kContexts];
  MqEncoder& mq_;
  RawEncoder& raw_coder_;
  bool raw_ = false;
  double distortion_ = 0;
  int segment_first_ = 0;
  std::vector<PendingEnd> ends_ = std::vector<PendingEnd>(3 * 32, PendingEnd{0, 0, 0, 0, 0});
};

}  // namespace

CodedBlock encode_block(const BlockView& block) {
  thread_local Scratch scratch;
  return PassEncoder(block, scratch).run();
}

}  // namespace j2k::codec
