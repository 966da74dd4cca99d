// SPDX-License-Identifier: BSD-2-Clause
// The encoder's front stage a row of code-blocks at a time (EncoderSettings::front_by_stripes,
// pipeline/row_front_stage.hpp, each stripe's blocks coded as it is made) against the plan's
// whole planes: the same codestream byte for byte, HT and EBCOT, the 5/3 and the 9/7 (lossless,
// a quantisation step, EBCOT rates), with and without the MCT, 8-, 12- and 16-bit samples,
// signed, odd origins and sizes, 1-sample-wide and -tall images, as many levels as the size
// allows, code-blocks 64x64 to 4x1024 and 1024x4, precincts, one, two, nine and sixteen threads; and where it
// does not apply (HT with a rate target, tiles), the whole planes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/encoder.hpp"
#include "tests/support/pattern_images.hpp"

namespace {

struct Case {
  const char* what;
  uint32_t x0, y0, w, h;
  int ncomp;
  j2k_sample_type type;
  int precision;
  int levels;
  bool irreversible;
  int bw_log2, bh_log2;
  bool ht;
  double qstep;               // the 9/7's relative step; 0: the default
  std::vector<double> rates;  // EBCOT's layers
  bool precincts;
  int threads;
};

struct Encoded {
  std::vector<uint8_t> bytes;
  bool by_stripes = false;
};

Encoded encode(const Case& k, const j2kfront::Image& image, bool stripes, int64_t tile = 0) {
  j2k::codec::EncoderSettings e;
  e.plan.wavelet = k.irreversible ? j2k::Wavelet::Irreversible97 : j2k::Wavelet::Reversible53;
  e.plan.levels = k.levels;
  e.plan.tile_w = e.plan.tile_h = tile;
  e.plan.backend = j2k::BackendOptions(j2k::Backend::Cpu, k.threads);
  e.coding.block_coding = k.ht ? j2k::codec::BlockCoding::HighThroughput : j2k::codec::BlockCoding::Ebcot;
  e.coding.levels = k.levels;
  e.coding.block_w_log2 = k.bw_log2, e.coding.block_h_log2 = k.bh_log2;
  if (k.precincts)
    for (int r = 0; r <= k.levels; ++r) e.coding.precincts.push_back(r == 0 ? std::pair{4, 5} : std::pair{5, 4});
  e.coding.relative_step = k.qstep;
  e.layer_rates = k.rates;
  e.coding.layers = k.rates.empty() ? 1 : static_cast<int>(k.rates.size());
  e.front_by_stripes = stripes;
  const j2kfront::ImageView v = image.view();
  j2k::codec::Encoder encoder(e, *v.get());
  Encoded out;
  out.by_stripes = encoder.by_stripes();
  out.bytes = encoder.encode(*v.get());
  return out;
}

TEST(EncoderByStripes, SameCodestreamAsWholePlanes) {
  const std::vector<Case> cases = {
      {"RGB 8-bit HT 5/3", 0, 0, 300, 200, 3, J2K_SAMPLE_U8, 8, 5, false, 6, 6, true, 0, {}, false, 1},
      {"RGB 8-bit HT 9/7 qstep, odd origin", 3, 5, 301, 197, 3, J2K_SAMPLE_U8, 8, 5, true, 6, 6, true, 0.007, {}, false, 2},
      {"RGB 8-bit HT 9/7, 32x32", 1, 0, 257, 131, 3, J2K_SAMPLE_U8, 8, 4, true, 5, 5, true, 0, {}, false, 1},
      {"grey 16-bit HT 5/3, 16x16", 0, 1, 129, 260, 1, J2K_SAMPLE_U16, 16, 3, false, 4, 4, true, 0, {}, false, 2},
      {"grey 12-bit HT 9/7, 4x1024", 7, 2, 1100, 70, 1, J2K_SAMPLE_U16, 12, 3, true, 10, 2, true, 0.01, {}, false, 1},
      {"grey 12-bit HT 5/3, 1024x4", 0, 3, 90, 300, 1, J2K_SAMPLE_U16, 12, 2, false, 2, 10, true, 0, {}, false, 1},
      {"signed 16-bit HT 9/7, precincts", 2, 9, 150, 140, 2, J2K_SAMPLE_I16, 16, 4, true, 6, 6, true, 0, {}, true, 2},
      {"signed 8-bit HT 5/3, no MCT pair", 0, 0, 77, 66, 2, J2K_SAMPLE_I8, 8, 3, false, 5, 5, true, 0, {}, false, 1},
      {"RGBA 8-bit HT 5/3, precincts", 4, 4, 200, 99, 4, J2K_SAMPLE_U8, 8, 5, false, 6, 6, true, 0, {}, true, 1},
      {"1 wide at x0 5, HT 5/3", 5, 0, 1, 70, 1, J2K_SAMPLE_U8, 8, 2, false, 6, 6, true, 0, {}, false, 1},
      {"1 tall at y0 3, HT 9/7", 0, 3, 90, 1, 3, J2K_SAMPLE_U8, 8, 1, true, 6, 6, true, 0, {}, false, 1},
      {"levels up to the size, HT 9/7", 1, 1, 33, 40, 1, J2K_SAMPLE_U8, 8, 5, true, 6, 6, true, 0, {}, false, 1},
      {"RGB 8-bit EBCOT 5/3", 0, 0, 130, 140, 3, J2K_SAMPLE_U8, 8, 4, false, 6, 6, false, 0, {}, false, 2},
      {"RGB 8-bit EBCOT 9/7 -r 20,5", 3, 1, 161, 120, 3, J2K_SAMPLE_U8, 8, 4, true, 5, 5, false, 0, {20, 5}, false, 1},
      {"grey 16-bit EBCOT 9/7 16x16, precincts", 0, 7, 100, 90, 1, J2K_SAMPLE_U16, 16, 3, true, 4, 4, false, 0, {}, true, 2},
      {"RGB 8-bit HT 5/3 -r 1 (lossless last layer)", 0, 0, 120, 100, 3, J2K_SAMPLE_U8, 8, 3, false, 6, 6, true, 0, {1}, false, 1},
      {"RGB 8-bit HT 9/7 qstep, 16 threads", 1, 2, 700, 300, 3, J2K_SAMPLE_U8, 8, 5, true, 5, 5, true, 0.007, {}, false, 16},
      {"grey 16-bit HT 5/3, 9 threads", 0, 0, 515, 260, 1, J2K_SAMPLE_U16, 16, 4, false, 5, 5, true, 0, {}, false, 9}};
  for (const Case& k : cases)
    for (int pattern : {0, 1}) {
      const std::string what = std::string(k.what) + (pattern ? ", smooth" : ", random");
      SCOPED_TRACE(what);
      const j2kfront::Image image =
          test_support::pattern_image(k.x0, k.y0, k.w, k.h, k.ncomp, k.type, k.precision, pattern, 21 + static_cast<unsigned>(pattern));
      const Encoded whole = encode(k, image, false), stripes = encode(k, image, true);
      EXPECT_FALSE(whole.by_stripes);
      EXPECT_TRUE(stripes.by_stripes);
      EXPECT_TRUE(whole.bytes == stripes.bytes) << "sizes " << whole.bytes.size() << " and " << stripes.bytes.size();
    }
}

TEST(EncoderByStripes, RefusesASampleOutsideItsPrecisionAsWholePlanes) {
  j2kfront::Image image = test_support::pattern_image(0, 0, 70, 90, 3, J2K_SAMPLE_U8, 5, 1, 7);
  image.components[1].bytes[70 * 80 + 3] = 200;  // above 2^5 - 1, in the last stripe
  const Case k{"5-bit in 8", 0, 0, 70, 90, 3, J2K_SAMPLE_U8, 5, 3, true, 5, 5, true, 0, {}, false, 1};
  std::string whole, stripes;
  try {
    encode(k, image, false);
  } catch (const j2k::Error& e) {
    whole = e.what();
  }
  try {
    encode(k, image, true);
  } catch (const j2k::Error& e) {
    stripes = e.what();
  }
  EXPECT_FALSE(whole.empty());
  EXPECT_EQ(stripes, whole);
}

TEST(EncoderByStripes, WholePlanesWhereItDoesNotApply) {
  const j2kfront::Image image = test_support::pattern_image(0, 0, 100, 80, 3, J2K_SAMPLE_U8, 8, 1, 5);
  Case k{"HT -r 10", 0, 0, 100, 80, 3, J2K_SAMPLE_U8, 8, 3, true, 6, 6, true, 0, {10}, false, 1};
  EXPECT_FALSE(encode(k, image, true).by_stripes);  // HT rate control codes the blocks again
  k.rates.clear();
  EXPECT_TRUE(encode(k, image, true).by_stripes);
  EXPECT_FALSE(encode(k, image, true, 64).by_stripes);  // tiles
  k.threads = 16;  // on any number of threads
  EXPECT_TRUE(encode(k, image, true).by_stripes);
}

}  // namespace
