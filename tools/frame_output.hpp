// SPDX-License-Identifier: BSD-2-Clause
// What `transform` writes for one image, whichever way it was transformed (whole, or a row
// of tiles at a time): the names of its files, the arrays, and the line that reports it.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "j2kfront/j2kfront.hpp"
#include "tools/output_dir.hpp"

namespace j2k::tools {

// "tile<T>_comp<C>.npy" for every tile-component of a grid of `tiles`, and layout.json.
std::set<std::string> output_names(int64_t tiles, size_t components);

// The plan's tile-components, from `coefficients` (packed rows in host memory, one per
// tile-component), as tile<first_tile + T>_comp<C>.npy.
void write_tile_components(OutputDir& out, const j2kfront::Plan& plan,
                           const std::vector<j2k_coefficients>& coefficients, int64_t first_tile);

// The one line `transform` prints for an image it has written.
struct Summary {
  std::string input, outdir;
  const j2kfront::Image* image = nullptr;  // its size and components (samples not needed)
  const j2k_settings* settings = nullptr;
  j2k_plan_info info{};  // tiles_x and tiles_y of the whole image (description unused)
  std::string description;  // the backend's, as the plan's info gave it
  j2k_stage_times times{};
  double read_ms = 0, wait_ms = 0, write_ms = 0;
  std::string how;  // how it was done, when not whole: e.g. "in 4 rows of tiles"
};
void print_summary(const Summary& s);

}  // namespace j2k::tools
