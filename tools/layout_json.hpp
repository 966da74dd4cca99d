// layout.json: the canvas, the tile grid and, per tile-component, its rectangle, levels,
// file and every band's rectangle and position in the coefficient array.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/front_stage.hpp"

namespace j2k::tools {

std::string tile_component_file(const TileComponent& tc);  // "tile<T>_comp<C>.npy"

nlohmann::json layout_json(const Result& result, const Settings& settings, const Image& image,
                           const std::string& input);

}  // namespace j2k::tools
