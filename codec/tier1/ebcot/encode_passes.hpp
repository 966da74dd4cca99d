// SPDX-License-Identifier: BSD-2-Clause
// The coding passes of one code-block's Tier-1 encoding (ISO/IEC 15444-1 Annex D) as code that
// compiles for the CPU and, unchanged, for a CUDA thread (J2K_T1_HD): what the GPU's EBCOT
// batch runs, one code-block a thread (gpu/cuda/ebcot_block_encoder.cu), and its host
// emulation (gpu/host_ebcot_image_encoder.cpp). The same decisions in the same contexts, the
// same terminations and truncation points and the same distortion arithmetic as
// encode_block() (block_encoder.cpp), so the same bytes, pass ends and distortions bit for
// bit; tests/ebcot_gpu_encoder_test.cpp compares them. That coder stays the CPU's (its
// buffers grow as it goes; this one writes into the caller's and allocates nothing).
//
// Output: the block's segments back to back in a slot of encode_slot_bytes() (from its second
// byte: the first is the zero the MQ coder's first byte-out may carry into, C.2.8), each pass
// in an EncodedPass, and an EncodeResult. Where the slot is too small (a block whose bytes
// pass 4 a sample: noise of 31 bit planes, the most an int32 holds), the coder stops and says so
// (kEncodeOutOfRoom); the caller codes that block on the CPU instead.
//
// `Tables` says where the constant tables are (Table C.2, Table D.1 by window, kSignTable):
// on the CPU the constants (HostEncodeTables), on the GPU copies in device memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ebcot/contexts.hpp"
#include "codec/tier1/ebcot/host_device.hpp"
#include "codec/tier1/ebcot/mq_encoder.hpp"
#include "codec/tier1/ebcot/stripe_flags.hpp"

namespace j2k::codec::t1 {

// The most passes a block has: 3 a bit plane but the first, magnitudes below 2^32.
constexpr int kMaxEncodedPasses = 3 * 32 - 2;

// A pass as the coder leaves it (CodedPass's figures).
struct EncodedPass {
  double distortion;
  uint32_t end;
  uint32_t terminated;
};

enum EncodeStatus : uint8_t { kEncodeCoded = 0, kEncodeOutOfRoom = 1 };

struct EncodeResult {
  double energy = 0;       // CodedBlock::energy
  uint32_t bytes = 0;      // the segments' bytes, from the slot's second byte
  uint8_t bitplanes = 0;   // CodedBlock::bitplanes (and magnitude_bitplanes)
  uint8_t passes = 0;      // 3 * bitplanes - 2, or 0
  uint8_t status = kEncodeCoded;
  uint8_t unused = 0;
};

// The room a pass must have left before it codes a stripe column: its decisions (at most 10,
// 3 bytes each), SEGMARK's 4 and a termination (3 bytes).
constexpr size_t kEncodeColumnRoom = 64;

// The slot of a width x height block: the byte before its first segment, 4 bytes a sample
// (32 bits: the MQ coder's output for noise of 30 bit planes fits, of 31 not; far more than real
// coefficients need), a termination for every pass (TERMALL: at most 5 bytes each) and the
// room of one column; a multiple of 16.
J2K_T1_HD inline size_t encode_slot_bytes(int width, int height) {
  const size_t n = 1 + 4 * static_cast<size_t>(width) * static_cast<size_t>(height) + 5 * kMaxEncodedPasses + kEncodeColumnRoom;
  return (n + 15) / 16 * 16;
}

// The flag words of a width x height block: a border of one word all round its stripe columns.
J2K_T1_HD inline size_t encode_words(int width, int height) {
  return static_cast<size_t>(width + 2) * static_cast<size_t>((height + 3) / 4 + 2);
}

struct HostEncodeTables : mq_detail::HostQeStates {
  static const uint8_t* zero_contexts(j2k_band_type band) { return kWindowZeroContexts.of(band); }
  static unsigned sign_entry(unsigned index) { return kSignTable.entry[index]; }
};

// The distortion arithmetic in IEEE double, each product and sum rounded on its own: on the
// device through the _rn intrinsics, so that no FMA contraction (nvcc's default without
// -fmad=false) changes a bit; on the CPU as written (the codec is built -ffp-contract=off,
// as block_encoder.cpp is).
J2K_T1_HD inline double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
J2K_T1_HD inline double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
J2K_T1_HD inline double sub_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
J2K_T1_HD inline double div_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

template <class Tables>
class BlockEncodePasses {
 public:
  // `slot`: `capacity` bytes (encode_slot_bytes()); `words`: encode_words() of them;
  // `passes`: kMaxEncodedPasses of them. The block: as encode_block() takes it.
  J2K_T1_HD BlockEncodePasses(const BlockView& b, uint8_t* slot, size_t capacity, uint32_t* words, EncodedPass* passes)
      : b_(b), w_(b.width), h_(b.height), stripes_((b.height + 3) / 4), pitch_(static_cast<ptrdiff_t>(b.width) + 2),
        slot_(slot), capacity_(capacity), words_(words), passes_(passes) {
    zc_ = Tables::zero_contexts(b.band);
    last_row_window_ = (b.modes & kModeCausal) ? kWindowAbove : kWindow;
    const size_t count = encode_words(w_, h_);
    for (size_t i = 0; i < count; ++i) words_[i] = 0;
    reset_contexts();
  }

