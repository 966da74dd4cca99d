// SPDX-License-Identifier: BSD-2-Clause
#include "codec/profiles.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "common/error.hpp"

namespace j2k::codec {
namespace {

[[noreturn]] void bad(const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); }

// Precincts of both families: 2^7 at the lowest resolution, 2^8 above it.
constexpr int kLowestPrecinct = 7, kPrecinct = 8;
constexpr int kBlockLog2 = 5;  // 32 x 32 code-blocks
constexpr int kCinemaPrecision = 12;

// IMF (Table A.53): a main level's most samples a second (millions), and a sub level's most
// bits a second (millions); the most sub level each main level allows (0: unspecified).
constexpr double kMainLevelMsamples[] = {0, 65, 130, 195, 260, 520, 1200, 2400, 4800, 9600, 19200, 38400};
constexpr double kSubLevelMbits[] = {0, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200};
constexpr int kMostSubLevel[] = {15, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9};
constexpr int kMostMainLevel = 11;

struct Named {
  Profile profile;
  const char* name;
};
constexpr Named kNames[] = {{Profile::Cinema2k, "cinema2k"}, {Profile::Cinema4k, "cinema4k"}, {Profile::Imf2k, "imf2k"},
                            {Profile::Imf4k, "imf4k"},       {Profile::Imf8k, "imf8k"},       {Profile::Imf2kR, "imf2k_r"},
                            {Profile::Imf4kR, "imf4k_r"},    {Profile::Imf8kR, "imf8k_r"}};

// A frame rate as people write it: 24, 29.97.
std::string rate_text(double fps) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", fps);
  return text;
}

std::string name_of(Profile p) {
  for (const Named& n : kNames)
    if (n.profile == p) return n.name;
  return "none";
}

// IMF _R: the most levels its tiles' width allows (none below 1024 columns).
int reversible_levels_for_tile(uint32_t tile_w) {
  return tile_w >= 8192 ? 7 : tile_w >= 4096 ? 6 : tile_w >= 2048 ? 5 : tile_w >= 1024 ? 4 : 32;
}

// IMF _R's tile sizes besides one tile: 1024; 2048 for 4K_R and 8K_R; 4096 for 8K_R.
bool allowed_reversible_tile(Profile p, uint32_t side) {
  return side == 1024 || (side == 2048 && (p == Profile::Imf4kR || p == Profile::Imf8kR)) || (side == 4096 && p == Profile::Imf8kR);
}

}  // namespace

bool is_imf(Profile p) { return static_cast<int>(p) >= static_cast<int>(Profile::Imf2k); }

Profile profile_from_name(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const Named& n : kNames)
    if (lower == n.name) return n.profile;
  return Profile::None;
}

ProfileLimits profile_limits(const ProfileRequest& r) {
  ProfileLimits l;
  l.name = name_of(r.profile);
  if (!(r.fps >= 0) || !std::isfinite(r.fps)) bad("the frame rate must be a number above 0, not " + rate_text(r.fps));
  switch (r.profile) {
    case Profile::Cinema2k:
    case Profile::Cinema4k: {
      // DCI: 250 Mbit/s at most, 1,302,083 bytes a frame at 24 fps and half at 48 (opj_compress's
      // figures); one component at most 1,041,666 bytes at 24 fps.
      const double fps = r.fps == 0 ? 24 : r.fps;
      l.cinema = true;
      if (r.profile == Profile::Cinema2k) {
        if (fps != 24 && fps != 48) bad("the cinema 2K profile is for 24 or 48 frames a second, not " + rate_text(r.fps));
        l.max_width = 2048, l.max_height = 1080, l.max_levels = 5;
      } else {
        if (fps != 24) bad("the cinema 4K profile is for 24 frames a second, not " + rate_text(r.fps));
        l.max_width = 4096, l.max_height = 2160, l.max_levels = 6;
      }
      l.stream_bytes = fps == 48 ? 651041 : 1302083;
      l.component_bytes = fps == 48 ? 520833 : 1041666;
      if (r.mainlevel != 0 || r.sublevel != 0) bad("main and sub levels are IMF's, not the cinema profiles'");
      return l;
    }
    case Profile::Imf2k: case Profile::Imf2kR: l.max_width = 2048, l.max_height = 1556, l.max_levels = 5; break;
    case Profile::Imf4k: case Profile::Imf4kR: l.max_width = 4096, l.max_height = 3112, l.max_levels = 6; break;
    case Profile::Imf8k: case Profile::Imf8kR: l.max_width = 8192, l.max_height = 6224, l.max_levels = 7; break;
    case Profile::None: bad("no profile asked for");
  }
  l.reversible = r.profile == Profile::Imf2kR || r.profile == Profile::Imf4kR || r.profile == Profile::Imf8kR;
  if (r.mainlevel < 0 || r.mainlevel > kMostMainLevel) bad("the IMF main level is 0 to 11, not " + std::to_string(r.mainlevel));
  if (r.sublevel < 0 || r.sublevel > kMostSubLevel[r.mainlevel] || r.sublevel > 9)
    bad("the IMF sub level is 0 to " + std::to_string(std::min(9, kMostSubLevel[r.mainlevel])) + " at main level " +
        std::to_string(r.mainlevel) + ", not " + std::to_string(r.sublevel));
  if (r.fps > 0) {
    if (r.mainlevel > 0) l.max_samples_per_second = kMainLevelMsamples[r.mainlevel] * 1e6;
    if (r.sublevel > 0) l.stream_bytes = std::floor(kSubLevelMbits[r.sublevel] * 1e6 / 8 / r.fps);
  }
  return l;
}

