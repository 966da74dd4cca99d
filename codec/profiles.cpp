// SPDX-License-Identifier: BSD-2-Clause
#include "codec/profiles.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace j2k::codec {
namespace {

[[noreturn]] void bad(const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); }

// DCI's precincts: 2^7 at the lowest resolution, 2^8 above it.
constexpr int kLowestPrecinct = 7, kPrecinct = 8;
constexpr int kBlockLog2 = 5;  // 32 x 32 code-blocks
constexpr int kPrecision = 12;

}  // namespace

std::string profile_name(Profile profile) {
  switch (profile) {
    case Profile::Cinema2k: return "cinema2k";
    case Profile::Cinema4k: return "cinema4k";
    case Profile::None: break;
  }
  return "none";
}

CinemaLimits cinema_limits(const ProfileRequest& r) {
  // DCI: 250 Mbit/s at most, so 1,302,083 bytes a frame at 24 fps and half at 48 (opj_compress's
  // figures); one component at most 200 Mbit/s, 1,041,666 bytes at 24 fps.
  CinemaLimits l;
  if (r.profile == Profile::Cinema2k) {
    if (r.fps != 24 && r.fps != 48) bad("the cinema 2K profile is for 24 or 48 frames a second, not " + std::to_string(r.fps));
    l.max_width = 2048, l.max_height = 1080, l.max_levels = 5;
  } else if (r.profile == Profile::Cinema4k) {
    if (r.fps != 24) bad("the cinema 4K profile is for 24 frames a second, not " + std::to_string(r.fps));
    l.max_width = 4096, l.max_height = 2160, l.max_levels = 6;
  } else {
    bad("no profile asked for");
  }
  l.stream_bytes = r.fps == 48 ? 651041 : 1302083;
  l.component_bytes = r.fps == 48 ? 520833 : 1041666;
  return l;
}

void apply_profile(const ProfileRequest& request, const j2k_image_view& shape, PlanSettings& plan, CodingParams& params) {
  if (request.profile == Profile::None) return;
  const CinemaLimits limits = cinema_limits(request);
  const std::string name = profile_name(request.profile);
  // The image: X'Y'Z' as DCI codes it.
  if (shape.num_components != 3)
    bad("the " + name + " profile codes 3 components (X'Y'Z'), not " + std::to_string(shape.num_components));
  for (int c = 0; c < 3; ++c) {
    const j2k_component_view& v = shape.components[c];
    const bool is_signed = v.type == J2K_SAMPLE_I8 || v.type == J2K_SAMPLE_I16 || v.type == J2K_SAMPLE_I32;
    if (v.precision != kPrecision || is_signed)
      bad("the " + name + " profile codes unsigned 12-bit components; component " + std::to_string(c) + " is " +
          (is_signed ? "signed " : "") + std::to_string(v.precision) + "-bit (convert RGB with --xyz)");
    if (v.dx != 1 || v.dy != 1) bad("the " + name + " profile codes components without subsampling");
  }
  if (shape.width > limits.max_width || shape.height > limits.max_height)
    bad("the " + name + " profile codes images of at most " + std::to_string(limits.max_width) + " x " +
        std::to_string(limits.max_height) + ", not " + std::to_string(shape.width) + " x " + std::to_string(shape.height));
  if (shape.x0 != 0 || shape.y0 != 0) bad("the " + name + " profile codes images at the canvas's origin (0,0)");
  // The settings it fixes.
  if (params.block_coding != BlockCoding::Ebcot) bad("the " + name + " profile is Part 1's: EBCOT code-blocks, not HT");
  if (!params.layer_psnr.empty()) bad("the " + name + " profile limits the bytes of a frame: give rates (-r), not PSNR targets");
  if (plan.levels > limits.max_levels)
    bad("the " + name + " profile allows at most " + std::to_string(limits.max_levels) + " decomposition levels (" +
        std::to_string(limits.max_levels + 1) + " resolutions), not " + std::to_string(plan.levels));
  if (plan.levels < 1) bad("the " + name + " profile needs at least 1 decomposition level");
  plan.wavelet = Wavelet::Irreversible97;
  plan.mct = Mct::On;
  plan.component_levels.clear();
  plan.tile_w = plan.tile_h = plan.tile_x0 = plan.tile_y0 = 0;
  params.levels = plan.levels;
  params.components.clear();
  params.block_w_log2 = params.block_h_log2 = kBlockLog2;
  params.modes = 0;
  params.precincts.assign(static_cast<size_t>(plan.levels) + 1, {kPrecinct, kPrecinct});
  params.precincts[0] = {kLowestPrecinct, kLowestPrecinct};
  params.order = Progression::CPRL;
  params.tile_parts = 'C';
  params.tlm = true;
  params.rsiz = static_cast<uint16_t>(request.profile);
  params.poc.clear();
  if (request.profile == Profile::Cinema4k) {
    // The 4K resolution after the 2K image: a 2K decoder reads the first tile-parts only.
    params.poc.push_back({0, 0, params.layers, plan.levels, 3, Progression::CPRL});
    params.poc.push_back({plan.levels, 0, params.layers, plan.levels + 1, 3, Progression::CPRL});
  }
}

