#include "codec/tier1/block_encoder.hpp"

#include <algorithm>
#include <cstdlib>

#include "codec/tier1/mq_encoder.hpp"
#include "codec/tier1/raw_encoder.hpp"

namespace j2k::codec {
namespace {

// The 19 contexts: 0..8 significance (zero coding), 9..13 sign, 14..16 refinement, 17 the
// run-length context, 18 the uniform one. Initial states (Table D.7): all index 0, MPS 0,
// except zero-coding context 0 (index 4), run-length (3) and uniform (46).
constexpr int kSignBase = 9, kRefineBase = 14, kRunLength = 17, kUniform = 18;

// Per coefficient flags, with a border of one all round so that neighbours need no checks.
enum : uint8_t { kSig = 1, kVisited = 2, kRefined = 4, kNegative = 8 };

enum class PassKind { Significance, Refinement, Cleanup };

class BlockCoder {
 public:
  explicit BlockCoder(const BlockView& b)
      : b_(b), w_(b.width), h_(b.height), pitch_(b.width + 2),
        flags_(static_cast<size_t>((b.width + 2) * (b.height + 2)), 0),
        mag_(static_cast<size_t>(b.width * b.height)) {
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x) {
        const int32_t v = b.data[y * b.stride + x];
        mag_[static_cast<size_t>(y * w_ + x)] = static_cast<uint32_t>(std::abs(static_cast<int64_t>(v)));
        if (v < 0) flag(x, y) |= kNegative;
      }
    reset_contexts();
  }

