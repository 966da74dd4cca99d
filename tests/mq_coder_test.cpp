// SPDX-License-Identifier: BSD-2-Clause
// The MQ encoder and decoder (codec/tier1) against the standard's own worked example: the test
// sequence of ITU-T T.88 Annex H.2 (the same coder as ISO/IEC 15444-1 Annex C), 256 decisions
// in one context that starts at index 0 with MPS 0. T.88's FLUSH appends the marker 0xFF 0xAC
// to the 28 bytes below; JPEG 2000's ends the codeword without it.
#include <gtest/gtest.h>

#include <vector>

#include "codec/tier1/ebcot/mq_decoder.hpp"
#include "codec/tier1/ebcot/mq_encoder.hpp"

namespace {

using j2k::codec::MqContext;
using j2k::codec::MqDecoder;
using j2k::codec::MqDecoderContext;
using j2k::codec::MqEncoder;

const std::vector<uint8_t> kDecisions = {0x00, 0x02, 0x00, 0x51, 0x00, 0x00, 0x00, 0xC0, 0x03, 0x52, 0x87,
                                         0x2A, 0xAA, 0xAA, 0xAA, 0xAA, 0x82, 0xC0, 0x20, 0x00, 0xFC, 0xD7,
                                         0x9E, 0xF6, 0xBF, 0x7F, 0xED, 0x90, 0x4F, 0x46, 0xA3, 0xBF};
const std::vector<uint8_t> kCodeword = {0x84, 0xC7, 0x3B, 0xFC, 0xE1, 0xA1, 0x43, 0x04, 0x02, 0x20,
                                        0x00, 0x00, 0x41, 0x0D, 0xBB, 0x86, 0xF4, 0x31, 0x7F, 0xFF,
                                        0x88, 0xFF, 0x37, 0x47, 0x1A, 0xDB, 0x6A, 0xDF};

TEST(MqEncoder, StandardTestSequence) {
  MqEncoder mq;
  MqContext cx;
  for (uint8_t byte : kDecisions)
    for (int bit = 7; bit >= 0; --bit) mq.encode(cx, (byte >> bit) & 1);
  mq.flush();
  EXPECT_EQ(std::vector<uint8_t>(mq.data(), mq.data() + mq.size()), kCodeword);
}

// The standard's codeword read back with one of the decoder's two ways of deciding.
void expect_standard_sequence(int (MqDecoder::*decide)(MqDecoderContext&)) {
  MqDecoder mq(kCodeword.data(), kCodeword.size());
  MqDecoderContext cx;
  for (size_t k = 0; k < kDecisions.size(); ++k) {
    uint8_t byte = 0;
    for (int bit = 7; bit >= 0; --bit) byte = static_cast<uint8_t>(byte | (mq.*decide)(cx) << bit);
    ASSERT_EQ(byte, kDecisions[k]) << "decision byte " << k;
  }
}

TEST(MqDecoder, StandardTestSequence) { expect_standard_sequence(&MqDecoder::decode); }

// decode_even() computes the same decision without branches: the standard's sequence read
// with it alone, and codewords of skewed and even decisions read with the two mixed at random.
TEST(MqDecoder, EvenDecodeReadsWhatDecodeReads) {
  expect_standard_sequence(&MqDecoder::decode_even);
  if (HasFatalFailure()) return;
  uint32_t seed = 777;
  for (int run = 0; run < 40; ++run) {
    MqEncoder enc;
    MqContext cx[19];
    std::vector<std::pair<int, int>> coded;  // (context, decision)
    for (int k = 0; k < 20000; ++k) {
      seed = seed * 1103515245u + 12345u;
      const int context = static_cast<int>((seed >> 8) % 19);
      // Contexts 0..9 skewed by the run, the others even.
      const uint32_t odds = context < 10 ? static_cast<uint32_t>(run % 8) : 32u;
      const int d = ((seed >> 16) & 63) < odds ? 1 : 0;
      enc.encode(cx[context], d);
      coded.emplace_back(context, d);
    }
    enc.flush();
    MqDecoder dec(enc.data(), enc.size());
    MqDecoderContext dx[19];
    for (size_t k = 0; k < coded.size(); ++k) {
      seed = seed * 1103515245u + 12345u;
      MqDecoderContext& c = dx[coded[k].first];
      const int d = (seed >> 20) & 1 ? dec.decode_even(c) : dec.decode(c);
      ASSERT_EQ(d, coded[k].second) << "run " << run << " decision " << k;
    }
  }
}

// Annex C's decoder as the standard draws it (Figures C.15 to C.20): a 32-bit C, one byte in
// each time CT runs out, one shift at a time. The oracle for the decoder's 64-bit register and
// its reading ahead.
class AnnexCDecoder {
 public:
  AnnexCDecoder(const uint8_t* data, size_t size) : data_(data), size_(size) {
    c_ = static_cast<uint32_t>(byte(0)) << 16;
    byte_in();
    c_ <<= 7;
    ct_ -= 7;
    a_ = 0x8000;
  }
  // DECODE with Table C.2's states: `state` and `mps` are the context's.
  int decode(int& state, int& mps) {
    const uint32_t qe = j2k::codec::mq_detail::kStates[state].qe;
    int d;
    a_ -= qe;
    if ((c_ >> 16) < qe) {  // LPS_EXCHANGE
      if (a_ < qe) {
        d = mps;
        state = j2k::codec::mq_detail::kStates[state].nmps;
      } else {
        d = 1 - mps;
        if (j2k::codec::mq_detail::kStates[state].swap) mps = 1 - mps;
        state = j2k::codec::mq_detail::kStates[state].nlps;
      }
      a_ = qe;
      renormalise();
    } else {
      c_ -= qe << 16;
      if (a_ & 0x8000) return mps;
      if (a_ < qe) {  // MPS_EXCHANGE
        d = 1 - mps;
        if (j2k::codec::mq_detail::kStates[state].swap) mps = 1 - mps;
        state = j2k::codec::mq_detail::kStates[state].nlps;
      } else {
        d = mps;
        state = j2k::codec::mq_detail::kStates[state].nmps;
      }
      renormalise();
    }
    return d;
  }