void cap_profile_bytes(const ProfileRequest& request, CodingParams& params) {
  if (request.profile == Profile::None) return;
  const CinemaLimits limits = cinema_limits(request);
  if (params.layer_bytes.empty()) params.layer_bytes.assign(static_cast<size_t>(params.layers), 0);
  for (double& b : params.layer_bytes) b = b == 0 ? limits.stream_bytes : std::min(b, limits.stream_bytes);
  params.component_bytes = limits.component_bytes;
}

std::vector<std::string> profile_violations(const ProfileRequest& request, const Codestream& cs, size_t stream_bytes) {
  const CinemaLimits limits = cinema_limits(request);
  std::vector<std::string> out;
  auto no = [&](const std::string& what) { out.push_back(what); };
  const int rsiz = static_cast<int>(request.profile);
  if (cs.rsiz != rsiz) no("SIZ: Rsiz is " + std::to_string(cs.rsiz) + ", not " + std::to_string(rsiz));
  const StreamInfo& i = cs.info;
  if (i.x0 != 0 || i.y0 != 0) no("SIZ: the image starts at " + std::to_string(i.x0) + "," + std::to_string(i.y0) + ", not 0,0");
  if (i.x1 - i.x0 > limits.max_width || i.y1 - i.y0 > limits.max_height)
    no("SIZ: the image is " + std::to_string(i.x1 - i.x0) + " x " + std::to_string(i.y1 - i.y0) + ", more than " +
       std::to_string(limits.max_width) + " x " + std::to_string(limits.max_height));
  if (i.components.size() != 3) no("SIZ: " + std::to_string(i.components.size()) + " components, not 3");
  for (size_t c = 0; c < i.components.size(); ++c) {
    const ComponentInfo& ci = i.components[c];
    if (ci.precision != kPrecision || ci.is_signed)
      no("SIZ: component " + std::to_string(c) + " is " + (ci.is_signed ? "signed " : "") + std::to_string(ci.precision) +
         "-bit, not unsigned 12-bit");
    if (ci.dx != 1 || ci.dy != 1) no("SIZ: component " + std::to_string(c) + " is subsampled");
  }
  if (cs.tiles_x * cs.tiles_y != 1) no("SIZ: " + std::to_string(cs.tiles_x * cs.tiles_y) + " tiles, not one");
  // Coding: the first tile's, the main header's as its own header overrides it (a second
  // tile is a fault of its own, above).
  {
    const TileCoding& t = cs.tiles.empty() ? cs.defaults : cs.tiles[0];
    const std::string where = "COD/COC";
    if (t.order != Progression::CPRL) no(where + ": progression " + std::to_string(static_cast<int>(t.order)) + ", not CPRL (4)");
    for (size_t c = 0; c < t.components.size(); ++c) {
      const ComponentCoding& cc = t.components[c];
      const std::string comp = where + ", component " + std::to_string(c) + ": ";
      if (cc.levels < 1 || cc.levels > limits.max_levels)
        no(comp + std::to_string(cc.levels) + " decomposition levels, not 1 to " + std::to_string(limits.max_levels));
      if (cc.block_w_log2 != kBlockLog2 || cc.block_h_log2 != kBlockLog2)
        no(comp + "code-blocks " + std::to_string(1 << cc.block_w_log2) + " x " + std::to_string(1 << cc.block_h_log2) + ", not 32 x 32");
      if (cc.modes != 0) no(comp + "code-block style " + std::to_string(cc.modes) + ", not 0 (no mode switch, no HT)");
      if (cc.reversible) no(comp + "the 5/3 wavelet, not the 9/7");
      for (size_t r = 0; r < cc.precincts.size(); ++r) {
        const int want = r == 0 ? kLowestPrecinct : kPrecinct;
        if (cc.precincts[r] != std::pair<int, int>{want, want}) {
          no(comp + "precincts of 2^" + std::to_string(cc.precincts[r].first) + " x 2^" + std::to_string(cc.precincts[r].second) +
             " at resolution " + std::to_string(r) + ", not 2^" + std::to_string(want));
          break;
        }
      }
    }
    for (size_t c = 0; c < t.quant.size(); ++c)
      if (t.quant[c].style != ComponentQuant::Expounded) no(where + ", component " + std::to_string(c) + ": quantisation not scalar expounded");
    // 4K: the 2K image's resolutions first, the highest in a second progression change.
    if (request.profile == Profile::Cinema4k && !t.components.empty()) {
      const int nl = t.components[0].levels;
      const bool two = t.poc.size() == 2 && t.poc[0].res_start == 0 && t.poc[0].res_end == nl && t.poc[1].res_start == nl &&
                       t.poc[1].res_end == nl + 1 && t.poc[0].order == Progression::CPRL && t.poc[1].order == Progression::CPRL;
      if (!two) no(where + ": POC is not the 4K profile's two CPRL changes (resolutions 0.." + std::to_string(nl - 1) + ", then " + std::to_string(nl) + ")");
    } else if (!t.poc.empty()) {
      no(where + ": progression order changes (POC), which the 2K profile has none of");
    }
  }
  if (!cs.tlm) no("the main header has no TLM");
  // Tile-parts: one per component (4K: per component in each progression change).
  const size_t want_parts = request.profile == Profile::Cinema4k ? 6 : 3;
  if (cs.parts.size() != want_parts) no(std::to_string(cs.parts.size()) + " tile-parts, not " + std::to_string(want_parts) + " (one per component" +
                                        (request.profile == Profile::Cinema4k ? " in each progression change)" : ")"));
  if (static_cast<double>(stream_bytes) > limits.stream_bytes)
    no("the codestream has " + std::to_string(stream_bytes) + " bytes, more than " + std::to_string(static_cast<uint64_t>(limits.stream_bytes)) +
       " at " + std::to_string(request.fps) + " fps");
  // With the tile-parts one per component, tile-part k holds component k mod 3.
  if (cs.parts.size() == want_parts && i.components.size() == 3) {
    uint64_t bytes[3] = {0, 0, 0};
    for (size_t k = 0; k < cs.parts.size(); ++k) bytes[k % 3] += cs.parts[k].length;
    for (size_t c = 0; c < 3; ++c)
      if (static_cast<double>(bytes[c]) > limits.component_bytes)
        no("component " + std::to_string(c) + " has " + std::to_string(bytes[c]) + " bytes of packets, more than " +
           std::to_string(static_cast<uint64_t>(limits.component_bytes)));
  }
  return out;
}

}  // namespace j2k::codec