  J2K_T1_HD EncodeResult run() {
    EncodeResult out;
    uint32_t all = 0;
    double energy = 0;
    for (int y = 0; y < h_; ++y)  // row by row, as encode_block() sums them
      for (int x = 0; x < w_; ++x) {
        const uint32_t m = mag(x, y);
        all |= m;
        energy = add_rn(energy, mul_rn(static_cast<double>(m), static_cast<double>(m)));
      }
    out.energy = div_rn(energy, static_cast<double>(uint64_t{1} << (2 * b_.fraction_bits)));
    all >>= b_.fraction_bits;
    int bitplanes = 0;
    while (bitplanes < 32 && (all >> bitplanes) != 0) ++bitplanes;
    out.bitplanes = static_cast<uint8_t>(bitplanes);
    if (bitplanes == 0) return out;
    const int total = 3 * bitplanes - 2;
    out.passes = static_cast<uint8_t>(total);
    const double unit = static_cast<double>(uint64_t{1} << (2 * b_.fraction_bits));
    segment_first_ = 0;
    written_ = 0;
    int n = 0;
    for (int p = bitplanes - 1; p >= 0; --p) {
      for (int k = 0; k < 3; ++k) {
        const PassKind kind = k == 0 ? PassKind::Significance : k == 1 ? PassKind::Refinement : PassKind::Cleanup;
        if (p == bitplanes - 1 && kind != PassKind::Cleanup) continue;  // the top plane: cleanup only
        // BYPASS (D.6): from the 11th pass, significance and refinement passes are raw.
        raw_ = (b_.modes & kModeBypass) && n >= 10 && kind != PassKind::Cleanup;
        if (n == segment_first_) start_segment();
        // The room of a column before any pass too: a pass that codes no column still ends
        // its segment (TERMALL).
        if (!room(mq_)) {
          out.status = kEncodeOutOfRoom;
          return out;
        }
        distortion_ = 0;
        if (kind == PassKind::Significance) significance_pass(p);
        else if (kind == PassKind::Refinement) refinement_pass(p);
        else cleanup_pass(p);
        if (out_of_room_) {
          out.status = kEncodeOutOfRoom;
          return out;
        }
        EncodedPass& pass = passes_[n];
        pass.distortion = div_rn(distortion_, unit);
        pass.terminated = terminated(n, total) ? 1 : 0;
        if (pass.terminated) {
          end_segment(n);
        } else if (raw_) {
          ends_[n] = PendingEnd{static_cast<uint32_t>(raw_bytes_needed()), 0, 0, 0, 0};
        } else {
          ends_[n] = PendingEnd{static_cast<uint32_t>(mq_.bp - (segment_ - 1)), mq_.c, mq_.a, static_cast<int8_t>(mq_.ct), *mq_.bp};
        }
        if (b_.modes & kModeReset) reset_contexts();
        ++n;
      }
    }
    out.bytes = static_cast<uint32_t>(written_);
    return out;
  }

 private:
  // Where a pass ends in its segment: the MQ coder's state then (raw passes: bytes only), as
  // MqEncoder::State has it, `bytes` counted from the byte before the segment.
  struct PendingEnd {
    uint32_t bytes;
    uint32_t c, a;
    int8_t ct;  // 0..12
    uint8_t b;
  };

  J2K_T1_HD bool terminated(int n, int total) const {
    if (n == total - 1 || (b_.modes & kModeTermAll)) return true;
    // BYPASS: the MQ codeword ends after the 10th pass; then every raw pair and every
    // cleanup pass is a segment of its own.
    return (b_.modes & kModeBypass) && (n == 9 || (n >= 10 && (n - 10) % 3 != 0));
  }

