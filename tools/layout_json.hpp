// SPDX-License-Identifier: BSD-2-Clause
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

// Everything but the tile-components, which start as empty lists: the settings, the plan's
// backend and MCT, the canvas and tile grid (`info`'s tiles_x and tiles_y: the whole image's)
// and the components of `image` (its samples are not needed).
nlohmann::json layout_json(const j2k_plan_info& info, const j2k_settings& settings, const j2kfront::Image& image,
                           const std::string& input);
// Appends the plan's tile-components, their tiles numbered from `first_tile`.
void add_tile_components(nlohmann::json& layout, const j2kfront::Plan& plan, int64_t first_tile);
// The whole layout of an image transformed by one plan.
nlohmann::json layout_json(const j2kfront::Plan& plan, const j2k_settings& settings,
                           const j2kfront::Image& image, const std::string& input);

}  // namespace j2k::tools
