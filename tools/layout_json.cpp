#include "tools/layout_json.hpp"

namespace j2k::tools {
namespace {

nlohmann::json rect_json(const Rect& r) {
  return {{"x0", r.x0}, {"y0", r.y0}, {"x1", r.x1}, {"y1", r.y1}, {"width", r.width()}, {"height", r.height()}};
}

const char* band_name(BandType t) {
  switch (t) {
    case BandType::LL: return "LL";
    case BandType::HL: return "HL";
    case BandType::LH: return "LH";
    case BandType::HH: return "HH";
  }
  return "?";
}

}  // namespace

std::string tile_component_file(const TileComponent& tc) {
  return "tile" + std::to_string(tc.tile) + "_comp" + std::to_string(tc.component) + ".npy";
}

nlohmann::json layout_json(const Result& res, const Settings& s, const Image& im,
                           const std::string& input) {
  const bool rev = s.wavelet == Wavelet::Reversible53;
  nlohmann::json j;
  j["generator"] = "j2kfront 0.1.0";
  j["input"] = input;
  j["wavelet"] = rev ? "5/3" : "9/7";
  j["levels"] = s.levels;
  j["mct"] = res.mct;
  j["backend"] = backend_name(res.backend);
  j["dtype"] = rev ? "<i4" : "<f4";
  j["canvas"] = {{"image", rect_json({res.canvas.image_x0, res.canvas.image_y0, res.canvas.image_x1,
                                      res.canvas.image_y1})},
                 {"tile_origin", {res.canvas.tile_x0, res.canvas.tile_y0}},
                 {"tile_size", {res.canvas.tile_w, res.canvas.tile_h}},
                 {"tiles_x", res.tiles_x},
                 {"tiles_y", res.tiles_y}};
  nlohmann::json comps = nlohmann::json::array();
  for (const Component& c : im.components)
    comps.push_back({{"precision", c.precision}, {"signed", c.is_signed}, {"dx", c.dx}, {"dy", c.dy},
                     {"width", c.width}, {"height", c.height}});
  j["components"] = comps;
  nlohmann::json tcs = nlohmann::json::array(), files = nlohmann::json::array();
  for (const TileComponent& tc : res.tile_components) {
    nlohmann::json bands = nlohmann::json::array();
    for (const BandInfo& b : tc.bands)
      bands.push_back({{"type", band_name(b.type)}, {"level", b.level}, {"rect", rect_json(b.rect)},
                       {"col", b.col}, {"row", b.row}});
    const std::string file = tile_component_file(tc);
    files.push_back(file);
    tcs.push_back({{"tile", tc.tile}, {"component", tc.component}, {"file", file},
                   {"rect", rect_json(tc.rect)}, {"levels", tc.levels}, {"bands", bands}});
  }
  j["tile_components"] = tcs;
  j["files"] = files;
  return j;
}

}  // namespace j2k::tools