  // A segment starts at the slot's next byte, with a fresh coder of its kind (encode_block()
  // restarts each after its segment ends; a segment's passes are all raw or all MQ). The
  // MQ coder's byte before the codeword is the previous segment's last byte here: kept aside
  // and zeroed as MqEncoder's buf_[0] is, and put back when the segment ends.
  J2K_T1_HD void start_segment() {
    segment_ = slot_ + 1 + written_;
    if (raw_) {
      raw_count_ = 0;
      raw_cur_ = 0;
      raw_bits_ = 0;
    } else {
      before_ = segment_[-1];
      segment_[-1] = 0;
      mq_ = MqRegisters{};
      mq_.bp = segment_ - 1;
    }
  }

  // Terminates the codeword of passes segment_first_..n and fixes those passes' ends, as
  // encode_block()'s end_segment() (block_encoder.cpp says why each rule).
  J2K_T1_HD void end_segment(int n) {
    const bool predictable = (b_.modes & kModePredictable) != 0;
    size_t size;
    if (raw_) {
      raw_flush(predictable);
      size = raw_count_;
    } else {
      size = predictable ? mq_flush_predictable() : mq_flush();
      segment_[-1] = before_;
    }
    const uint8_t* seg = segment_;
    const size_t base = written_;
    for (int k = segment_first_; k < n; ++k) {
      const PendingEnd& e = ends_[k];
      size_t end = raw_ ? e.bytes : mq_truncation(e, seg, size);
      if (end > size) end = size;
      while (end > 0 && seg[end - 1] == 0xFF) --end;
      uint32_t e32 = static_cast<uint32_t>(base + end);
      if (k > 0 && passes_[k - 1].end > e32) e32 = passes_[k - 1].end;
      passes_[k].end = e32;
    }
    written_ = base + size;
    passes_[n].end = static_cast<uint32_t>(written_);
    segment_first_ = n + 1;
  }

  // encode_block()'s mq_truncation: the fewest bytes of codeword `seg` that decode every
  // decision made up to state `e`.
  J2K_T1_HD static size_t mq_truncation(const PendingEnd& e, const uint8_t* seg, size_t size) {
    const int top = 27 - e.ct;
    const uint64_t low = (uint64_t{e.b} << top) + e.c, high = low + e.a;
    for (size_t length = e.bytes; length < size; ++length) {
      uint64_t v = byte_of(seg, e.bytes) << top;
      int pos = top;
      for (size_t j = e.bytes + 1; j <= length && pos > 0; ++j) {
        pos -= byte_of(seg, j - 1) == 0xFF ? 7 : 8;
        const uint64_t bits = byte_of(seg, j);
        v += pos >= 0 ? bits << pos : bits >> -pos;
      }
      if (pos > 0) v += (uint64_t{1} << pos) - 1;
      if (v >= low && v < high) return length;
    }
    return size;
  }
  // Byte j (1-based) of the codeword; byte 0 is the zero before it (C.2.8).
  J2K_T1_HD static uint64_t byte_of(const uint8_t* seg, size_t j) { return j == 0 ? 0 : seg[j - 1]; }

  // MqEncoder::flush() and flush_predictable() on the registers: the codeword's size.
  J2K_T1_HD size_t mq_flush() {
    const uint32_t top = mq_.c + mq_.a;
    mq_.c |= 0xFFFF;
    if (mq_.c >= top) mq_.c -= 0x8000;
    mq_.c <<= mq_.ct;
    mq_byte_out(mq_);
    mq_.c <<= mq_.ct;
    mq_byte_out(mq_);
    return mq_size();
  }
  J2K_T1_HD size_t mq_flush_predictable() {
    int k = 11 - mq_.ct + 1;
    while (k > 0) {
      mq_.c <<= mq_.ct;
      mq_.ct = 0;
      mq_byte_out(mq_);
      k -= mq_.ct;
    }
    return mq_size();
  }
  // The codeword's bytes after a flush: to B, less a final 0xFF.
  J2K_T1_HD size_t mq_size() const {
    const size_t pos = static_cast<size_t>(mq_.bp - (segment_ - 1));
    return (*mq_.bp == 0xFF ? pos : pos + 1) - 1;
  }

