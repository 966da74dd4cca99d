#include "codec/tier1/block_encoder.hpp"

#include <algorithm>
#include <cstdlib>

#include "codec/tier1/mq_encoder.hpp"

namespace j2k::codec {
namespace {

// The 19 contexts: 0..8 significance (zero coding), 9..13 sign, 14..16 refinement, 17 the
// run-length context, 18 the uniform one. Initial states (Table D.7): all index 0, MPS 0,
// except zero-coding context 0 (index 4), run-length (3) and uniform (46).
constexpr int kSignBase = 9, kRefineBase = 14, kRunLength = 17, kUniform = 18;

// Per coefficient flags, with a border of one all round so that neighbours need no checks.
enum : uint8_t { kSig = 1, kVisited = 2, kRefined = 4, kNegative = 8 };

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
    cx_[0].index = 4;
    cx_[kRunLength].index = 3;
    cx_[kUniform].index = 46;
  }

  CodedBlock run() {
    CodedBlock out;
    uint32_t all = 0;
    for (uint32_t m : mag_) all |= m;
    while (all >> out.bitplanes) ++out.bitplanes;
    if (out.bitplanes == 0) return out;
    for (int p = out.bitplanes - 1; p >= 0; --p) {
      if (p < out.bitplanes - 1) {
        significance_pass(p);
        refinement_pass(p);
      }
      cleanup_pass(p);
    }
    mq_.flush();
    out.passes = 3 * out.bitplanes - 2;
    out.bytes.assign(mq_.data(), mq_.data() + mq_.size());
    return out;
  }

 private:
  uint8_t& flag(int x, int y) { return flags_[static_cast<size_t>((y + 1) * pitch_ + x + 1)]; }
  bool sig(int x, int y) { return (flag(x, y) & kSig) != 0; }
  bool bit(int x, int y, int p) const { return ((mag_[static_cast<size_t>(y * w_ + x)] >> p) & 1) != 0; }

  // Significant neighbours: horizontal, vertical and diagonal counts.
  void neighbours(int x, int y, int& h, int& v, int& d) {
    h = sig(x - 1, y) + sig(x + 1, y);
    v = sig(x, y - 1) + sig(x, y + 1);
    d = sig(x - 1, y - 1) + sig(x + 1, y - 1) + sig(x - 1, y + 1) + sig(x + 1, y + 1);
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

  // Table D.3: the context and the bit that is XORed with the sign.
  void code_sign(int x, int y) {
    const int h = std::clamp(contribution(x - 1, y) + contribution(x + 1, y), -1, 1);
    const int v = std::clamp(contribution(x, y - 1) + contribution(x, y + 1), -1, 1);
    int context, flip;
    if (h == 0) {
      context = kSignBase + (v == 0 ? 0 : 1);
      flip = v < 0 ? 1 : 0;
    } else {
      context = kSignBase + (v == 0 ? 3 : v == h ? 4 : 2);
      flip = h < 0 ? 1 : 0;
    }
    const int negative = (flag(x, y) & kNegative) ? 1 : 0;
    mq_.encode(cx_[context], negative ^ flip);
  }

  // Codes whether (x, y) becomes significant in plane p, and its sign if it does.
  void code_significance(int x, int y, int p) {
    const int b = bit(x, y, p);
    mq_.encode(cx_[zero_context(x, y)], b);
    if (b) {
      code_sign(x, y);
      flag(x, y) |= kSig;
    }
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
      mq_.encode(cx_[context], bit(x, y, p));
      f |= kRefined;
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
          code_sign(x, y0 + first);
          flag(x, y0 + first) |= kSig;
          y = y0 + first + 1;
        }
        for (; y < y1; ++y)
          if ((flag(x, y) & (kSig | kVisited)) == 0) code_significance(x, y, p);
      }
    }
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
};

}  // namespace

CodedBlock encode_block(const BlockView& block) { return BlockCoder(block).run(); }

}  // namespace j2k::codec
