// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's decoder (j2k_decoder_*, j2kfront::Decoder), through the public headers
// only: images encoded by the API's encoder come back as views of the decoder's buffers with
// the image's area, types and samples (lossless: the original, unsigned and signed, 8 and 12
// bits, subsampled components, at an origin); reduce, tile and region; the report of a cut
// stream; and every bad argument or stream a status naming the cause.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "j2kfront/j2kfront.hpp"

namespace {

// An image of `nc` planes with `type` samples of `precision` bits at an origin, deterministic.
j2kfront::Image make_image(uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, int nc, j2k_sample_type type, int precision,
                           int dx = 1, int dy = 1) {
  j2kfront::Image img;
  img.x0 = x0, img.y0 = y0, img.width = w, img.height = h;
  for (int c = 0; c < nc; ++c) {
    auto& k = img.add_component(type, precision, c == 0 ? 1 : dx, c == 0 ? 1 : dy);
    const bool is_signed = type == J2K_SAMPLE_I8 || type == J2K_SAMPLE_I16;
    const int64_t lo = is_signed ? -(int64_t{1} << (precision - 1)) : 0, range = int64_t{1} << precision;
    for (int64_t y = 0; y < k.height; ++y)
      for (int64_t x = 0; x < k.width; ++x) {
        const int64_t v = lo + ((x * 7 + y * 13 + c * 29 + (x * y) % 17) % range);
        if (k.sample_size() == 1) k.row<uint8_t>(y)[x] = static_cast<uint8_t>(v);
        else k.row<uint16_t>(y)[x] = static_cast<uint16_t>(v);
      }
  }
  return img;
}

std::vector<uint8_t> encode(const j2kfront::Image& img, int levels = 4, uint32_t tile = 0) {
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = levels;
  s.tile_w = s.tile_h = tile;
  j2kfront::Encoder encoder(s, j2kfront::Coding(), img.view());
  return encoder.encode(img.view());
}

TEST(DecoderApi, LosslessImagesComeBackAsTheyWere) {
  struct Case {
    uint32_t x0, y0, w, h;
    int nc;
    j2k_sample_type type;
    int precision, dx, dy;
  };
  for (const Case& k : {Case{0, 0, 64, 48, 3, J2K_SAMPLE_U8, 8, 1, 1}, Case{5, 3, 37, 29, 1, J2K_SAMPLE_U16, 12, 1, 1},
                        Case{0, 0, 40, 30, 2, J2K_SAMPLE_I16, 12, 1, 1}, Case{0, 0, 33, 17, 1, J2K_SAMPLE_I8, 7, 1, 1},
                        Case{1, 1, 50, 40, 3, J2K_SAMPLE_U8, 8, 2, 2}}) {
    const j2kfront::Image img = make_image(k.x0, k.y0, k.w, k.h, k.nc, k.type, k.precision, k.dx, k.dy);
    const std::vector<uint8_t> bytes = encode(img);
    j2kfront::Decoder decoder;
    const j2k_image_view v = decoder.decode(bytes.data(), bytes.size());
    const std::string what = "type " + std::to_string(k.type) + ", " + std::to_string(k.nc) + " components";
    EXPECT_EQ(v.x0, k.x0) << what;
    EXPECT_EQ(v.y0, k.y0) << what;
    EXPECT_EQ(v.width, k.w) << what;
    EXPECT_EQ(v.height, k.h) << what;
    EXPECT_EQ(v.memory, J2K_MEMORY_HOST);
    ASSERT_EQ(v.num_components, k.nc) << what;
    for (int c = 0; c < k.nc; ++c) {
      const j2k_component_view& got = v.components[c];
      const auto& want = img.components[static_cast<size_t>(c)];
      EXPECT_EQ(got.type, want.type) << what;
      EXPECT_EQ(got.precision, want.precision) << what;
      EXPECT_EQ(got.dx, want.dx) << what;
      EXPECT_EQ(got.dy, want.dy) << what;
      ASSERT_EQ(got.bytes, want.bytes.size()) << what << ", component " << c;
      EXPECT_EQ(std::memcmp(got.data, want.bytes.data(), got.bytes), 0) << what << ", component " << c;
    }
    const j2k_decode_report r = decoder.report();
    EXPECT_EQ(r.truncated, 0);
    EXPECT_EQ(r.jp2, 0);
    EXPECT_STREQ(r.warnings, "");
    // The copy into an Image holds the same.
    const j2kfront::Image again = decoder.decode_image(bytes.data(), bytes.size());
    ASSERT_EQ(again.components.size(), img.components.size());
    for (size_t c = 0; c < img.components.size(); ++c) EXPECT_EQ(again.components[c].bytes, img.components[c].bytes) << what;
  }
}

TEST(DecoderApi, ReduceTileAndRegionGiveTheirAreas) {
  const j2kfront::Image img = make_image(3, 2, 100, 70, 1, J2K_SAMPLE_U8, 8);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.tile_w = 32, s.tile_h = 32;
  j2kfront::Encoder encoder(s, j2kfront::Coding(), img.view());
  const std::vector<uint8_t> bytes = encoder.encode(img.view());

  j2kfront::DecodeSettings d;
  d.reduce = 1;  // [2, 52) x [1, 36): ceil(3/2) .. ceil(103/2), ceil(2/2) .. ceil(72/2)
  j2k_image_view v = j2kfront::Decoder(d).decode(bytes.data(), bytes.size());
  EXPECT_EQ(v.x0, 2u);
  EXPECT_EQ(v.y0, 1u);
  EXPECT_EQ(v.width, 50u);
  EXPECT_EQ(v.height, 35u);

  // A region: the same samples as the whole image's there.
  j2kfront::DecodeSettings r;
  r.region = j2k_rect{10, 20, 45, 31};
  j2kfront::Decoder region(r);
  v = region.decode(bytes.data(), bytes.size());
  ASSERT_EQ(v.width, 35u);
  ASSERT_EQ(v.height, 11u);
  const auto* got = static_cast<const uint8_t*>(v.components[0].data);
  for (uint32_t y = 0; y < v.height; ++y)
    for (uint32_t x = 0; x < v.width; ++x)
      ASSERT_EQ(got[y * v.width + x], img.components[0].row<uint8_t>(20 - 2 + y)[10 - 3 + x]) << x << "," << y;

  // Tile 5 of the 4 x 3 grid from (0,0): [32, 64) x [32, 64).
  j2kfront::DecodeSettings t;
  t.tile = 5;
  v = j2kfront::Decoder(t).decode(bytes.data(), bytes.size());
  EXPECT_EQ(v.x0, 32u);
  EXPECT_EQ(v.y0, 32u);
  EXPECT_EQ(v.width, 32u);
  EXPECT_EQ(v.height, 32u);
}

j2k_status decode_status(const j2k_decode_settings& s, const std::vector<uint8_t>& bytes, std::string* message) {
  j2k_decoder* d = nullptr;
  j2k_status st = j2k_decoder_create(&s, &d);
  if (st == J2K_OK) {
    j2k_image_view v{};
    st = j2k_decoder_run(d, bytes.data(), bytes.size(), &v);
  }
  *message = j2k_last_error();
  j2k_decoder_destroy(d);
  return st;
}

TEST(DecoderApi, BadArgumentsAndStreamsAreStatusesWithTheCause) {
  const std::vector<uint8_t> bytes = encode(make_image(0, 0, 40, 30, 1, J2K_SAMPLE_U8, 8), 3);
  std::string why;
  struct Bad {
    j2k_decode_settings s;
    j2k_status status;
    const char* says;
  };
  std::vector<Bad> bad;
  auto with = [](auto change) {
    j2k_decode_settings s;
    j2k_decode_settings_default(&s);
    change(s);
    return s;
  };
  static const int kComponent5[] = {5};
  bad.push_back({with([](j2k_decode_settings& s) { s.reduce = -1; }), J2K_INVALID_ARGUMENT, "reduce"});
  bad.push_back({with([](j2k_decode_settings& s) { s.reduce = 4; }), J2K_INVALID_ARGUMENT, "decomposition levels"});
  bad.push_back({with([](j2k_decode_settings& s) { s.layers = -1; }), J2K_INVALID_ARGUMENT, "layers"});
  bad.push_back({with([](j2k_decode_settings& s) { s.tile = 1; }), J2K_INVALID_ARGUMENT, "tile 1"});
  bad.push_back({with([](j2k_decode_settings& s) { s.tile = -2; }), J2K_INVALID_ARGUMENT, "tile"});
  bad.push_back({with([](j2k_decode_settings& s) { s.num_components = 1; }), J2K_INVALID_ARGUMENT, "num_components"});
  bad.push_back({with([](j2k_decode_settings& s) { s.num_components = 1, s.components = kComponent5; }), J2K_INVALID_ARGUMENT,
                 "component 5"});
  bad.push_back({with([](j2k_decode_settings& s) { s.region = j2k_rect{50, 0, 60, 10}; }), J2K_INVALID_ARGUMENT, "region"});
  bad.push_back({with([](j2k_decode_settings& s) { s.max_bytes = 1000; }), J2K_OUT_OF_MEMORY, "MiB"});
  // The encoder's range of threads (at most 8 per core, at least 64 allowed): 100000 is past it.
  bad.push_back({with([](j2k_decode_settings& s) { s.threads = 100000; }), J2K_INVALID_ARGUMENT, "threads must be 0 (one per core) to"});
  bad.push_back({with([](j2k_decode_settings& s) { s.threads = -1; }), J2K_INVALID_ARGUMENT, "threads must be 0 (one per core) to"});
  for (const Bad& b : bad) {
    EXPECT_EQ(decode_status(b.s, bytes, &why), b.status) << b.says << ": " << why;
    EXPECT_NE(why.find(b.says), std::string::npos) << why;
  }
  j2k_decode_settings s;
  j2k_decode_settings_default(&s);
  // Not a codestream, an empty one, a cut one.
  EXPECT_EQ(decode_status(s, std::vector<uint8_t>{1, 2, 3, 4}, &why), J2K_CORRUPT_INPUT) << why;
  EXPECT_EQ(decode_status(s, std::vector<uint8_t>{}, &why), J2K_CORRUPT_INPUT) << why;
  const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(bytes.size() / 2));
  EXPECT_EQ(decode_status(s, cut, &why), J2K_CORRUPT_INPUT) << why;
  // ... which allow_partial decodes, saying so.
  s.allow_partial = 1;
  j2k_decoder* d = nullptr;
  ASSERT_EQ(j2k_decoder_create(&s, &d), J2K_OK);
  j2k_image_view v{};
  EXPECT_EQ(j2k_decoder_run(d, cut.data(), cut.size(), &v), J2K_OK) << j2k_last_error();
  j2k_decode_report r{};
  EXPECT_EQ(j2k_decoder_get_report(d, &r), J2K_OK);
  EXPECT_EQ(r.truncated, 1);
  EXPECT_EQ(v.width, 40u);
  // Null arguments.
  EXPECT_EQ(j2k_decoder_run(d, cut.data(), cut.size(), nullptr), J2K_INVALID_ARGUMENT);
  EXPECT_EQ(j2k_decoder_run(nullptr, cut.data(), cut.size(), &v), J2K_INVALID_ARGUMENT);
  EXPECT_EQ(j2k_decoder_run(d, nullptr, 10, &v), J2K_INVALID_ARGUMENT);
  EXPECT_EQ(j2k_decoder_get_report(d, nullptr), J2K_INVALID_ARGUMENT);
  EXPECT_EQ(j2k_decoder_create(nullptr, &d), J2K_INVALID_ARGUMENT);
  j2k_decoder_destroy(d);
  j2k_decoder_destroy(nullptr);
}

}  // namespace