  CodedBlock run() {
    CodedBlock out;
    uint32_t all = 0;
    for (uint32_t m : mag_) {
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
  // with the bits of the bytes after B placed below B (7 after a 0xFF), 27 - CT of them down
  // to C's bit 0, and 1s below what the bytes cover, the value must stay under the interval's
  // top, B * 2^(27 - CT) + C + A (64-bit: B's 8 bits above C's 27).
  static size_t mq_truncation(const PendingEnd& e, const uint8_t* seg, size_t size) {
    // Byte j of the codeword; byte -1 is the zero before it (C.2.8), B before any byte-out.
    auto byte = [&](size_t j) -> uint64_t { return j == 0 ? 0 : seg[j - 1]; };  // j: 1-based
    const int top = 27 - e.ct;
    const uint64_t high = (uint64_t{e.b} << top) + e.c + e.a;
    for (size_t length = e.bytes; length < size; ++length) {
      uint64_t v = byte(e.bytes) << top;
      int pos = top;
      for (size_t j = e.bytes + 1; j <= length && pos > 0; ++j) {
        const int width = byte(j - 1) == 0xFF ? 7 : 8;
        pos -= width;
        const uint64_t bits = byte(j) & ((1u << width) - 1);
        v += pos >= 0 ? bits << pos : bits >> -pos;
      }
      if (pos > 0) v += (uint64_t{1} << pos) - 1;
      if (v < high) return length;
    }
    return size;
  }

  void reset_contexts() {
    for (MqContext& c : cx_) c = MqContext{};
    cx_[0].index = 4;
    cx_[kRunLength].index = 3;
    cx_[kUniform].index = 46;
  }

  void code(int context, int d) {
    if (raw_) raw_coder_.put(d);
    else mq_.encode(cx_[context], d);
  }

  uint8_t& flag(int x, int y) { return flags_[static_cast<size_t>((y + 1) * pitch_ + x + 1)]; }
  // VSC (D.7): the row below a stripe counts as insignificant for its last row.
  bool below_hidden(int y) const { return (b_.modes & kModeCausal) && (y & 3) == 3; }
  bool sig(int x, int y) { return (flag(x, y) & kSig) != 0; }
  uint32_t mag(int x, int y) const { return mag_[static_cast<size_t>(y * w_ + x)]; }
  bool bit(int x, int y, int p) const { return ((mag(x, y) >> (p + b_.fraction_bits)) & 1) != 0; }

  // Significant neighbours: horizontal, vertical and diagonal counts.
  void neighbours(int x, int y, int& h, int& v, int& d) {
    h = sig(x - 1, y) + sig(x + 1, y);
    v = sig(x, y - 1);
    d = sig(x - 1, y - 1) + sig(x + 1, y - 1);
    if (!below_hidden(y)) {
      v += sig(x, y + 1);
      d += sig(x - 1, y + 1) + sig(x + 1, y + 1);
    }
  }

  // Table D.1.
  int zero_context(int x, int y) {
    int h, v, d;
    neighbours(x, y, h, v, d);
    if (b_.band == J2K_BAND_HH) {
      const int hv = h + v;
      if (d >= 3) return 8;
      if (d == 2) return hv >= 1 ? 7 : 6;
      if (d == 1) return hv >= 2 ? 5 : hv == 1 ? 4 : 3;
      return hv >= 2 ? 2 : hv == 1 ? 1 : 0;
    }
    if (b_.band == J2K_BAND_HL) std::swap(h, v);  // HL: the vertical neighbours lead
    if (h == 2) return 8;
    if (h == 1) return v >= 1 ? 7 : d >= 1 ? 6 : 5;
    if (v == 2) return 4;
    if (v == 1) return 3;
    return d >= 2 ? 2 : d == 1 ? 1 : 0;
  }

  // A neighbour's sign contribution (Table D.2): 0 insignificant, 1 positive, -1 negative.
  int contribution(int x, int y) {
    const uint8_t f = flag(x, y);
    return (f & kSig) == 0 ? 0 : (f & kNegative) ? -1 : 1;
  }

  // Table D.3: the context and the bit that is XORed with the sign; raw passes put the sign.
  void code_sign(int x, int y) {
    const int negative = (flag(x, y) & kNegative) ? 1 : 0;
    if (raw_) {
      raw_coder_.put(negative);
      return;
    }
    const int h = std::clamp(contribution(x - 1, y) + contribution(x + 1, y), -1, 1);
    const int v = std::clamp(contribution(x, y - 1) + (below_hidden(y) ? 0 : contribution(x, y + 1)), -1, 1);
    int context, flip;
    if (h == 0) {
      context = kSignBase + (v == 0 ? 0 : 1);
      flip = v < 0 ? 1 : 0;
    } else {
      context = kSignBase + (v == 0 ? 3 : v == h ? 4 : 2);
      flip = h < 0 ? 1 : 0;
    }
    mq_.encode(cx_[context], negative ^ flip);
  }

  // Squared error of magnitude m (with its fraction bits) against r, in fraction units.
  static double error(uint32_t m, double r) { return (static_cast<double>(m) - r) * (static_cast<double>(m) - r); }
  // What a decoder reconstructs for m once plane p is decoded (E.1.1.2): the middle of the
  // interval the planes leave, or m itself once the last plane of a reversible block is.
  double reconstruction(uint32_t m, int p) const {
    const int s = p + b_.fraction_bits;
    if (p == 0 && b_.reversible) return static_cast<double>(m >> s << s);
    const double base = static_cast<double>(m >> s << s);
    return base + (s > 0 ? static_cast<double>(uint32_t{1} << (s - 1)) : 0.5);
  }

  // Codes whether (x, y) becomes significant in plane p, and its sign if it does.
  void code_significance(int x, int y, int p) {
    const int b = bit(x, y, p);
    code(zero_context(x, y), b);
    if (b) become_significant(x, y, p);
  }

  void become_significant(int x, int y, int p) {
    code_sign(x, y);
    flag(x, y) |= kSig;
    const uint32_t m = mag(x, y);
    distortion_ += error(m, 0) - error(m, reconstruction(m, p));
  }

  template <class Visit>
  void scan(Visit&& visit) {
    for (int y0 = 0; y0 < h_; y0 += 4)
      for (int x = 0; x < w_; ++x)
        for (int y = y0; y < std::min(y0 + 4, h_); ++y) visit(x, y);
  }

  void significance_pass(int p) {
    scan([&](int x, int y) {
      if (sig(x, y)) return;
      int h, v, d;
      neighbours(x, y, h, v, d);
      if (h + v + d == 0) return;
      code_significance(x, y, p);
      flag(x, y) |= kVisited;
    });
  }

  void refinement_pass(int p) {
    scan([&](int x, int y) {
      uint8_t& f = flag(x, y);
      if ((f & (kSig | kVisited)) != kSig) return;
      int context = kRefineBase + 2;
      if ((f & kRefined) == 0) {
        int h, v, d;
        neighbours(x, y, h, v, d);
        context = kRefineBase + (h + v + d > 0 ? 1 : 0);
      }
      code(context, bit(x, y, p));
      f |= kRefined;
      const uint32_t m = mag(x, y);
      distortion_ += error(m, reconstruction(m, p + 1)) - error(m, reconstruction(m, p));
    });
  }

  void cleanup_pass(int p) {
    for (int y0 = 0; y0 < h_; y0 += 4) {
      const int y1 = std::min(y0 + 4, h_);
      for (int x = 0; x < w_; ++x) {
        int y = y0;
        // Run-length coding (D.3.4): a full column of four, none significant or visited,
        // none with a significant neighbour.
        if (y1 - y0 == 4 && run_length_column(x, y0)) {
          int first = 0;
          while (first < 4 && !bit(x, y0 + first, p)) ++first;
          mq_.encode(cx_[kRunLength], first < 4 ? 1 : 0);
          if (first == 4) continue;
          mq_.encode(cx_[kUniform], first >> 1);
          mq_.encode(cx_[kUniform], first & 1);
          become_significant(x, y0 + first, p);
          y = y0 + first + 1;
        }
        for (; y < y1; ++y)
          if ((flag(x, y) & (kSig | kVisited)) == 0) code_significance(x, y, p);
      }
    }
    // SEGMARK (D.5): 1010 in the uniform context, which a decoder checks.
    if (b_.modes & kModeSegmark)
      for (int d : {1, 0, 1, 0}) mq_.encode(cx_[kUniform], d);
    for (uint8_t& f : flags_) f &= static_cast<uint8_t>(~kVisited);
  }

  bool run_length_column(int x, int y0) {
    for (int y = y0; y < y0 + 4; ++y) {
      if (flag(x, y) & (kSig | kVisited)) return false;
      int h, v, d;
      neighbours(x, y, h, v, d);
      if (h + v + d) return false;
    }
    return true;
  }

  const BlockView& b_;
  int w_, h_, pitch_;
  std::vector<uint8_t> flags_;
  std::vector<uint32_t> mag_;
  MqContext cx_[19];
  MqEncoder mq_;
  RawEncoder raw_coder_;
  bool raw_ = false;
  double distortion_ = 0;
  int segment_first_ = 0;
  std::vector<PendingEnd> ends_ = std::vector<PendingEnd>(3 * 32, PendingEnd{0, 0, 0, 0, 0});
};

}  // namespace

CodedBlock encode_block(const BlockView& block) { return BlockCoder(block).run(); }

}  // namespace j2k::codec