void apply_profile(const ProfileRequest& request, const j2k_image_view& shape, PlanSettings& plan, CodingParams& params) {
  if (request.profile == Profile::None) return;
  const ProfileLimits limits = profile_limits(request);
  const std::string& name = limits.name;
  const int n = shape.num_components;
  // The image.
  if (limits.cinema ? n != 3 : (n < 1 || n > 3))
    bad("the " + name + " profile codes " + (limits.cinema ? "3 components (X'Y'Z')" : "1 to 3 components") + ", not " + std::to_string(n));
  for (int c = 0; c < n; ++c) {
    const j2k_component_view& v = shape.components[c];
    const bool is_signed = v.type == J2K_SAMPLE_I8 || v.type == J2K_SAMPLE_I16 || v.type == J2K_SAMPLE_I32;
    const bool precision_ok = limits.cinema ? v.precision == kCinemaPrecision : v.precision >= 8 && v.precision <= 16;
    if (!precision_ok || is_signed)
      bad("the " + name + " profile codes unsigned " + (limits.cinema ? "12-bit components" : "components of 8 to 16 bits") +
          "; component " + std::to_string(c) + " is " + (is_signed ? "signed " : "") + std::to_string(v.precision) + "-bit" +
          (limits.cinema ? " (convert RGB with --xyz)" : ""));
    // Cinema: no subsampling; IMF: 4:4:4 or 4:2:2 (the second and third components halved across).
    const bool across_ok = limits.cinema || c == 0 ? v.dx == 1 : (v.dx == 1 || v.dx == 2) && (c < 2 || v.dx == shape.components[1].dx);
    if (!across_ok || v.dy != 1)
      bad("the " + name + " profile codes components " + (limits.cinema ? "without subsampling" : "subsampled only across, by 2, in the second and third alike") +
          "; component " + std::to_string(c) + " is subsampled " + std::to_string(v.dx) + " x " + std::to_string(v.dy));
  }
  if (shape.width > limits.max_width || shape.height > limits.max_height)
    bad("the " + name + " profile codes images of at most " + std::to_string(limits.max_width) + " x " +
        std::to_string(limits.max_height) + ", not " + std::to_string(shape.width) + " x " + std::to_string(shape.height));
  if (shape.x0 != 0 || shape.y0 != 0) bad("the " + name + " profile codes images at the canvas's origin (0,0)");
  if (limits.max_samples_per_second > 0) {
    double samples = 0;
    for (int c = 0; c < n; ++c) samples += static_cast<double>(shape.width) / shape.components[c].dx * shape.height;
    if (samples * request.fps > limits.max_samples_per_second)
      bad("the IMF main level " + std::to_string(request.mainlevel) + " allows " + std::to_string(static_cast<int64_t>(limits.max_samples_per_second / 1e6)) +
          " million samples a second; this image at " + rate_text(request.fps) + " fps has " +
          std::to_string(static_cast<int64_t>(samples * request.fps / 1e6)));
  }
  // The settings it fixes, or refuses where they were asked for otherwise.
  if (params.block_coding != BlockCoding::Ebcot) bad("the " + name + " profile is Part 1's: EBCOT code-blocks, not HT");
  if (!params.layer_psnr.empty()) bad("the " + name + " profile limits the bytes of a frame: give rates (-r), not PSNR targets");
  if (!params.tile_poc.empty()) bad("the " + name + " profile sets its own progression: no progression order changes (-POC)");
  for (int shift : params.roi_shift)
    if (shift != 0) bad("the " + name + " profile forbids a region of interest (RGN, -ROI)");
  if (!limits.cinema && params.layers != 1) bad("the " + name + " profile has one quality layer, not " + std::to_string(params.layers));
  const bool one_tile = (plan.tile_w == 0 || plan.tile_w >= shape.width) && (plan.tile_h == 0 || plan.tile_h >= shape.height);
  if (!one_tile) {
    const bool tiles_ok = limits.reversible && plan.tile_w == plan.tile_h && allowed_reversible_tile(request.profile, static_cast<uint32_t>(plan.tile_w));
    if (!tiles_ok)
      bad("the " + name + " profile codes one tile" +
          (limits.reversible ? std::string(", or tiles of 1024") + (request.profile == Profile::Imf2kR ? "" : request.profile == Profile::Imf4kR ? " or 2048" : ", 2048 or 4096") + " a side" : "") +
          ", not " + std::to_string(plan.tile_w) + " x " + std::to_string(plan.tile_h));
  }
  if (plan.tile_x0 != 0 || plan.tile_y0 != 0) bad("the " + name + " profile's tiles start at the canvas's origin (0,0)");
  int most = limits.max_levels;
  if (limits.reversible) most = std::min(most, reversible_levels_for_tile(one_tile ? shape.width : static_cast<uint32_t>(plan.tile_w)));
  if (plan.levels > most || !plan.component_levels.empty())
    bad("the " + name + " profile allows at most " + std::to_string(most) + " decomposition levels (" + std::to_string(most + 1) +
        " resolutions)" + (limits.reversible && most < limits.max_levels ? " on tiles this wide" : "") + ", not " +
        std::to_string(plan.levels) + (plan.component_levels.empty() ? "" : " or levels per component"));
  if (plan.levels < 1) bad("the " + name + " profile needs at least 1 decomposition level");
  plan.wavelet = limits.reversible ? Wavelet::Reversible53 : Wavelet::Irreversible97;
  if (limits.cinema) plan.mct = Mct::On;
  if (one_tile) plan.tile_w = plan.tile_h = 0;
  params.levels = plan.levels;
  params.components.clear();
  params.block_w_log2 = params.block_h_log2 = kBlockLog2;
  params.modes = 0;
  params.precincts.assign(static_cast<size_t>(plan.levels) + 1, {kPrecinct, kPrecinct});
  params.precincts[0] = {kLowestPrecinct, kLowestPrecinct};
  params.order = Progression::CPRL;
  params.tile_parts = 'C';
  params.tlm = true;
  params.rsiz = static_cast<uint16_t>(static_cast<int>(request.profile) | request.sublevel << 4 | request.mainlevel);
  params.poc.clear();
  if (request.profile == Profile::Cinema4k) {
    // The 4K resolution after the 2K image: a 2K decoder reads the first tile-parts only.
    params.poc.push_back({0, 0, params.layers, plan.levels, 3, Progression::CPRL});
    params.poc.push_back({plan.levels, 0, params.layers, plan.levels + 1, 3, Progression::CPRL});
  }
}

