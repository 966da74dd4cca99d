// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer target: the front stage through the C API on the CPU backend, with the geometry,
// settings, sample formats and samples all taken from the input. Whatever the API accepts must
// run without a crash or undefined behaviour, and whatever it refuses must come back as a
// status with a message. Seeds: front_stage/.
#include <cstdint>
#include <cstring>
#include <vector>

#include "j2kfront/j2kfront.h"

namespace {

// The input as a stream of small numbers; zeros once it runs out.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  unsigned u8() { return at_ < size_ ? data_[at_++] : 0; }
  uint32_t u32() { return u8() | u8() << 8 | u8() << 16 | static_cast<uint32_t>(u8()) << 24; }
  size_t left() const { return size_ - at_; }
  const uint8_t* here() const { return data_ + at_; }

 private:
  const uint8_t* data_;
  size_t size_, at_ = 0;
};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

void check(j2k_status s) {
  // A refusal must say why.
  if (s != J2K_OK && j2k_last_error()[0] == '\0') __builtin_trap();
  // Only an input's fault may stop the front stage: never the library's own.
  if (s == J2K_INTERNAL_ERROR) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  j2k_settings s;
  j2k_settings_default(&s);
  s.backend = J2K_BACKEND_CPU;
  s.threads = 1 + in.u8() % 2;
  // Out-of-range values on purpose: the API must refuse them.
  s.wavelet = static_cast<j2k_wavelet>(in.u8() % 3);
  s.levels = static_cast<int>(in.u8() % 40) - 2;
  s.mct = static_cast<j2k_mct>(in.u8() % 4);
  s.narrow_output = static_cast<int>(in.u8() % 3);
  s.streams = static_cast<int>(in.u8() % 4);
  const unsigned big = in.u8();  // sometimes coordinates far out on the canvas
  s.tile_w = in.u8() % 40;
  s.tile_h = in.u8() % 40;
  s.tile_x0 = big & 1 ? in.u32() : in.u8() % 24;
  s.tile_y0 = big & 2 ? in.u32() : in.u8() % 24;

  j2k_image_view im{};
  im.x0 = big & 4 ? in.u32() : in.u8() % 32;
  im.y0 = big & 8 ? in.u32() : in.u8() % 32;
  im.width = in.u8() % 48;
  im.height = in.u8() % 48;
  im.num_components = static_cast<int>(in.u8() % 5);  // 0 is refused
  im.memory = J2K_MEMORY_HOST;
  im.device = -1;
  std::vector<j2k_component_view> comps(static_cast<size_t>(im.num_components));
  std::vector<std::vector<uint8_t>> planes(comps.size());
  for (size_t c = 0; c < comps.size(); ++c) {
    j2k_component_view& k = comps[c];
    k.type = static_cast<j2k_sample_type>(in.u8() % 8);  // 6 (F32) and 7 are refused
    k.precision = static_cast<int>(in.u8() % 18);
    k.dx = static_cast<int>(in.u8() % 5);  // 0 is refused
    k.dy = static_cast<int>(in.u8() % 5);
    const size_t bytes = j2k_sample_size(k.type) ? j2k_sample_size(k.type) : 1;
    // The component's size on its own grid (B-12), when the subsampling is valid.
    const int64_t dx = k.dx > 0 ? k.dx : 1, dy = k.dy > 0 ? k.dy : 1;
    const int64_t x0 = im.x0, y0 = im.y0;
    const int64_t w = ceil_div(x0 + im.width, dx) - ceil_div(x0, dx);
    const int64_t h = ceil_div(y0 + im.height, dy) - ceil_div(y0, dy);
    planes[c].assign(static_cast<size_t>(w * h) * bytes + 1, 0);
    // The samples: whatever the input has left, repeated (out-of-range ones are refused per run).
    for (size_t i = 0; i + 1 < planes[c].size() && in.left(); ++i) planes[c][i] = static_cast<uint8_t>(in.u8());
    k.data = planes[c].data();
    k.row_stride = static_cast<ptrdiff_t>(w * static_cast<int64_t>(bytes));
    k.pixel_stride = static_cast<ptrdiff_t>(bytes);
    // The samples' bytes, now and then one short (refused when there is a sample).
    const size_t need = planes[c].size() - 1;
    k.bytes = need - (need > 0 && in.u8() % 8 == 0 ? 1 : 0);
  }
  im.components = comps.data();

  j2k_plan* plan = nullptr;
  const j2k_status created = j2k_plan_create(&s, &im, &plan);
  check(created);
  if (created != J2K_OK) return 0;
  check(j2k_plan_run(plan, &im));
  // Every coefficient the plan reports must be readable where it says.
  j2k_plan_info info{};
  if (j2k_plan_get_info(plan, &info) != J2K_OK) __builtin_trap();
  volatile uint8_t sink = 0;
  for (size_t i = 0; i < info.tile_components; ++i) {
    j2k_tile_component tc{};
    if (j2k_plan_get_tile_component(plan, i, &tc) != J2K_OK) __builtin_trap();
    const size_t row = static_cast<size_t>(tc.coefficients.width) * j2k_sample_size(tc.coefficients.type);
    for (int64_t y = 0; y < tc.coefficients.height; ++y) {
      const auto* p = static_cast<const uint8_t*>(tc.coefficients.data) + y * tc.coefficients.row_stride;
      for (size_t b = 0; b < row; ++b) sink = static_cast<uint8_t>(sink + p[b]);
    }
  }
  (void)sink;
  j2k_plan_destroy(plan);
  return 0;
}