 private:
  uint8_t byte(size_t k) const { return pos_ + k < size_ ? data_[pos_ + k] : 0xFF; }
  void byte_in() {
    if (byte(0) == 0xFF) {
      if (byte(1) > 0x8F) {
        c_ += 0xFF00;
        ct_ = 8;
      } else {
        ++pos_;
        c_ += static_cast<uint32_t>(byte(0)) << 9;
        ct_ = 7;
      }
    } else {
      ++pos_;
      c_ += static_cast<uint32_t>(byte(0)) << 8;
      ct_ = 8;
    }
  }
  void renormalise() {
    do {
      if (ct_ == 0) byte_in();
      a_ <<= 1;
      c_ <<= 1;
      --ct_;
    } while ((a_ & 0x8000) == 0);
  }
  const uint8_t* data_;
  size_t size_, pos_ = 0;
  uint32_t a_ = 0, c_ = 0;
  int ct_ = 0;
};

// Any bytes, not only an encoder's: runs of 0xFF, 0xFF before a carry (0x80 to 0x8F), before
// a marker (0x90 and above) and before an ordinary byte, codewords of 0 to 60 bytes read far
// past their end, every context state and MPS at the start; decode() and decode_even() mixed.
// Each decision must be Annex C's.
TEST(MqDecoder, EveryDecisionAsAnnexCWhateverTheBytes) {
  uint32_t seed = 2026;
  auto next = [&seed] {
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
  };
  for (int run = 0; run < 4000; ++run) {
    std::vector<uint8_t> bytes(next() % 61);
    for (uint8_t& b : bytes) {
      const uint32_t kind = next() % 8;
      b = kind < 2 ? 0xFF : kind == 2 ? static_cast<uint8_t>(0x80 + next() % 16) : kind == 3 ? static_cast<uint8_t>(0x90 + next() % 0x6F) : static_cast<uint8_t>(next());
    }
    AnnexCDecoder reference(bytes.data(), bytes.size());
    MqDecoder mq(bytes.data(), bytes.size());
    int state[19], mps[19];
    MqDecoderContext cx[19];
    for (int k = 0; k < 19; ++k) {
      state[k] = static_cast<int>(next() % 47);
      mps[k] = static_cast<int>(next() & 1);
      cx[k] = MqDecoderContext(state[k], mps[k]);
    }
    for (int k = 0; k < 800; ++k) {
      const auto context = static_cast<size_t>(next() % 19);
      const int expected = reference.decode(state[context], mps[context]);
      const int got = next() & 1 ? mq.decode_even(cx[context]) : mq.decode(cx[context]);
      ASSERT_EQ(got, expected) << "run " << run << ", " << bytes.size() << " bytes, decision " << k;
    }
  }
}

// Bit stuffing: whatever the decisions, a byte after 0xFF is below 0x90 (no marker), and the
// codeword does not end in 0xFF; the decoder reads every decision back.
TEST(MqCoder, NoMarkersInsideTheCodewordAndRoundTrip) {
  uint32_t seed = 12345;
  for (int run = 0; run < 50; ++run) {
    MqEncoder mq;
    MqContext cx[19];
    const uint32_t start = seed;
    for (int k = 0; k < 20000; ++k) {
      seed = seed * 1103515245u + 12345u;
      // Skewed decisions in a few contexts: long MPS runs make 0xFF bytes likely.
      mq.encode(cx[(seed >> 8) % 19], ((seed >> 16) & 63) < static_cast<uint32_t>(run % 8) ? 1 : 0);
    }
    mq.flush();
    ASSERT_GT(mq.size(), 0u);
    // The decoder reads back every decision (the same seed replays them).
    MqDecoder dec(mq.data(), mq.size());
    MqDecoderContext dx[19];
    uint32_t replay = start;
    for (int k = 0; k < 20000; ++k) {
      replay = replay * 1103515245u + 12345u;
      const int d = ((replay >> 16) & 63) < static_cast<uint32_t>(run % 8) ? 1 : 0;
      ASSERT_EQ(dec.decode(dx[(replay >> 8) % 19]), d) << "run " << run << " decision " << k;
    }
    for (size_t i = 0; i + 1 < mq.size(); ++i) {
      if (mq.data()[i] == 0xFF) {
        ASSERT_LT(mq.data()[i + 1], 0x90) << "run " << run << " byte " << i;
      }
    }
    EXPECT_NE(mq.data()[mq.size() - 1], 0xFF) << "run " << run;
  }
}

}  // namespace