namespace {

// One decoder per backend decodes image after image (its back stage kept: on a GPU its queue
// and buffers), through a corrupt stream in between, and every image is the original.
// A JP2 file cut short inside its Contiguous Codestream box (a download that stopped): an
// error naming the box, or with allow_partial the image its codestream holds so far, as
// opj_decompress and grk_decompress read it.
TEST(DecoderApi, CutJp2FilesDecodeWithAllowPartial) {
  const j2kfront::Image img = make_image(0, 0, 64, 48, 3, J2K_SAMPLE_U8, 8);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 3;
  j2kfront::Coding coding;
  coding.format = J2K_FORMAT_JP2;
  j2kfront::Encoder encoder(s, coding, img.view());
  const std::vector<uint8_t> jp2 = encoder.encode(img.view());
  const std::vector<uint8_t> cut(jp2.begin(), jp2.begin() + static_cast<ptrdiff_t>(jp2.size() * 2 / 3));
  j2k_decode_settings d;
  j2k_decode_settings_default(&d);
  std::string why;
  EXPECT_EQ(decode_status(d, cut, &why), J2K_CORRUPT_INPUT) << why;
  EXPECT_NE(why.find("jp2c"), std::string::npos) << why;
  d.allow_partial = 1;
  j2k_decoder* decoder = nullptr;
  ASSERT_EQ(j2k_decoder_create(&d, &decoder), J2K_OK);
  j2k_image_view v{};
  EXPECT_EQ(j2k_decoder_run(decoder, cut.data(), cut.size(), &v), J2K_OK) << j2k_last_error();
  j2k_decode_report r{};
  EXPECT_EQ(j2k_decoder_get_report(decoder, &r), J2K_OK);
  EXPECT_EQ(r.truncated, 1);
  EXPECT_EQ(r.jp2, 1);
  EXPECT_EQ(v.width, 64u);
  EXPECT_EQ(v.num_components, 3);
  // The whole file is not cut.
  EXPECT_EQ(j2k_decoder_run(decoder, jp2.data(), jp2.size(), &v), J2K_OK) << j2k_last_error();
  EXPECT_EQ(j2k_decoder_get_report(decoder, &r), J2K_OK);
  EXPECT_EQ(r.truncated, 0);
  j2k_decoder_destroy(decoder);
}

// A JP2 file's metadata through the API: the encoder's ICC profile (colr method 2), capture
// resolution and boxes (j2k_coding) come back in the decoder's report, the profile unapplied
// without convert_colour or with keep_icc, and at reduce 1 the resolution halves. Metadata for a
// bare codestream, a UUID box without its UUID, a box of the file's own, a broken profile or one
// of the wrong colour space, and half a resolution are refused naming why.
TEST(DecoderApi, Jp2MetadataComesBackInTheReport) {
  const j2kfront::Image img = make_image(0, 0, 32, 24, 3, J2K_SAMPLE_U8, 8);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 3;
  j2kfront::Coding coding;
  coding.format = J2K_FORMAT_JP2;
  coding.icc_profile.assign(140, 0);
  coding.icc_profile[3] = 140;
  std::memcpy(coding.icc_profile.data() + 16, "RGB ", 4);
  std::memcpy(coding.icc_profile.data() + 36, "acsp", 4);
  coding.resolution_x = 11811, coding.resolution_y = 5000;
  const std::string xmp = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>";
  coding.boxes.push_back(j2kfront::uuid_box(J2K_UUID_XMP, std::vector<uint8_t>(xmp.begin(), xmp.end())));
  coding.boxes.push_back({J2K_BOX_XML, {'<', 'a', '/', '>'}});
  j2kfront::Encoder encoder(s, coding, img.view());
  const std::vector<uint8_t> jp2 = encoder.encode(img.view());

  for (int keep : {0, 1}) {
    SCOPED_TRACE(keep ? "convert_colour with keep_icc" : "no colour conversion");
    j2kfront::DecodeSettings d;
    d.convert_colour = keep;
    d.keep_icc = keep;
    j2kfront::Decoder decoder(d);
    const j2k_image_view v = decoder.decode(jp2.data(), jp2.size());
    EXPECT_EQ(std::memcmp(v.components[0].data, img.components[0].bytes.data(), img.components[0].bytes.size()), 0);
    const j2k_decode_report r = decoder.report();
    ASSERT_EQ(r.icc_profile_size, coding.icc_profile.size());
    EXPECT_EQ(std::memcmp(r.icc_profile, coding.icc_profile.data(), r.icc_profile_size), 0);
    EXPECT_EQ(r.icc_applied, 0);
    EXPECT_EQ(r.enum_cs, 0);
    EXPECT_DOUBLE_EQ(r.resolution_x, 11811);
    EXPECT_DOUBLE_EQ(r.resolution_y, 5000);
    ASSERT_EQ(r.num_boxes, 2);
    EXPECT_EQ(r.boxes[0].type, J2K_BOX_UUID);
    ASSERT_EQ(r.boxes[0].size, 16 + xmp.size());
    EXPECT_EQ(std::memcmp(r.boxes[0].data, J2K_UUID_XMP, 16), 0);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(r.boxes[0].data) + 16, xmp.size()), xmp);
    EXPECT_EQ(r.boxes[1].type, J2K_BOX_XML);
    EXPECT_EQ(r.boxes[1].size, 4u);
  }
  j2kfront::DecodeSettings half;
  half.reduce = 1;
  j2kfront::Decoder reduced(half);
  reduced.decode(jp2.data(), jp2.size());
  EXPECT_DOUBLE_EQ(reduced.report().resolution_x, 11811 / 2.0);
  EXPECT_DOUBLE_EQ(reduced.report().resolution_y, 2500);
  // A codestream has no metadata.
  j2kfront::Decoder plain;
  const std::vector<uint8_t> j2k = encode(img);
  plain.decode(j2k.data(), j2k.size());
  EXPECT_EQ(plain.report().icc_profile, nullptr);
  EXPECT_EQ(plain.report().num_boxes, 0);
  EXPECT_EQ(plain.report().resolution_x, 0);

  const auto refused = [&](j2kfront::Coding c, const std::string& cause) {
    SCOPED_TRACE(cause);
    j2k_encoder* e = nullptr;
    EXPECT_EQ(j2k_encoder_create(&s, c.get(), img.view().get(), &e), J2K_INVALID_ARGUMENT);
    EXPECT_NE(std::string(j2k_last_error()).find(cause), std::string::npos) << j2k_last_error();
    EXPECT_EQ(j2k_coding_check(&s, c.get(), 3), J2K_INVALID_ARGUMENT);
    j2k_encoder_destroy(e);
  };
  j2kfront::Coding c = coding;
  c.format = J2K_FORMAT_J2K;
  refused(c, "need J2K_FORMAT_JP2");
  c = coding;
  c.boxes = {{J2K_BOX_UUID, {1, 2, 3}}};
  refused(c, "a UUID box starts with its 16-byte UUID");
  c.boxes = {{0x6A703263u, {1, 2, 3}}};  // 'jp2c'
  refused(c, "one of the file's own boxes");
  c = coding;
  c.icc_profile.pop_back();
  refused(c, "icc_profile: its header says 140 bytes, and 139 are there");
  c = coding;
  std::memcpy(c.icc_profile.data() + 16, "CMYK", 4);
  refused(c, "a 'CMYK' profile, and the image has 3 components");
  c = coding;
  c.resolution_y = 0;
  refused(c, "both 0 (none) or both grid points per metre above 0");
  c.resolution_y = 1e200;
  c.resolution_x = 1e200;
  refused(c, "beyond what a Resolution box holds");
}

