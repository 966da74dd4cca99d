#include "codec/tier1/block_decoder.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "codec/tier1/contexts.hpp"
#include "codec/tier1/mq_decoder.hpp"
#include "codec/tier1/raw_decoder.hpp"
#include "common/error.hpp"

namespace j2k::codec {
namespace {

using namespace t1;

// The buffers of a thread's blocks, reused from block to block.
struct Scratch {
  std::vector<uint16_t> flags;
  std::vector<int32_t> value;
};

class BlockDecoder {
 public:
  BlockDecoder(const BlockCode& c, Scratch& scratch)
      : c_(c), w_(c.width), h_(c.height), pitch_(c.width + 2), flags_(scratch.flags), value_(scratch.value) {
    zero_contexts_ = kZeroContexts.of(c.band);
    flags_.assign(static_cast<size_t>(pitch_ * (h_ + 2)), 0);
    grid_ = FlagGrid{flags_.data(), w_, h_, static_cast<size_t>(pitch_), (c.modes & kModeCausal) != 0};
    value_.assign(flags_.size(), 0);
    reset_contexts(cx_);
  }

  BlockDecodeReport run() {
    BlockDecodeReport report;
    const int total = c_.bitplanes > 0 ? 3 * c_.bitplanes - 2 : 0;
    size_t offset = 0;
    int n = 0;
    for (size_t s = 0; s < c_.segments && n < total; ++s) {
      const size_t bytes = c_.segment_bytes[s];
      raw_ = (c_.modes & kModeBypass) && n >= 10 && kind(n) != PassKind::Cleanup;
      if (raw_) raw_decoder_ = RawDecoder(c_.bytes + offset, bytes);
      else mq_ = MqDecoder(c_.bytes + offset, bytes);
      offset += bytes;
      for (int k = 0; k < c_.segment_passes[s] && n < total; ++k, ++n) {
        const int p = plane(n);
        switch (kind(n)) {
          case PassKind::Significance: significance_pass(p); break;
          case PassKind::Refinement: refinement_pass(p); break;
          case PassKind::Cleanup: {
            bool ok = true;
            cleanup_pass(p, (c_.modes & kModeSegmark) != 0, &ok);
            if (!ok) report.segmark_error = true;
            break;
          }
        }
        if ((c_.modes & kModeReset) && !raw_) reset_contexts(cx_);
      }
    }
    report.passes = n;
    return report;
  }

  void copy_out(int32_t* out, ptrdiff_t stride) const {
    for (int y = 0; y < h_; ++y) std::copy_n(&value_[grid_.at(0, y)], w_, out + y * stride);
  }

 private:
  // Pass n of the block: the cleanup of the top plane, then significance, refinement and
  // cleanup of each plane below.
  static PassKind kind(int n) {
    if (n == 0) return PassKind::Cleanup;
    const int k = (n - 1) % 3;
    return k == 0 ? PassKind::Significance : k == 1 ? PassKind::Refinement : PassKind::Cleanup;
  }
  int plane(int n) const { return n == 0 ? c_.bitplanes - 1 : c_.bitplanes - 2 - (n - 1) / 3; }

  // The decoders' state travels through the passes as locals (Coders, copied in and out of
  // the members once a pass): as members, their registers would be reloaded after every
  // store into the int32 values, which may alias them.
  struct Coders {
    MqDecoder mq;
    RawDecoder raw;
  };
  int decode(Coders& k, int context) { return raw_ ? k.raw.bit() : k.mq.decode(cx_[context]); }

  // The coefficient at flags_[i], row y, becomes significant in plane p: its sign, its value
  // (twice the plane's bit plus half the interval below, 3 * 2^p), and the neighbour bits
  // of the 8 around it.
  void become_significant(Coders& k, size_t i, int y, int p) {
    int negative;
    if (raw_) {
      negative = k.raw.bit();
    } else {
      const auto [context, flip] = grid_.sign(i, y);
      negative = k.mq.decode(cx_[context]) ^ flip;
    }
    const int32_t magnitude = static_cast<int32_t>(3u << p);
    value_[i] = negative ? -magnitude : magnitude;
    grid_.mark_significant(i, negative != 0);
  }

  void decode_significance(Coders& k, size_t i, int y, int p) {
    if (decode(k, zero_contexts_[grid_.neighbours(i, y)])) become_significant(k, i, y, p);
  }