  // RawEncoder's steps (raw_encoder.hpp) on the slot: a byte after 0xFF carries 7 bits.
  J2K_T1_HD int raw_full() const { return raw_count_ > 0 && segment_[raw_count_ - 1] == 0xFF ? 7 : 8; }
  J2K_T1_HD void raw_put(int bit) {
    raw_cur_ = static_cast<uint8_t>((raw_cur_ << 1) | bit);
    if (++raw_bits_ == raw_full()) {
      segment_[raw_count_++] = raw_cur_;
      raw_cur_ = 0;
      raw_bits_ = 0;
    }
  }
  J2K_T1_HD size_t raw_bytes_needed() const { return raw_count_ + (raw_bits_ ? 1 : 0); }
  J2K_T1_HD void raw_flush(bool predictable) {
    if (raw_bits_ > 0 || (predictable && raw_full() == 7)) {
      const int full = raw_full();
      for (int b = 0; raw_bits_ < full; ++raw_bits_, b ^= 1) raw_cur_ = static_cast<uint8_t>((raw_cur_ << 1) | b);
      segment_[raw_count_++] = raw_cur_;
      raw_cur_ = 0;
      raw_bits_ = 0;
    }
    if (raw_count_ > 0 && segment_[raw_count_ - 1] == 0xFF) --raw_count_;
  }

  // Whether the slot still has a column's room after the bytes put so far; if not the block
  // stops (kEncodeOutOfRoom).
  J2K_T1_HD bool room(const MqRegisters& r) {
    const size_t used = raw_ ? static_cast<size_t>(segment_ - slot_) + raw_count_ + 1 : static_cast<size_t>(r.bp - slot_) + 1;
    if (used + kEncodeColumnRoom <= capacity_) return true;
    out_of_room_ = true;
    return false;
  }

  J2K_T1_HD void reset_contexts() {
    for (int k = 0; k < kContexts; ++k) cx_[k] = MqContext{static_cast<uint8_t>(initial_state(k)), 0};
  }

  J2K_T1_HD void code(MqRegisters& r, int context, int d) {
    if (raw_) raw_put(d);
    else mq_encode_in<Tables>(r, cx_[context], d);
  }

  template <int I>
  J2K_T1_HD uint32_t window(uint32_t f) const { return (f >> (3 * I)) & (I == 3 ? last_row_window_ : kWindow); }
  J2K_T1_HD uint32_t* stripe_words(int s) const { return words_ + (s + 1) * pitch_ + 1; }
  // The magnitude of coefficient (x, y), as encode_block() keeps it (with its fraction bits).
  J2K_T1_HD uint32_t mag(int x, int y) const {
    const int64_t v = b_.data[y * b_.stride + x];
    return static_cast<uint32_t>(v < 0 ? -v : v);
  }
  J2K_T1_HD bool bit(uint32_t m, int p) const { return ((m >> (p + b_.fraction_bits)) & 1) != 0; }

  // encode_block()'s error_after: the squared error, in fraction units, of magnitude m once
  // plane p is decoded.
  J2K_T1_HD double error_after(uint32_t m, int p) const {
    const int s = p + b_.fraction_bits;
    const double below = static_cast<double>(m & ((uint32_t{1} << s) - 1));
    if (p == 0 && b_.reversible) return mul_rn(below, below);
    const double e = sub_rn(below, s > 0 ? static_cast<double>(uint32_t{1} << (s - 1)) : 0.5);
    return mul_rn(e, e);
  }

  template <int I>
  J2K_T1_HD void become_significant(MqRegisters& r, uint32_t* col, int x, uint32_t& f, int y, int p) {
    const uint32_t negative = b_.data[y * b_.stride + x] < 0 ? 1 : 0;
    if (raw_) {
      raw_put(static_cast<int>(negative));
    } else {
      const unsigned entry = Tables::sign_entry(sign_index<I>(window<I>(f), f, col[x - 1], col[x + 1]));
      mq_encode_in<Tables>(r, cx_[entry & 31], static_cast<int>(negative ^ (entry >> 7)));
    }
    mark_significant<I>(col, x, pitch_, f, negative);
    if (b_.estimate_distortion) {
      const uint32_t m = mag(x, y);
      distortion_ = add_rn(distortion_, sub_rn(mul_rn(static_cast<double>(m), static_cast<double>(m)), error_after(m, p)));
    }
  }

  template <int I>
  J2K_T1_HD void code_significance(MqRegisters& r, uint32_t* col, int x, uint32_t& f, uint32_t n, int y, int p) {
    const int b = bit(mag(x, y), p);
    code(r, zc_[n], b);
    if (b) become_significant<I>(r, col, x, f, y, p);
  }

