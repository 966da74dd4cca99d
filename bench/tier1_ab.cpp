// SPDX-License-Identifier: BSD-2-Clause
// tier1_ab: two builds of the Tier-1 block coders (shared objects made by bench/tier1_ab.sh
// from two revisions) code and decode the same code-blocks in one process, in turns, and each
// set of blocks is timed for both: the ratio B/A is the change in block coding or decoding
// alone, free of Tier-2, the DWT, rate control and file I/O, and of the drift between runs.
// The two must also code every block to the same bytes and pass ends, and decode it to the
// same coefficients (else exit 1, naming the block).
//
// The blocks: the 64x64 code-blocks of each sample image's components after a 5-level 5/3
// DWT (DC-shifted, no MCT). Encoding codes every pass of each block, and in the lossy set
// estimates each pass's distortion, as rate control needs. Decoding reads this build's
// encoder's codewords, every pass (lossless), or all but the last three bit planes' passes
// (lossy: as a lossy stream's layers leave them).
//
// With --coder ht the HT block coders instead: each block's HT set at plane 0 (lossless: its
// cleanup pass alone), or at plane 3 (lossy: cleanup, SigProp and MagRef, in two segments).
//
// With --bench-images SIZE the images are instead those the decompress benchmark codes, made
// from the same samples at SIZE x SIZE (bench_images.hpp: upscaled, with a camera's noise, the
// 16-bit set from moon.pgm): their noisy low planes hold more of the decisions than the samples'.
//
//   tier1_ab A.so B.so [--coder ebcot|ht] [--samples DIR] [--rounds N] [--bench-images SIZE]
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_images.hpp"
#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier1/ht/block_encoder.hpp"
#include "common/error.hpp"
#include "io/image_io.hpp"
#include "transform/dwt.hpp"

namespace {

using DecodeFn = int (*)(const uint8_t*, size_t, const uint32_t*, const int*, size_t, int, int, int, int, int, int32_t*,
                         ptrdiff_t);
using EncodeFn = long (*)(const int32_t*, ptrdiff_t, int, int, int, int, int, uint8_t*, size_t, uint32_t*, int*);

struct Variant {
  DecodeFn decode;
  EncodeFn encode;
};

Variant load(const std::string& path, bool ht) {
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) throw j2k::Error(j2k::ErrorCode::InvalidArgument, path + ": " + dlerror());
  const std::string prefix = ht ? "tier1_variant_ht_" : "tier1_variant_";
  Variant v{reinterpret_cast<DecodeFn>(dlsym(lib, (prefix + "decode").c_str())),
            reinterpret_cast<EncodeFn>(dlsym(lib, (prefix + "encode").c_str()))};
  if (v.decode == nullptr || v.encode == nullptr)
    throw j2k::Error(j2k::ErrorCode::InvalidArgument, path + ": no " + prefix + "decode/encode (made by bench/tier1_ab.sh?)");
  return v;
}

struct Block {
  const int32_t* source = nullptr;  // the coefficients it was coded from
  ptrdiff_t stride = 0;
  std::vector<uint8_t> bytes;
  uint32_t segment_bytes[2] = {0, 0};
  int segment_passes[2] = {0, 0};
  size_t segments = 1;
  int passes = 0, width = 0, height = 0, bitplanes = 0;
  int cleanup_plane = 0;  // HT
  j2k_band_type band = J2K_BAND_LL;
  std::string where;  // image, component, band origin
};

// The 64x64 blocks of one band [x0, x1) x [y0, y1) of a transformed component, with what this
// build's encoder makes of them for the decoders to read.
void cut_band(const std::vector<int32_t>& v, int64_t stride, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
              j2k_band_type band, int drop_planes, bool ht, const std::string& name, std::vector<Block>& out) {
  for (int64_t by = y0; by < y1; by += 64)
    for (int64_t bx = x0; bx < x1; bx += 64) {
      j2k::codec::BlockView view;
      view.data = v.data() + by * stride + bx;
      view.stride = stride;
      view.width = static_cast<int>(std::min<int64_t>(64, x1 - bx));
      view.height = static_cast<int>(std::min<int64_t>(64, y1 - by));
      view.band = band;
      view.estimate_distortion = false;
      view.cleanup_plane = drop_planes;
      Block b;
      if (ht) {
        const j2k::codec::CodedBlock coded = j2k::codec::ht::encode_block(view);
        if (coded.passes.empty()) continue;  // nothing significant at the plane
        b.passes = static_cast<int>(coded.passes.size());
        b.segment_bytes[0] = coded.passes[0].end;
        b.segment_passes[0] = 1;
        if (b.passes > 1) {
          b.segments = 2;
          b.segment_bytes[1] = coded.passes.back().end - coded.passes[0].end;
          b.segment_passes[1] = b.passes - 1;
        }
        b.bytes = coded.bytes;
        b.bitplanes = coded.bitplanes;
        b.cleanup_plane = drop_planes;
      } else {
        const j2k::codec::CodedBlock coded = j2k::codec::encode_block(view);
        const int keep = static_cast<int>(coded.passes.size()) - 3 * drop_planes;
        if (keep < 1) continue;  // all zero, or no pass left
        b.passes = keep;
        b.segment_bytes[0] = coded.passes[static_cast<size_t>(keep - 1)].end;
        b.segment_passes[0] = keep;
        b.bytes = std::vector<uint8_t>(coded.bytes.begin(), coded.bytes.begin() + b.segment_bytes[0]);
        b.bitplanes = coded.bitplanes;
      }
      b.source = view.data;
      b.stride = view.stride;
      b.width = view.width;
      b.height = view.height;
      b.band = band;
      b.where = name + " at " + std::to_string(bx) + "," + std::to_string(by);
      out.push_back(std::move(b));
    }
}