  void significance_pass(int p) {
    Coders k{mq_, raw_decoder_};
    grid_.scan(kNeighbours, [&](size_t i, int y) {
      if ((flags_[i] & kSig) || grid_.neighbours(i, y) == 0) return;
      decode_significance(k, i, y, p);
      flags_[i] |= kVisited;
    });
    mq_ = k.mq, raw_decoder_ = k.raw;
  }

  // A refinement bit moves the value half the interval up or down (the interval halves).
  void refinement_pass(int p) {
    const int32_t half = int32_t{1} << p;
    Coders k{mq_, raw_decoder_};
    grid_.scan(kSig, [&](size_t i, int y) {
      uint16_t& f = flags_[i];
      if ((f & (kSig | kVisited)) != kSig) return;
      const int context = (f & kRefined) ? kRefineBase + 2 : kRefineBase + (grid_.neighbours(i, y) ? 1 : 0);
      const int bit = decode(k, context);
      int32_t& v = value_[i];
      v += (bit ^ (v < 0 ? 1 : 0)) ? half : -half;
      f |= kRefined;
    });
    mq_ = k.mq, raw_decoder_ = k.raw;
  }

  void cleanup_pass(int p, bool segmark, bool* segmark_ok) {
    Coders k{mq_, raw_decoder_};
    const size_t pitch = static_cast<size_t>(pitch_);
    for (int y0 = 0; y0 < h_; y0 += 4) {
      const int y1 = std::min(y0 + 4, h_);
      for (int x = 0; x < w_; ++x) {
        const size_t top = grid_.at(x, y0);
        int y = y0;
        // Run-length coding (D.3.4): a full column of four, none significant or visited,
        // none with a significant neighbour.
        if (y1 - y0 == 4 && grid_.run_length_column(top, y0)) {
          if (!k.mq.decode(cx_[kRunLength])) continue;
          int first = k.mq.decode(cx_[kUniform]) << 1;
          first |= k.mq.decode(cx_[kUniform]);
          become_significant(k, top + static_cast<size_t>(first) * pitch, y0 + first, p);
          y = y0 + first + 1;
        }
        for (size_t i = top + static_cast<size_t>(y - y0) * pitch; y < y1; ++y, i += pitch) {
          if ((flags_[i] & (kSig | kVisited)) == 0) decode_significance(k, i, y, p);
          flags_[i] &= static_cast<uint16_t>(~kVisited);
        }
      }
    }
    // SEGMARK (D.5): the four uniform decisions after a cleanup pass must be 1010.
    if (segmark) {
      int v = 0;
      for (int n = 0; n < 4; ++n) v = (v << 1) | k.mq.decode(cx_[kUniform]);
      *segmark_ok = v == 0xA;
    }
    mq_ = k.mq, raw_decoder_ = k.raw;
  }

  const BlockCode& c_;
  int w_, h_, pitch_;
  const uint8_t* zero_contexts_;
  std::vector<uint16_t>& flags_;
  std::vector<int32_t>& value_;
  MqContext cx_[kContexts];
  MqDecoder mq_{nullptr, 0};
  RawDecoder raw_decoder_;
  FlagGrid grid_;
  bool raw_ = false;
};

}  // namespace

BlockDecodeReport decode_block(const BlockCode& code, int32_t* out, ptrdiff_t stride) {
  if (code.width < 1 || code.height < 1 || code.width > 1024 || code.height > 1024 || code.width * code.height > 4096)
    throw Error(ErrorCode::InvalidArgument, "a code-block of " + std::to_string(code.width) + "x" +
                                                std::to_string(code.height) + " samples (at most 1024 a side, 4096 in all)");
  if (code.bitplanes > kMaxDecodedBitplanes)
    throw Error(ErrorCode::UnsupportedInput, "a code-block with " + std::to_string(code.bitplanes) +
                                                 " bit planes (at most " + std::to_string(kMaxDecodedBitplanes) +
                                                 " are decoded)");
  uint64_t bytes = 0;
  for (size_t s = 0; s < code.segments; ++s) bytes += code.segment_bytes[s];
  if (bytes > code.size)
    throw Error(ErrorCode::CorruptInput, "a code-block's segments hold " + std::to_string(bytes) + " bytes, " +
                                             std::to_string(code.size) + " are there");
  thread_local Scratch scratch;
  BlockDecoder decoder(code, scratch);
  const BlockDecodeReport report = decoder.run();
  decoder.copy_out(out, stride);
  return report;
}

}  // namespace j2k::codec
