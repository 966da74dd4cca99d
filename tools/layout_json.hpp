// layout.json: the canvas, the tile grid and, per tile-component, its rectangle, levels,
// file and every band's rectangle and position in the coefficient array.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "j2kfront/j2kfront.hpp"

namespace j2k::tools {

std::string tile_component_file(const j2k_tile_component& tc);  // "tile<T>_comp<C>.npy"
// Whether `name` is one that `transform` writes: "tile<T>_comp<C>.npy" (decimal numbers
// without leading zeros), layout.json, or its marker of an incomplete set.
bool is_generated_name(const std::string& name);

nlohmann::json layout_json(const j2kfront::Plan& plan, const j2k_settings& settings,
                           const j2kfront::Image& image, const std::string& input);

}  // namespace j2k::tools
