#include "codec/tier1/block_encoder.hpp"

#include <algorithm>
#include <cstdlib>

#include "codec/tier1/contexts.hpp"
#include "codec/tier1/mq_encoder.hpp"
#include "codec/tier1/raw_encoder.hpp"

namespace j2k::codec {
namespace {

using namespace t1;

// The buffers of a thread's blocks, reused from block to block: allocating and clearing them
// for each costs as much as coding a sparse block.
struct Scratch {
  std::vector<uint16_t> flags;
  std::vector<uint32_t> mag;
  MqEncoder mq;
  RawEncoder raw;
};

class BlockCoder {
 public:
  BlockCoder(const BlockView& b, Scratch& scratch)
      : b_(b), w_(b.width), h_(b.height), pitch_(b.width + 2), flags_(scratch.flags), mag_(scratch.mag),
        mq_(scratch.mq), raw_coder_(scratch.raw) {
    zero_contexts_ = kZeroContexts.of(b.band);
    flags_.assign(static_cast<size_t>(pitch_ * (h_ + 2)), 0);
    grid_ = FlagGrid{flags_.data(), w_, h_, static_cast<size_t>(pitch_), (b.modes & kModeCausal) != 0};
    mag_.resize(flags_.size());  // the same layout as the flags; the border is never read
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x) {
        const int32_t v = b.data[y * b.stride + x];
        mag_[grid_.at(x, y)] = static_cast<uint32_t>(std::abs(static_cast<int64_t>(v)));
        if (v < 0) flags_[grid_.at(x, y)] |= kNegative;
      }
    mq_.restart();
    raw_coder_.restart();
    reset_contexts();
  }

  CodedBlock run() {
    CodedBlock out;
    uint32_t all = 0;
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x) {
        const uint32_t m = mag_[grid_.at(x, y)];
        all |= m;
        out.energy += static_cast<double>(m) * static_cast<double>(m);
      }
    out.energy /= static_cast<double>(uint64_t{1} << (2 * b_.fraction_bits));
    all >>= b_.fraction_bits;
    while (all >> out.bitplanes) ++out.bitplanes;
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

  // Whether the magnitude at mag_[i] has a 1 in plane p.
  bool bit(size_t i, int p) const { return ((mag_[i] >> (p + b_.fraction_bits)) & 1) != 0; }

  // Table D.3: the context and the bit that is XORed with the sign; raw passes put the sign.
  void code_sign(MqRegisters& r, size_t i, int y) {
    const int negative = (flags_[i] & kNegative) ? 1 : 0;
    if (raw_) {
      raw_coder_.put(negative);
      return;
    }
    const auto [context, flip] = grid_.sign(i, y);
    mq_encode(r, cx_[context], negative ^ flip);
  }

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

  // Codes whether the coefficient at flags_[i], row y, becomes significant in plane p, and
  // its sign if it does.
  void code_significance(MqRegisters& r, size_t i, int y, int p) {
    const int b = bit(i, p);
    code(r, zero_contexts_[grid_.neighbours(i, y)], b);
    if (b) become_significant(r, i, y, p);
  }

  // The coefficient at flags_[i], row y, is significant from plane p on: its sign, its
  // distortion, and the neighbour bits of the 8 around it.
  void become_significant(MqRegisters& r, size_t i, int y, int p) {
    code_sign(r, i, y);
    grid_.mark_significant(i, false);  // kNegative is set from the start
    const uint32_t m = mag_[i];
    if (b_.estimate_distortion) distortion_ += static_cast<double>(m) * static_cast<double>(m) - error_after(m, p);
  }

  void significance_pass(int p) {
    MqRegisters r = begin_pass();
    grid_.scan(kNeighbours, [&](size_t i, int y) {
      if ((flags_[i] & kSig) || grid_.neighbours(i, y) == 0) return;
      code_significance(r, i, y, p);
      flags_[i] |= kVisited;
    });
    mq_.set_registers(r);
  }

  void refinement_pass(int p) {
    MqRegisters r = begin_pass();
    grid_.scan(kSig, [&](size_t i, int y) {
      uint16_t& f = flags_[i];
      if ((f & (kSig | kVisited)) != kSig) return;
      const int context = (f & kRefined) ? kRefineBase + 2 : kRefineBase + (grid_.neighbours(i, y) ? 1 : 0);
      code(r, context, bit(i, p));
      f |= kRefined;
      if (b_.estimate_distortion) distortion_ += error_after(mag_[i], p + 1) - error_after(mag_[i], p);
    });
    mq_.set_registers(r);
  }

  void cleanup_pass(int p) {
    MqRegisters r = begin_pass();
    const size_t pitch = static_cast<size_t>(pitch_);
    for (int y0 = 0; y0 < h_; y0 += 4) {
      const int y1 = std::min(y0 + 4, h_);
      for (int x = 0; x < w_; ++x) {
        const size_t top = grid_.at(x, y0);
        int y = y0;
        // Run-length coding (D.3.4): a full column of four, none significant or visited,
        // none with a significant neighbour.
        if (y1 - y0 == 4 && grid_.run_length_column(top, y0)) {
          int first = 0;
          while (first < 4 && !bit(top + static_cast<size_t>(first) * pitch, p)) ++first;
          mq_encode(r, cx_[kRunLength], first < 4 ? 1 : 0);
          if (first == 4) continue;
          mq_encode(r, cx_[kUniform], first >> 1);
          mq_encode(r, cx_[kUniform], first & 1);
          become_significant(r, top + static_cast<size_t>(first) * pitch, y0 + first, p);
          y = y0 + first + 1;
        }
        for (size_t i = top + static_cast<size_t>(y - y0) * pitch; y < y1; ++y, i += pitch) {
          if ((flags_[i] & (kSig | kVisited)) == 0) code_significance(r, i, y, p);
          flags_[i] &= static_cast<uint16_t>(~kVisited);  // for the next plane's passes
        }
      }
    }
    // SEGMARK (D.5): 1010 in the uniform context, which a decoder checks.
    if (b_.modes & kModeSegmark)
      for (int d : {1, 0, 1, 0}) mq_encode(r, cx_[kUniform], d);
    mq_.set_registers(r);
  }

  const BlockView& b_;
  int w_, h_, pitch_;
  const uint8_t* zero_contexts_;
  std::vector<uint16_t>& flags_;
  std::vector<uint32_t>& mag_;
  MqContext cx_[kContexts];
  MqEncoder& mq_;
  RawEncoder& raw_coder_;
  FlagGrid grid_;
  bool raw_ = false;
  double distortion_ = 0;
  int segment_first_ = 0;
  std::vector<PendingEnd> ends_ = std::vector<PendingEnd>(3 * 32, PendingEnd{0, 0, 0, 0, 0});
};

}  // namespace

CodedBlock encode_block(const BlockView& block) {
  thread_local Scratch scratch;
  return BlockCoder(block, scratch).run();
}

}  // namespace j2k::codec