// The default display resolution (j2k_coding's display_resolution_x/_y, a resd box) comes back
// in the report's display_resolution_x/_y, and as its resolution_x/_y where no capture
// resolution is given; both halve at reduce 1. Half a pair, zero, a negative or infinite value
// and values a resd box cannot hold are refused naming why.
TEST(DecoderApi, DisplayResolutionComesBackInTheReport) {
  const j2kfront::Image img = make_image(0, 0, 20, 12, 1, J2K_SAMPLE_U8, 8);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 2;
  j2kfront::Coding coding;
  coding.format = J2K_FORMAT_JP2;
  coding.display_resolution_x = 72 / 0.0254, coding.display_resolution_y = 3000;
  std::vector<uint8_t> jp2 = j2kfront::Encoder(s, coding, img.view()).encode(img.view());
  j2kfront::Decoder decoder;
  decoder.decode(jp2.data(), jp2.size());
  EXPECT_NEAR(decoder.report().display_resolution_x * 0.0254, 72, 1e-9);
  EXPECT_NEAR(decoder.report().display_resolution_y, 3000, 1e-9);
  EXPECT_NEAR(decoder.report().resolution_x * 0.0254, 72, 1e-9) << "no resc: the display one";
  coding.resolution_x = coding.resolution_y = 11811;
  jp2 = j2kfront::Encoder(s, coding, img.view()).encode(img.view());
  j2kfront::DecodeSettings half;
  half.reduce = 1;
  j2kfront::Decoder reduced(half);
  reduced.decode(jp2.data(), jp2.size());
  EXPECT_DOUBLE_EQ(reduced.report().resolution_x, 11811 / 2.0) << "resc first";
  EXPECT_NEAR(reduced.report().display_resolution_y, 1500, 1e-9);

  const auto refused = [&](double x, double y, const std::string& cause) {
    SCOPED_TRACE(std::to_string(x) + ", " + std::to_string(y));
    j2kfront::Coding c = coding;
    c.display_resolution_x = x, c.display_resolution_y = y;
    EXPECT_EQ(j2k_coding_check(&s, c.get(), 1), J2K_INVALID_ARGUMENT);
    EXPECT_NE(std::string(j2k_last_error()).find(cause), std::string::npos) << j2k_last_error();
  };
  refused(72, 0, "display_resolution_x and display_resolution_y are both 0 (none) or both grid points per metre above 0");
  refused(-72, -72, "both grid points per metre above 0");
  refused(HUGE_VAL, 1, "both grid points per metre above 0");
  refused(1e140, 1, "beyond what a Resolution box holds");
  refused(1, 1e-140, "beyond what a Resolution box holds");
  j2kfront::Coding bare = coding;
  bare.format = J2K_FORMAT_J2K;
  bare.resolution_x = bare.resolution_y = 0;
  EXPECT_EQ(j2k_coding_check(&s, bare.get(), 1), J2K_INVALID_ARGUMENT);
  EXPECT_NE(std::string(j2k_last_error()).find("need J2K_FORMAT_JP2"), std::string::npos) << j2k_last_error();
}