// The blocks of the images' transformed components, which `planes` keeps.
std::vector<Block> blocks_of(const std::vector<std::string>& images, int drop_planes, bool ht,
                             std::vector<std::vector<int32_t>>& planes) {
  constexpr int kLevels = 5;
  std::vector<Block> out;
  j2k::Dwt dwt(j2k::BackendOptions(j2k::Backend::Cpu, 1));
  for (const std::string& path : images) {
    const j2kfront::Image image = j2k::io::read_image(path);
    const auto w = static_cast<int64_t>(image.width), h = static_cast<int64_t>(image.height);
    for (size_t c = 0; c < image.components.size(); ++c) {
      const auto& k = image.components[c];
      planes.emplace_back(static_cast<size_t>(w * h));
      std::vector<int32_t>& v = planes.back();
      const int32_t shift = int32_t{1} << (k.precision - 1);
      for (size_t i = 0; i < v.size(); ++i)
        v[i] = (k.sample_size() == 2 ? int32_t{reinterpret_cast<const uint16_t*>(k.bytes.data())[i]} : int32_t{k.bytes[i]}) - shift;
      dwt.forward53(v.data(), static_cast<size_t>(w), j2k::Rect{0, 0, w, h}, kLevels);
      // The pyramid: level l's low part is the first ceil(size / 2^l) columns and rows.
      const std::string name = path.substr(path.find_last_of('/') + 1) + " component " + std::to_string(c);
      int64_t lw = w, lh = h;
      for (int l = 1; l <= kLevels; ++l) {
        const int64_t nw = (lw + 1) / 2, nh = (lh + 1) / 2;
        cut_band(v, w, nw, 0, lw, nh, J2K_BAND_HL, drop_planes, ht, name, out);
        cut_band(v, w, 0, nh, nw, lh, J2K_BAND_LH, drop_planes, ht, name, out);
        cut_band(v, w, nw, nh, lw, lh, J2K_BAND_HH, drop_planes, ht, name, out);
        lw = nw;
        lh = nh;
      }
      cut_band(v, w, 0, 0, lw, lh, J2K_BAND_LL, drop_planes, ht, name, out);
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> libs;
    std::string samples = "tests/data";
    int rounds = 15;
    long bench_size = 0;
    bool ht = false, bad_coder = false;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--samples" && i + 1 < argc) samples = argv[++i];
      else if (a == "--coder" && i + 1 < argc) {
        const std::string coder = argv[++i];
        ht = coder == "ht";
        bad_coder = coder != "ht" && coder != "ebcot";
      }
      else if (a == "--rounds" && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
      else if (a == "--bench-images" && i + 1 < argc) {
        char* end = nullptr;
        bench_size = std::strtol(argv[++i], &end, 10);
        if (*end != '\0' || bench_size < 16) bench_size = -1;  // refused below
      } else {
        libs.push_back(a);
      }
    }
    if (libs.size() != 2 || bench_size < 0 || bench_size > 8192 || bad_coder) {
      std::fprintf(stderr,
                   "usage: tier1_ab A.so B.so [--coder ebcot|ht] [--samples DIR] [--rounds N] [--bench-images SIZE (16..8192)]   "
                   "(bench/tier1_ab.sh makes the objects)\n");
      return 2;
    }
    const Variant fn[2] = {load(libs[0], ht), load(libs[1], ht)};
    if (ht) std::printf("the HT block coders\n");
    struct Set {
      const char* name;
      std::vector<std::string> images;
      int drop_planes;
    };
    std::vector<std::string> eight = {samples + "/astronaut.ppm", samples + "/coffee.ppm", samples + "/camera.pgm"};
    std::vector<std::string> sixteen = {samples + "/moon_u16.tif"};
    const j2k::bench::ScratchDir scratch;
    if (bench_size > 0) {
      for (std::string& image : eight) image = j2k::bench::make_input(image, bench_size, false, scratch.path);
      sixteen = {j2k::bench::make_input(samples + "/moon.pgm", bench_size, true, scratch.path)};
      std::printf("the benchmark's images at %ldx%ld\n", bench_size, bench_size);
    }
    const std::vector<Set> sets = {{"8-bit, lossless", eight, 0}, {"16-bit, lossless", sixteen, 0}, {"8-bit, lossy", eight, 3}};
    std::printf("%-34s %7s %10s %10s %7s\n", "blocks", "count", "A ms", "B ms", "B/A");
    std::vector<int32_t> out[2] = {std::vector<int32_t>(4096), std::vector<int32_t>(4096)};
    std::vector<uint8_t> coded[2] = {std::vector<uint8_t>(1 << 20), std::vector<uint8_t>(1 << 20)};
    std::vector<uint32_t> ends[2] = {std::vector<uint32_t>(96), std::vector<uint32_t>(96)};
    auto timed = [&](const char* what, const Set& set, size_t count, auto&& run) {
      double best[2] = {1e30, 1e30};
      for (int r = 0; r < rounds; ++r)
        for (int v = 0; v < 2; ++v) {
          const auto t0 = std::chrono::steady_clock::now();
          run(v);
          best[v] = std::min(best[v], std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
      std::printf("%-34s %7zu %10.1f %10.1f %7.3f\n", (std::string(what) + set.name).c_str(), count, best[0], best[1],
                  best[1] / best[0]);
    };
    for (const Set& set : sets) {
      const bool needs_tiff = std::any_of(set.images.begin(), set.images.end(), [](const std::string& path) {
        return path.size() > 4 && path.compare(path.size() - 4, 4, ".tif") == 0;
      });
      if (needs_tiff && !J2K_TIER1_AB_HAVE_TIFF) {
        std::printf("%-34s skipped: this build reads no TIFF (libtiff not found)\n", set.name);
        continue;
      }
      std::vector<std::vector<int32_t>> planes;
      const std::vector<Block> blocks = blocks_of(set.images, set.drop_planes, ht, planes);
      const int estimate = set.drop_planes > 0 ? 1 : 0;  // rate control estimates distortion
      auto decode = [&](int v, const Block& b) {
        return fn[v].decode(b.bytes.data(), b.bytes.size(), b.segment_bytes, b.segment_passes, b.segments, b.width, b.height,
                            b.band, 0, b.bitplanes, out[v].data(), b.width);
      };
      auto encode = [&](int v, const Block& b, int& passes) {
        // The 5th argument: EBCOT's mode switches (none), HT's cleanup plane.
        return fn[v].encode(b.source, b.stride, b.width, b.height, b.band, b.cleanup_plane, estimate, coded[v].data(),
                            coded[v].size(), ends[v].data(), &passes);
      };
      for (const Block& b : blocks) {
        int passes[2] = {0, 0};
        const long size_a = encode(0, b, passes[0]), size_b = encode(1, b, passes[1]);
        const bool same_bytes =
            size_a == size_b && std::memcmp(coded[0].data(), coded[1].data(), static_cast<size_t>(std::max(0L, size_a))) == 0;
        if (!same_bytes || passes[0] != passes[1] || !std::equal(ends[0].begin(), ends[0].begin() + passes[0], ends[1].begin())) {
          std::fprintf(stderr, "tier1_ab: A and B code the block of %s differently (%ld and %ld bytes)\n", b.where.c_str(),
                       size_a, size_b);
          return 1;
        }
        const int passes_a = decode(0, b), passes_b = decode(1, b);
        if (passes_a != b.passes || passes_b != b.passes ||
            std::memcmp(out[0].data(), out[1].data(), sizeof(int32_t) * static_cast<size_t>(b.width * b.height)) != 0) {
          std::fprintf(stderr, "tier1_ab: A and B decode the block of %s differently (passes %d and %d of %d)\n",
                       b.where.c_str(), passes_a, passes_b, b.passes);
          return 1;
        }
      }
      timed("encode ", set, blocks.size(), [&](int v) {
        int passes = 0;
        for (const Block& b : blocks) encode(v, b, passes);
      });
      timed("decode ", set, blocks.size(), [&](int v) {
        for (const Block& b : blocks) decode(v, b);
      });
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tier1_ab: %s\n", e.what());
    return 1;
  }
}
