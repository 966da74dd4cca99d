// SPDX-License-Identifier: BSD-2-Clause
#include "tools/layout_json.hpp"

namespace j2k::tools {
namespace {

nlohmann::json rect_json(const j2k_rect& r) {
  const int64_t w = r.x1 > r.x0 ? r.x1 - r.x0 : 0, h = r.y1 > r.y0 ? r.y1 - r.y0 : 0;
  return {{"x0", r.x0}, {"y0", r.y0}, {"x1", r.x1}, {"y1", r.y1}, {"width", w}, {"height", h}};
}

const char* band_name(j2k_band_type t) {
  switch (t) {
    case J2K_BAND_LL: return "LL";
    case J2K_BAND_HL: return "HL";
    case J2K_BAND_LH: return "LH";
    case J2K_BAND_HH: return "HH";
  }
  return "?";
}

bool is_signed(j2k_sample_type t) {
  return t == J2K_SAMPLE_I8 || t == J2K_SAMPLE_I16 || t == J2K_SAMPLE_I32;
}

// A decimal number as std::to_string writes one, starting at text[at]; returns the index
// after it, or npos.
size_t skip_number(const std::string& text, size_t at) {
  size_t end = at;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
  if (end == at || end - at > 19 || (text[at] == '0' && end - at > 1)) return std::string::npos;
  return end;
}

}  // namespace

bool is_generated_name(const std::string& name) {
  if (name == "layout.json" || name == "layout.json.incomplete") return true;
  if (name.rfind("tile", 0) != 0) return false;
  size_t at = skip_number(name, 4);
  if (at == std::string::npos || name.compare(at, 5, "_comp") != 0) return false;
  at = skip_number(name, at + 5);
  return at != std::string::npos && name.compare(at, std::string::npos, ".npy") == 0;
}

std::string tile_component_file(const j2k_tile_component& tc) {
  return "tile" + std::to_string(tc.tile) + "_comp" + std::to_string(tc.component) + ".npy";
}

nlohmann::json layout_json(const j2k_plan_info& info, const j2k_settings& s, const j2kfront::Image& im,
                           const std::string& input) {
  const bool rev = s.wavelet == J2K_WAVELET_53;
  nlohmann::json j;
  j["generator"] = std::string("j2kfront ") + j2k_version();
  j["input"] = input;
  j["wavelet"] = rev ? "5/3" : "9/7";
  j["levels"] = s.levels;
  j["mct"] = info.mct != 0;
  j["backend"] = j2k_backend_name(info.backend);
  j["dtype"] = rev ? "<i4" : "<f4";
  const int64_t x1 = int64_t{im.x0} + im.width, y1 = int64_t{im.y0} + im.height;
  // No tile size: one tile from the tile origin to the end of the image.
  const int64_t tw = s.tile_w ? int64_t{s.tile_w} : x1 - s.tile_x0;
  const int64_t th = s.tile_h ? int64_t{s.tile_h} : y1 - s.tile_y0;
  j["canvas"] = {{"image", rect_json({im.x0, im.y0, x1, y1})},
                 {"tile_origin", {s.tile_x0, s.tile_y0}},
                 {"tile_size", {tw, th}},
                 {"tiles_x", info.tiles_x},
                 {"tiles_y", info.tiles_y}};
  nlohmann::json comps = nlohmann::json::array();
  for (const j2kfront::Image::Component& c : im.components)
    comps.push_back({{"precision", c.precision}, {"signed", is_signed(c.type)}, {"dx", c.dx}, {"dy", c.dy},
                     {"width", c.width}, {"height", c.height}});
  j["components"] = comps;
  j["tile_components"] = nlohmann::json::array();
  j["files"] = nlohmann::json::array();
  return j;
}

void add_tile_components(nlohmann::json& j, const j2kfront::Plan& plan, int64_t first_tile) {
  const j2k_plan_info info = plan.info();
  for (size_t i = 0; i < info.tile_components; ++i) {
    j2k_tile_component tc = plan.tile_component(i);
    tc.tile += first_tile;
    nlohmann::json bands = nlohmann::json::array();
    for (int b = 0; b < tc.bands; ++b) {
      const j2k_band band = plan.band(i, b);
      bands.push_back({{"type", band_name(band.type)}, {"level", band.level}, {"rect", rect_json(band.rect)},
                       {"col", band.col}, {"row", band.row}});
    }
    const std::string file = tile_component_file(tc);
    j["files"].push_back(file);
    j["tile_components"].push_back({{"tile", tc.tile}, {"component", tc.component}, {"file", file},
                                    {"rect", rect_json(tc.rect)}, {"levels", tc.levels}, {"bands", bands}});
  }
}

nlohmann::json layout_json(const j2kfront::Plan& plan, const j2k_settings& s, const j2kfront::Image& im,
                           const std::string& input) {
  nlohmann::json j = layout_json(plan.info(), s, im, input);
  add_tile_components(j, plan, 0);
  return j;
}

}  // namespace j2k::tools