void cap_profile_bytes(const ProfileRequest& request, CodingParams& params) {
  if (request.profile == Profile::None) return;
  const ProfileLimits limits = profile_limits(request);
  if (limits.stream_bytes > 0) {
    if (params.layer_bytes.empty()) params.layer_bytes.assign(static_cast<size_t>(params.layers), 0);
    for (double& b : params.layer_bytes) b = b == 0 ? limits.stream_bytes : std::min(b, limits.stream_bytes);
  }
  params.component_bytes = limits.component_bytes;
}

std::vector<std::string> profile_violations(const ProfileRequest& request, const Codestream& cs, size_t stream_bytes) {
  std::vector<std::string> out;
  auto no = [&](const std::string& what) { out.push_back(what); };
  const bool imf = is_imf(request.profile);
  // IMF: the levels are the stream's own (Rsiz's low byte), checked here, then their limits.
  ProfileRequest own = request;
  if (imf) {
    own.mainlevel = cs.rsiz & 0xF;
    own.sublevel = cs.rsiz >> 4 & 0xF;
    if (own.mainlevel > kMostMainLevel || own.sublevel > std::min(9, kMostSubLevel[own.mainlevel])) {
      no("SIZ: Rsiz " + std::to_string(cs.rsiz) + " has IMF main level " + std::to_string(own.mainlevel) + " and sub level " +
         std::to_string(own.sublevel) + ", which Table A.53 does not allow together");
      own.mainlevel = own.sublevel = 0;
    }
  }
  const ProfileLimits limits = profile_limits(own);
  const int rsiz = static_cast<int>(request.profile);
  if ((imf ? (cs.rsiz & 0xFF00) : cs.rsiz) != rsiz)
    no("SIZ: Rsiz is " + std::to_string(cs.rsiz) + ", not " + (imf ? "the " + limits.name + " profile's " : "") + std::to_string(rsiz) +
       (imf ? " with its levels" : ""));
  const StreamInfo& i = cs.info;
  if (i.x0 != 0 || i.y0 != 0) no("SIZ: the image starts at " + std::to_string(i.x0) + "," + std::to_string(i.y0) + ", not 0,0");
  if (i.x1 - i.x0 > limits.max_width || i.y1 - i.y0 > limits.max_height)
    no("SIZ: the image is " + std::to_string(i.x1 - i.x0) + " x " + std::to_string(i.y1 - i.y0) + ", more than " +
       std::to_string(limits.max_width) + " x " + std::to_string(limits.max_height));
  const size_t n = i.components.size();
  if (limits.cinema ? n != 3 : n > 3) no("SIZ: " + std::to_string(n) + " components, not " + (limits.cinema ? "3" : "1 to 3"));
  for (size_t c = 0; c < n; ++c) {
    const ComponentInfo& ci = i.components[c];
    const bool precision_ok = limits.cinema ? ci.precision == kCinemaPrecision : ci.precision >= 8 && ci.precision <= 16;
    if (!precision_ok || ci.is_signed)
      no("SIZ: component " + std::to_string(c) + " is " + (ci.is_signed ? "signed " : "") + std::to_string(ci.precision) + "-bit, not unsigned " +
         (limits.cinema ? "12-bit" : "8- to 16-bit"));
    const bool across_ok = limits.cinema || c == 0 ? ci.dx == 1 : (ci.dx == 1 || ci.dx == 2) && (c < 2 || ci.dx == i.components[1].dx);
    if (!across_ok || ci.dy != 1)
      no("SIZ: component " + std::to_string(c) + " is subsampled " + std::to_string(ci.dx) + " x " + std::to_string(ci.dy) + ", which the profile does not allow");
  }
  const bool one_tile = cs.tiles_x * cs.tiles_y == 1;
  if (i.tile_x0 != 0 || i.tile_y0 != 0) no("SIZ: the tiles start at " + std::to_string(i.tile_x0) + "," + std::to_string(i.tile_y0) + ", not 0,0");
  if (!one_tile && !(limits.reversible && i.tile_w == i.tile_h && allowed_reversible_tile(request.profile, i.tile_w)))
    no("SIZ: " + std::to_string(cs.tiles_x * cs.tiles_y) + " tiles of " + std::to_string(i.tile_w) + " x " + std::to_string(i.tile_h) +
       (limits.reversible ? ", neither one tile nor the profile's tile sizes" : ", not one"));
  // Coding: the first tile's, the main header's as its own header overrides it (further tiles
  // are a fault of their own, above, where the profile has one tile).
  const TileCoding& t = cs.tiles.empty() ? cs.defaults : cs.tiles[0];
  if (t.order != Progression::CPRL) no("COD: progression " + std::to_string(static_cast<int>(t.order)) + ", not CPRL (4)");
  if (imf && t.layers != 1) no("COD: " + std::to_string(t.layers) + " quality layers, not 1");
  int most = limits.max_levels;
  if (limits.reversible) most = std::min(most, reversible_levels_for_tile(one_tile ? i.x1 - i.x0 : i.tile_w));
  for (size_t c = 0; c < t.components.size(); ++c) {
    const ComponentCoding& cc = t.components[c];
    const std::string comp = "COD/COC, component " + std::to_string(c) + ": ";
    if (cc.levels < 1 || cc.levels > most) no(comp + std::to_string(cc.levels) + " decomposition levels, not 1 to " + std::to_string(most));
    if (cc.block_w_log2 != kBlockLog2 || cc.block_h_log2 != kBlockLog2)
      no(comp + "code-blocks " + std::to_string(1 << cc.block_w_log2) + " x " + std::to_string(1 << cc.block_h_log2) + ", not 32 x 32");
    if (cc.modes != 0) no(comp + "code-block style " + std::to_string(cc.modes) + ", not 0 (no mode switch, no HT)");
    if (cc.reversible != limits.reversible) no(comp + (cc.reversible ? "the 5/3 wavelet, not the 9/7" : "the 9/7 wavelet, not the 5/3"));
    for (size_t r = 0; r < cc.precincts.size(); ++r) {
      const int want = r == 0 ? kLowestPrecinct : kPrecinct;
      if (cc.precincts[r] != std::pair<int, int>{want, want}) {
        no(comp + "precincts of 2^" + std::to_string(cc.precincts[r].first) + " x 2^" + std::to_string(cc.precincts[r].second) +
           " at resolution " + std::to_string(r) + ", not 2^" + std::to_string(want));
        break;
      }
    }
  }
  for (size_t c = 0; c < t.quant.size(); ++c) {
    const ComponentQuant::Style want = limits.reversible ? ComponentQuant::None : ComponentQuant::Expounded;
    if (t.quant[c].style != want)
      no("QCD/QCC, component " + std::to_string(c) + ": quantisation style " + std::to_string(static_cast<int>(t.quant[c].style)) + ", not " +
         (limits.reversible ? "none (0)" : "scalar expounded (2)"));
  }
  for (size_t c = 0; c < t.roi_shift.size(); ++c)
    if (t.roi_shift[c] != 0) no("RGN: component " + std::to_string(c) + " has a region of interest, which the profile forbids");
  // Cinema 4K: the 2K image's resolutions first, the highest in a second progression change.
  if (request.profile == Profile::Cinema4k && !t.components.empty()) {
    const int nl = t.components[0].levels;
    const bool two = t.poc.size() == 2 && t.poc[0].res_start == 0 && t.poc[0].res_end == nl && t.poc[1].res_start == nl &&
                     t.poc[1].res_end == nl + 1 && t.poc[0].order == Progression::CPRL && t.poc[1].order == Progression::CPRL;
    if (!two) no("POC: not the 4K profile's two CPRL changes (resolutions 0 to " + std::to_string(nl - 1) + ", then " + std::to_string(nl) + ")");
  } else if (!t.poc.empty()) {
    no("POC: progression order changes, which the " + limits.name + " profile has none of");
  }
  if (limits.cinema) {
    if (!cs.tlm) no("the main header has no TLM");
    // Tile-parts: one per component (4K: per component in each progression change).
    const size_t want_parts = request.profile == Profile::Cinema4k ? 6 : 3;
    if (cs.parts.size() != want_parts)
      no(std::to_string(cs.parts.size()) + " tile-parts, not " + std::to_string(want_parts) + " (one per component" +
         (request.profile == Profile::Cinema4k ? " in each progression change)" : ")"));
    // With the tile-parts one per component, tile-part k holds component k mod 3.
    if (cs.parts.size() == want_parts && n == 3) {
      uint64_t bytes[3] = {0, 0, 0};
      for (size_t k = 0; k < cs.parts.size(); ++k) bytes[k % 3] += cs.parts[k].length;
      for (size_t c = 0; c < 3; ++c)
        if (static_cast<double>(bytes[c]) > limits.component_bytes)
          no("component " + std::to_string(c) + " has " + std::to_string(bytes[c]) + " bytes of packets, more than " +
             std::to_string(static_cast<uint64_t>(limits.component_bytes)));
    }
  }
  if (limits.stream_bytes > 0 && static_cast<double>(stream_bytes) > limits.stream_bytes)
    no("the codestream has " + std::to_string(stream_bytes) + " bytes, more than " + std::to_string(static_cast<uint64_t>(limits.stream_bytes)) +
       (limits.cinema ? "" : " (sub level " + std::to_string(own.sublevel) + ")") + " at " + rate_text(own.fps == 0 ? 24 : own.fps) + " fps");
  if (limits.max_samples_per_second > 0) {
    double samples = 0;
    for (const ComponentInfo& ci : i.components) samples += static_cast<double>(i.x1 - i.x0) / ci.dx * (i.y1 - i.y0);
    if (samples * own.fps > limits.max_samples_per_second)
      no("the image has " + std::to_string(static_cast<int64_t>(samples * own.fps / 1e6)) + " million samples a second at " +
         rate_text(own.fps) + " fps, more than main level " + std::to_string(own.mainlevel) + "'s " +
         std::to_string(static_cast<int64_t>(limits.max_samples_per_second / 1e6)));
  }
  return out;
}

}  // namespace j2k::codec