TEST(DecoderApi, OneDecoderManyImagesOnEveryBackend) {
  const j2kfront::Image small = make_image(3, 1, 37, 29, 3, J2K_SAMPLE_U8, 8);
  const j2kfront::Image large = make_image(0, 0, 300, 200, 1, J2K_SAMPLE_U16, 12);
  const std::vector<uint8_t> a = encode(small), b = encode(large, 5, 64);
  std::vector<uint8_t> corrupt = a;
  for (size_t i = corrupt.size() / 2; i < corrupt.size() - 2; i += 7) corrupt[i] ^= 0x5A;
  // Cut in its last tiles: an error while the first tiles' work is in flight.
  const std::vector<uint8_t> cut(b.begin(), b.begin() + static_cast<ptrdiff_t>(b.size() * 9 / 10));
  int ran = 0;
  for (j2k_backend backend : {J2K_BACKEND_CPU, J2K_BACKEND_CUDA, J2K_BACKEND_OPENCL}) {
    const char* why = nullptr;
    if (!j2k_backend_available(backend, &why)) {
      std::printf("[decoder] %s skipped: %s\n", j2k_backend_name(backend), why ? why : "?");
      continue;
    }
    ++ran;
    j2kfront::DecodeSettings s;
    s.backend = backend;
    j2kfront::Decoder decoder(s);
    const std::vector<std::pair<const std::vector<uint8_t>*, const j2kfront::Image*>> order = {
        {&a, &small}, {&b, &large}, {&corrupt, nullptr}, {&a, &small}, {&cut, nullptr}, {&b, &large}, {&a, &small}};
    for (size_t i = 0; i < order.size(); ++i) {
      const std::vector<uint8_t>& bytes = *order[i].first;
      const std::string what = std::string(j2k_backend_name(backend)) + ", image " + std::to_string(i);
      if (!order[i].second) {
        // Damage may be caught (an error) or decode to something; either way no crash, and the
        // decoder goes on. The cut one must be an error.
        bool failed = false;
        try {
          decoder.decode(bytes.data(), bytes.size());
        } catch (const j2kfront::Error&) {
          failed = true;
        }
        if (&bytes == &cut) {
          EXPECT_TRUE(failed) << what;
        }
        continue;
      }
      const j2kfront::Image got = decoder.decode_image(bytes.data(), bytes.size());
      ASSERT_EQ(got.components.size(), order[i].second->components.size()) << what;
      for (size_t c = 0; c < got.components.size(); ++c)
        EXPECT_EQ(got.components[c].bytes, order[i].second->components[c].bytes) << what << ", component " << c;
    }
  }
  EXPECT_GE(ran, 1);
}

}  // namespace
