// SPDX-License-Identifier: BSD-2-Clause
// What an encoder by rows of tiles asks for: the view of some canvas rows of an image in memory.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "j2kfront/j2kfront.hpp"

namespace test_support {

// The view of canvas rows [y0, y0 + rows) of `image` (every component's rows there, B-12),
// pointing into its samples.
inline j2kfront::ImageView rows_of(const j2kfront::Image& image, uint32_t y0, uint32_t rows) {
  auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  std::vector<j2k_component_view> views;
  for (const j2kfront::Image::Component& c : image.components) {
    const int64_t first = ceil_div(y0, c.dy) - ceil_div(image.y0, c.dy);
    const int64_t count = ceil_div(int64_t{y0} + rows, c.dy) - ceil_div(y0, c.dy);
    j2k_component_view v{};
    v.data = c.bytes.data() + first * c.row_stride();
    v.type = c.type;
    v.precision = c.precision;
    v.dx = c.dx;
    v.dy = c.dy;
    v.row_stride = c.row_stride();
    v.pixel_stride = static_cast<ptrdiff_t>(c.sample_size());
    v.bytes = static_cast<size_t>(count * c.row_stride());
    views.push_back(v);
  }
  j2kfront::ImageView view(image.width, rows, std::move(views));
  view.at_origin(image.x0, y0);
  return view;
}

// The image's shape without its samples (what an encoder by rows is made from).
inline j2kfront::Image shape_of(const j2kfront::Image& image) {
  j2kfront::Image shape = image;
  for (j2kfront::Image::Component& c : shape.components) c.bytes = std::vector<unsigned char>();
  return shape;
}

}  // namespace test_support