  // D.3.1: the insignificant samples with a significant neighbour.
  J2K_T1_HD void significance_pass(int p) {
    MqRegisters r = mq_;
    for (int s = 0; s < stripes_ && !out_of_room_; ++s) {
      uint32_t* col = stripe_words(s);
      const int rows = h_ - 4 * s < 4 ? h_ - 4 * s : 4;
      for (int x = 0; x < w_; ++x) {
        uint32_t f = col[x];
        if ((f & kSigAround) == 0) continue;
        if (!room(r)) break;
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
    mq_ = r;
  }

  // D.3.3: a bit of each sample significant before this plane.
  J2K_T1_HD void refinement_pass(int p) {
    MqRegisters r = mq_;
    for (int s = 0; s < stripes_ && !out_of_room_; ++s) {
      uint32_t* col = stripe_words(s);
      const int rows = h_ - 4 * s < 4 ? h_ - 4 * s : 4;
      for (int x = 0; x < w_; ++x) {
        uint32_t f = col[x];
        if ((f & kOwnSig) == 0) continue;
        if (!room(r)) break;
        each_row(rows, [&](auto row) {
          constexpr int I = decltype(row)::value;
          if ((f & (own_sig(I) | visited(I))) != own_sig(I)) return;
          const int context = (f & refined(I)) ? kRefineBase + 2 : kRefineBase + ((window<I>(f) & ~kCentre) ? 1 : 0);
          const uint32_t m = mag(x, 4 * s + I);
          code(r, context, bit(m, p));
          f |= refined(I);
          if (b_.estimate_distortion) distortion_ = add_rn(distortion_, sub_rn(error_after(m, p + 1), error_after(m, p)));
        });
        col[x] = f;
      }
    }
    mq_ = r;
  }

  // D.3.4: the samples the significance pass left, a column of four with no significant
  // sample around run-length coded.
  J2K_T1_HD void cleanup_pass(int p) {
    MqRegisters r = mq_;
    const uint32_t quiet = kVisitedAll | (last_row_window_ == kWindow ? kSigAround : kSigAround & ~kRowBelow);
    for (int s = 0; s < stripes_ && !out_of_room_; ++s) {
      uint32_t* col = stripe_words(s);
      const int rows = h_ - 4 * s < 4 ? h_ - 4 * s : 4, y0 = 4 * s;
      for (int x = 0; x < w_; ++x) {
        if (!room(r)) break;
        uint32_t f = col[x];
        int from = 0;  // the first row coded one by one
        if (rows == 4 && (f & quiet) == 0) {
          int first = 0;
          while (first < 4 && !bit(mag(x, y0 + first), p)) ++first;
          mq_encode_in<Tables>(r, cx_[kRunLength], first < 4 ? 1 : 0);
          if (first == 4) continue;
          mq_encode_in<Tables>(r, cx_[kUniform], first >> 1);
          mq_encode_in<Tables>(r, cx_[kUniform], first & 1);
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
    if ((b_.modes & kModeSegmark) && !out_of_room_) {
      mq_encode_in<Tables>(r, cx_[kUniform], 1);
      mq_encode_in<Tables>(r, cx_[kUniform], 0);
      mq_encode_in<Tables>(r, cx_[kUniform], 1);
      mq_encode_in<Tables>(r, cx_[kUniform], 0);
    }
    mq_ = r;
  }

  const BlockView b_;
  int w_, h_, stripes_;
  ptrdiff_t pitch_;  // words from a stripe's column to the next stripe's
  uint8_t* slot_;
  size_t capacity_;
  uint32_t* words_;
  EncodedPass* passes_;
  const uint8_t* zc_ = nullptr;  // Table D.1 for the band (kWindowZeroContexts)
  uint32_t last_row_window_ = kWindow;
  MqContext cx_[kContexts];
  MqRegisters mq_;
  uint8_t* segment_ = nullptr;  // the current segment's first byte in the slot
  uint8_t before_ = 0;          // the slot's byte before an MQ segment, while it codes
  size_t written_ = 0;          // the block's bytes in its finished segments
  size_t raw_count_ = 0;        // a raw segment's complete bytes
  uint8_t raw_cur_ = 0;
  int raw_bits_ = 0;
  bool raw_ = false;
  bool out_of_room_ = false;
  double distortion_ = 0;
  int segment_first_ = 0;
  PendingEnd ends_[kMaxEncodedPasses];
};

}  // namespace j2k::codec::t1
