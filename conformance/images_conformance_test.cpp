// SPDX-License-Identifier: BSD-2-Clause
// The sample images through the j2kfront CLI, against OpenJPEG 2.5.0's own pieces:
// tiles cut by this test from (B-7)/(B-12), the DC level shift as OpenJPEG's tcd.c does it
// (v - 2^(prec-1) in int32; (float)(v - 2^(prec-1)) for the 9/7: that function is static in
// libopenjp2, so it is restated here), opj_mct_encode(_real), opj_dwt_encode(_real).
// Every coefficient file is compared word for word; every band rectangle in layout.json is
// checked against (B-15) computed here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "conformance/annex_f_reference.hpp"
#include "conformance/openjpeg_oracle.hpp"
#include "io/image_io.hpp"
#include "tests/support/npy_reader.hpp"
#include "tests/support/run_command.hpp"

namespace fs = std::filesystem;
using j2k::Rect;

namespace {

struct Setting {
  std::string args;
  bool reversible;
  int levels;
  int64_t tile_w, tile_h, tile_x0, tile_y0, image_x0, image_y0;
  bool mct_off;
};

const Setting kSettings[] = {
    {"", true, 5, 0, 0, 0, 0, 0, 0, false},
    {"--wavelet 9/7", false, 5, 0, 0, 0, 0, 0, 0, false},
    {"--tile-size 128,96 --tile-origin 3,5 --image-origin 17,11 --levels 4", true, 4, 128, 96, 3, 5, 17, 11, false},
    {"--wavelet 9/7 --tile-size 200,150 --tile-origin 0,1 --image-origin 1,1 --levels 6 --mct off", false, 6, 200, 150, 0, 1, 1, 1, true},
    {"--levels 12 --image-origin 1,3", true, 12, 0, 0, 0, 0, 1, 3, false},
    {"--wavelet 9/7 --levels 11 --image-origin 65537,131073 --tile-origin 65536,131072 --tile-size 300,301", false, 11, 300, 301, 65536, 131072, 65537, 131073, false},
};

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t cdiv_signed(int64_t a, int64_t b) { return a >= 0 ? cdiv(a, b) : -((-a) / b); }

// Sample i (row-major) of a component, whatever its width, as int32.
int32_t sample(const j2kfront::Image::Component& k, size_t i) {
  const unsigned char* p = k.bytes.data() + i * k.sample_size();
  switch (k.type) {
    case J2K_SAMPLE_U8: return *p;
    case J2K_SAMPLE_I8: return static_cast<int8_t>(*p);
    case J2K_SAMPLE_U16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case J2K_SAMPLE_I16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    default: { int32_t v; std::memcpy(&v, p, 4); return v; }
  }
}

bool is_signed(j2k_sample_type t) { return t == J2K_SAMPLE_I8 || t == J2K_SAMPLE_I16 || t == J2K_SAMPLE_I32; }

struct Tally {
  long files = 0, words = 0, mismatches = 0, bands = 0, vs_annex_f = 0;
};

void check_image(const std::string& path, const Setting& s, const fs::path& outdir, Tally& t) {
  fs::remove_all(outdir);
  const auto r = test_support::run_command(test_support::quote(J2K_CLI_PATH) + " transform " +
                                           test_support::quote(path) + " " +
                                           test_support::quote(outdir.string()) + " --backend cpu " + s.args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const j2kfront::Image im = j2k::io::read_image(path);
  std::ifstream lf(outdir / "layout.json");
  const auto layout = nlohmann::json::parse(lf);
  const int64_t ix0 = s.image_x0, iy0 = s.image_y0, ix1 = ix0 + im.width, iy1 = iy0 + im.height;
  const int64_t tw = s.tile_w ? s.tile_w : ix1 - s.tile_x0, th = s.tile_h ? s.tile_h : iy1 - s.tile_y0;
  const int64_t ntx = cdiv(ix1 - s.tile_x0, tw), nty = cdiv(iy1 - s.tile_y0, th);
  const size_t nc = im.components.size();
  const bool mct = !s.mct_off && nc >= 3;
  size_t index = 0;
  for (int64_t q = 0; q < nty; ++q)
    for (int64_t p = 0; p < ntx; ++p) {
      const Rect tile{std::max(s.tile_x0 + p * tw, ix0), std::max(s.tile_y0 + q * th, iy0),
                      std::min(s.tile_x0 + (p + 1) * tw, ix1), std::min(s.tile_y0 + (q + 1) * th, iy1)};
      std::vector<std::vector<int32_t>> ints(nc);
      std::vector<std::vector<float>> floats(nc);
      for (size_t c = 0; c < nc; ++c) {
        const j2kfront::Image::Component& k = im.components[c];
        const int32_t shift = is_signed(k.type) ? 0 : 1 << (k.precision - 1);
        for (int64_t y = tile.y0; y < tile.y1; ++y)
          for (int64_t x = tile.x0; x < tile.x1; ++x) {
            const int32_t v = sample(k, static_cast<size_t>((y - iy0) * im.width + (x - ix0)));
            ints[c].push_back(v - shift);
            floats[c].push_back(static_cast<float>(v - shift));
          }
      }
      if (mct && s.reversible) oracle::mct_forward(ints[0], ints[1], ints[2]);
      if (mct && !s.reversible) oracle::mct_forward(floats[0], floats[1], floats[2]);
      for (size_t c = 0; c < nc; ++c, ++index) {
        const auto& entry = layout["tile_components"][index];
        ASSERT_EQ(entry["tile"], q * ntx + p);
        ASSERT_EQ(entry["component"], c);
        const auto wavelet = s.reversible ? j2k::Wavelet::Reversible53 : j2k::Wavelet::Irreversible97;
        const bool bug = oracle::known_bug(wavelet, tile, s.levels) != oracle::KnownBug::None;
        t.vs_annex_f += bug;
        std::vector<uint32_t> expect(ints[c].size());
        if (s.reversible) {
          bug ? annex_f::forward53(ints[c], tile, s.levels) : oracle::forward53(ints[c], tile, s.levels);
          std::memcpy(expect.data(), ints[c].data(), expect.size() * 4);
        } else {
          bug ? annex_f::forward97(floats[c], tile, s.levels) : oracle::forward97(floats[c], tile, s.levels);
          std::memcpy(expect.data(), floats[c].data(), expect.size() * 4);
        }
        const auto npy = test_support::read_npy((outdir / entry["file"].get<std::string>()).string());
        ASSERT_EQ(npy.descr, s.reversible ? "<i4" : "<f4");
        ASSERT_EQ(npy.rows, tile.height());
        ASSERT_EQ(npy.cols, tile.width());
        long diff = 0;
        for (size_t i = 0; i < expect.size(); ++i) diff += npy.words[i] != expect[i];
        EXPECT_EQ(diff, 0) << path << " " << s.args << " tile " << entry["tile"] << " comp " << c;
        t.mismatches += diff;
        t.words += static_cast<long>(expect.size());
        ++t.files;
        // Bands: (B-15) with xo/yo offsets, and each at the position the pyramid implies.
        for (const auto& b : entry["bands"]) {
          const std::string type = b["type"];
          const int nb = b["level"];
          const int64_t xo = (type == "HL" || type == "HH"), yo = (type == "LH" || type == "HH");
          const int64_t d = int64_t{1} << nb, h = nb > 0 ? d / 2 : 0;
          const Rect want{cdiv_signed(tile.x0 - h * xo, d), cdiv_signed(tile.y0 - h * yo, d),
                          cdiv_signed(tile.x1 - h * xo, d), cdiv_signed(tile.y1 - h * yo, d)};
          EXPECT_EQ(b["rect"]["x0"], want.x0);
          EXPECT_EQ(b["rect"]["y0"], want.y0);
          EXPECT_EQ(b["rect"]["x1"], want.x1);
          EXPECT_EQ(b["rect"]["y1"], want.y1);
          const int64_t lw = cdiv(tile.x1, d) - cdiv(tile.x0, d), lh = cdiv(tile.y1, d) - cdiv(tile.y0, d);
          EXPECT_EQ(b["col"], xo ? lw : 0);
          EXPECT_EQ(b["row"], yo ? lh : 0);
          ++t.bands;
        }
      }
    }
  EXPECT_EQ(index, layout["tile_components"].size());
}

TEST(ImagesConformance, SampleImagesThroughTheCliMatchOpenJpeg) {
  ASSERT_TRUE(oracle::version_problem().empty()) << oracle::version_problem();
  const fs::path data = J2K_TEST_DATA_DIR;
  std::vector<std::string> images;
  for (const auto& e : fs::directory_iterator(data)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".tif" || ext == ".pgm" || ext == ".ppm") images.push_back(e.path().string());
  }
  std::sort(images.begin(), images.end());
  ASSERT_GE(images.size(), 10u) << "sample images missing from " << data;
  const fs::path out = fs::temp_directory_path() / ("j2kfront_images_" + std::to_string(::getpid()));
  Tally t;
  for (const std::string& img : images)
    for (const Setting& s : kSettings) check_image(img, s, out, t);
  fs::remove_all(out);
  std::cout << "[conformance] images through the CLI: " << images.size() << " images x "
            << std::size(kSettings) << " settings, " << t.files << " coefficient files, " << t.words
            << " words compared (" << t.vs_annex_f << " tile-components judged by Annex F), "
            << t.bands << " band rectangles checked, " << t.mismatches << " mismatches\n";
  EXPECT_EQ(t.mismatches, 0);
}

}  // namespace
