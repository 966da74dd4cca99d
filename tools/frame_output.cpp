// SPDX-License-Identifier: BSD-2-Clause
#include "tools/frame_output.hpp"

#include <cstdio>

#include "io/image_io.hpp"
#include "tools/layout_json.hpp"

namespace j2k::tools {

std::set<std::string> output_names(int64_t tiles, size_t components) {
  std::set<std::string> names{OutputDir::kManifest};
  j2k_tile_component tc{};
  for (tc.tile = 0; tc.tile < tiles; ++tc.tile)
    for (tc.component = 0; static_cast<size_t>(tc.component) < components; ++tc.component)
      names.insert(tile_component_file(tc));
  return names;
}

void write_tile_components(OutputDir& out, const j2kfront::Plan& plan,
                           const std::vector<j2k_coefficients>& coefficients, int64_t first_tile) {
  for (size_t i = 0; i < coefficients.size(); ++i) {
    j2k_tile_component tc = plan.tile_component(i);
    tc.tile += first_tile;
    const j2k_coefficients& c = coefficients[i];
    out.write(tile_component_file(tc), [&](std::FILE* file, const std::string& name) {
      if (c.type == J2K_SAMPLE_I32) io::write_npy(file, name, static_cast<const int32_t*>(c.data), c.height, c.width);
      else io::write_npy(file, name, static_cast<const float*>(c.data), c.height, c.width);
    });
  }
}

void print_summary(const Summary& s) {
  const j2kfront::Image& im = *s.image;
  const j2kfront::Image::Component& c0 = im.components[0];
  const bool is_signed = c0.type == J2K_SAMPLE_I8 || c0.type == J2K_SAMPLE_I16 || c0.type == J2K_SAMPLE_I32;
  const int64_t tiles = s.info.tiles_x * s.info.tiles_y;
  std::printf(
      "j2kfront: %s %ux%u x%zu %d-bit%s, %s, %d levels, %lld tile%s%s%s, MCT %s, %s: "
      "read %.1f ms, tiling %.1f ms, shift+MCT %.1f ms, DWT %.1f ms, write %.1f ms -> %s\n",
      s.input.c_str(), im.width, im.height, im.components.size(), c0.precision, is_signed ? " signed" : "",
      s.settings->wavelet == J2K_WAVELET_97 ? "9/7" : "5/3", s.settings->levels, static_cast<long long>(tiles),
      tiles == 1 ? "" : "s", s.how.empty() ? "" : " ", s.how.c_str(), s.info.mct ? "on" : "off",
      s.description.c_str(), s.read_ms, s.times.split_ms, s.times.shift_mct_ms, s.times.dwt_ms + s.wait_ms, s.write_ms,
      s.outdir.c_str());
  std::fflush(stdout);
}

}  // namespace j2k::tools
