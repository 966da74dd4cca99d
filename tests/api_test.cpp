// SPDX-License-Identifier: BSD-2-Clause
// The C interface's edge: every bad argument returns a status and a message that names the
// cause, never a crash; the DWT alone through the C++ wrapper.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "j2kfront/j2kfront.h"
#include "j2kfront/j2kfront.hpp"

namespace {

// The status of `call`, and that j2k_last_error() mentions `needle`.
#define EXPECT_FAILS(call, status, needle)                                                   \
  do {                                                                                       \
    EXPECT_EQ((call), (status)) << #call;                                                    \
    EXPECT_NE(std::string(j2k_last_error()).find(needle), std::string::npos)                 \
        << #call << ": message '" << j2k_last_error() << "' does not mention '" << needle << "'"; \
  } while (0)

struct Gray {
  std::vector<uint8_t> pixels = std::vector<uint8_t>(16 * 8, 100);
  j2k_component_view comp{};
  j2k_image_view view{};
  Gray() {
    j2k_views_planar(&comp, 1, pixels.data(), pixels.size(), J2K_SAMPLE_U8, 8, 16, 16 * 8);
    view.width = 16;
    view.height = 8;
    view.num_components = 1;
    view.components = &comp;
  }
};

j2k_settings cpu_settings() {
  j2k_settings s;
  j2k_settings_default(&s);
  s.backend = J2K_BACKEND_CPU;
  return s;
}

TEST(CApi, StatusNamesVersionAndDefaults) {
  EXPECT_STREQ(j2k_status_name(J2K_OK), "J2K_OK");
  EXPECT_STREQ(j2k_status_name(J2K_OUT_OF_MEMORY), "J2K_OUT_OF_MEMORY");
  EXPECT_STREQ(j2k_status_name(static_cast<j2k_status>(99)), "unknown status");
  EXPECT_STRNE(j2k_version(), "");
  j2k_settings s;
  j2k_settings_default(&s);
  EXPECT_EQ(s.levels, 5);
  EXPECT_EQ(s.wavelet, J2K_WAVELET_53);
  EXPECT_EQ(s.device, -1);
  EXPECT_EQ(j2k_backend_name(static_cast<j2k_backend>(9)), nullptr);
  const char* why = nullptr;
  EXPECT_EQ(j2k_backend_available(J2K_BACKEND_CPU, &why), 1);
  EXPECT_EQ(j2k_backend_available(static_cast<j2k_backend>(9), &why), 0);
  EXPECT_NE(std::string(why).find("backend"), std::string::npos) << why;
}

TEST(CApi, BadSettingsAreRefusedWithTheirCause) {
  Gray g;
  j2k_plan* plan = reinterpret_cast<j2k_plan*>(1);
  EXPECT_FAILS(j2k_plan_create(nullptr, &g.view, &plan), J2K_INVALID_ARGUMENT, "settings");
  EXPECT_EQ(plan, nullptr) << "a failed create leaves no handle";
  j2k_settings s = cpu_settings();
  EXPECT_FAILS(j2k_plan_create(&s, nullptr, &plan), J2K_INVALID_ARGUMENT, "shape");
  EXPECT_FAILS(j2k_plan_create(&s, &g.view, nullptr), J2K_INVALID_ARGUMENT, "plan");
  s.levels = 33;
  EXPECT_FAILS(j2k_plan_create(&s, &g.view, &plan), J2K_INVALID_ARGUMENT, "levels");
  s = cpu_settings();
  s.wavelet = static_cast<j2k_wavelet>(7);
  EXPECT_FAILS(j2k_plan_create(&s, &g.view, &plan), J2K_INVALID_ARGUMENT, "wavelet 7");
  s = cpu_settings();
  s.mct = static_cast<j2k_mct>(5);
  EXPECT_FAILS(j2k_plan_create(&s, &g.view, &plan), J2K_INVALID_ARGUMENT, "mct 5");
  s = cpu_settings();
  s.backend = static_cast<j2k_backend>(9);
  EXPECT_FAILS(j2k_plan_create(&s, &g.view, &plan), J2K_INVALID_ARGUMENT, "backend");
  s = cpu_settings();
  s.threads = 100000;
  EXPECT_FAILS(j2k_plan_create(&s, &g.view, &plan), J2K_INVALID_ARGUMENT, "threads");
  s = cpu_settings();
  s.tile_w = 8;  // tile_h missing
  EXPECT_FAILS(j2k_plan_create(&s, &g.view, &plan), J2K_INVALID_ARGUMENT, "tile size");
  s = cpu_settings();
  s.tile_x0 = 3;  // beyond the image origin 0
  s.tile_w = s.tile_h = 8;
  EXPECT_FAILS(j2k_plan_create(&s, &g.view, &plan), J2K_INVALID_ARGUMENT, "tile origin");
  s = cpu_settings();
  s.mct = J2K_MCT_ON;  // one component
  EXPECT_FAILS(j2k_plan_create(&s, &g.view, &plan), J2K_INVALID_ARGUMENT, "MCT");
  s = cpu_settings();
  s.output_memory = J2K_MEMORY_DEVICE;
  EXPECT_FAILS(j2k_plan_create(&s, &g.view, &plan), J2K_INVALID_ARGUMENT, "device memory");
}

// A backend's own knobs are one string of items named after the backend, not fields of the
// settings: each backend reads its own, a CPU plan ignores the others', and an item naming no
// backend (or an unknown CUDA one) is refused by name on any backend.
TEST(CApi, BackendOptionsAreItemsNamedByTheirBackend) {
  Gray g;
  j2k_plan* plan = nullptr;
  j2k_settings s = cpu_settings();
  s.backend_options = "opencl.small,cuda.fuse_97,cuda.fuse_inverse,,opencl.hp=2";
  ASSERT_EQ(j2k_plan_create(&s, &g.view, &plan), J2K_OK) << j2k_last_error();
  j2k_plan_destroy(plan);
  plan = nullptr;
  s.backend_options = "small";
  EXPECT_FAILS(j2k_plan_create(&s, &g.view, &plan), J2K_INVALID_ARGUMENT, "backend option 'small'");
  s.backend_options = "cuda.fuse_53";
  EXPECT_FAILS(j2k_plan_create(&s, &g.view, &plan), J2K_INVALID_ARGUMENT, "backend option 'cuda.fuse_53'");
  j2k_dwt* dwt = nullptr;
  EXPECT_FAILS(j2k_dwt_create(&s, &dwt), J2K_INVALID_ARGUMENT, "cuda.fuse_53");
  EXPECT_EQ(dwt, nullptr);
}

TEST(CApi, FileFormatFromName) {
  j2k_file_format f = J2K_FORMAT_JP2;
  EXPECT_EQ(j2k_file_format_from_name("out.J2K", &f), 1);
  EXPECT_EQ(f, J2K_FORMAT_J2K);
  EXPECT_EQ(j2k_file_format_from_name("a/b.c/out.jp2", &f), 1);
  EXPECT_EQ(f, J2K_FORMAT_JP2);
  EXPECT_EQ(j2k_file_format_from_name("x.jpc", &f), 1);
  EXPECT_EQ(f, J2K_FORMAT_J2K);
  EXPECT_EQ(j2k_file_format_from_name("x.j2c", nullptr), 1);
  EXPECT_EQ(j2k_file_format_from_name("x.JPH", &f), 1);
  EXPECT_EQ(f, J2K_FORMAT_JP2);
  EXPECT_EQ(j2k_file_format_from_name("x.jhc", &f), 1);
  EXPECT_EQ(f, J2K_FORMAT_J2K);
  EXPECT_EQ(j2k_file_format_is_ht("x.jph") + j2k_file_format_is_ht("x.JHC"), 2);
  EXPECT_EQ(j2k_file_format_is_ht("x.jp2") + j2k_file_format_is_ht("x.j2k") + j2k_file_format_is_ht(nullptr), 0);
  for (const char* other : {"x.png", "jp2", "dir.jp2/file", "x.jp2.tmp", ".", ""}) {
    f = J2K_FORMAT_JP2;
    EXPECT_EQ(j2k_file_format_from_name(other, &f), 0) << other;
    EXPECT_EQ(f, J2K_FORMAT_JP2) << "untouched for " << other;
  }
  EXPECT_EQ(j2k_file_format_from_name(nullptr, &f), 0);
}

TEST(CApi, StandardLimits) {
  // 65536 tiles of 1x1: JPEG 2000 allows 65535.
  std::vector<uint8_t> big(256 * 256);
  j2k_component_view c{};
  j2k_views_planar(&c, 1, big.data(), big.size(), J2K_SAMPLE_U8, 8, 256, 256 * 256);
  j2k_image_view v{};
  v.width = v.height = 256;
  v.num_components = 1;
  v.components = &c;
  j2k_settings s = cpu_settings();
  s.tile_w = s.tile_h = 1;
  j2k_plan* plan = nullptr;
  EXPECT_FAILS(j2k_plan_create(&s, &v, &plan), J2K_INVALID_ARGUMENT, "65535");
  s.tile_w = 1;
  s.tile_h = 2;  // 32768 tiles: allowed
  ASSERT_EQ(j2k_plan_create(&s, &v, &plan), J2K_OK) << j2k_last_error();
  j2k_plan_destroy(plan);
  // The canvas ends at 2^32 - 1.
  v.x0 = 0xFFFFFF00u;
  EXPECT_FAILS(j2k_plan_create(&s, &v, &plan), J2K_INVALID_ARGUMENT, "2^32-1");
}

// max_host_memory: a plan that needs exactly the limit is made, one that needs a byte more is
// refused (J2K_OUT_OF_MEMORY, naming both figures) before its coefficients are allocated.
TEST(CApi, HostMemoryLimitIsCheckedBeforeAllocating) {
  std::vector<uint8_t> pixels(300 * 200, 7);
  j2k_component_view c{};
  j2k_views_planar(&c, 1, pixels.data(), pixels.size(), J2K_SAMPLE_U8, 8, 300, 300 * 200);
  j2k_image_view v{};
  v.width = 300;
  v.height = 200;
  v.num_components = 1;
  v.components = &c;
  for (int narrow : {0, 1}) {
    SCOPED_TRACE(narrow ? "int16" : "int32");
    j2k_settings s = cpu_settings();
    s.threads = 1;
    s.narrow_output = narrow;
    s.tile_w = s.tile_h = 128;
    j2k_plan* plan = nullptr;
    ASSERT_EQ(j2k_plan_create(&s, &v, &plan), J2K_OK) << j2k_last_error();
    j2k_memory_report m{};
    ASSERT_EQ(j2k_plan_get_memory(plan, &m), J2K_OK);
    j2k_plan_destroy(plan);
    const size_t need = m.host + m.pinned;
    EXPECT_GE(need, size_t{300} * 200 * (narrow ? 2 : 4));
    s.max_host_memory = need;
    ASSERT_EQ(j2k_plan_create(&s, &v, &plan), J2K_OK) << j2k_last_error();
    ASSERT_EQ(j2k_plan_run(plan, &v), J2K_OK) << j2k_last_error();
    j2k_plan_destroy(plan);
    s.max_host_memory = need - 1;
    plan = nullptr;
    EXPECT_FAILS(j2k_plan_create(&s, &v, &plan), J2K_OUT_OF_MEMORY,
                 "needs " + std::to_string(need) + " bytes of host memory");
    EXPECT_NE(std::string(j2k_last_error()).find("limit of " + std::to_string(need - 1)), std::string::npos)
        << j2k_last_error();
    EXPECT_EQ(plan, nullptr);
  }
}

TEST(CApi, BadViewsAreRefusedWithTheirCause) {
  j2k_settings s = cpu_settings();
  j2k_plan* plan = nullptr;
  auto refuse = [&](auto mutate, const char* needle) {
    Gray g;
    mutate(g);
    EXPECT_FAILS(j2k_plan_create(&s, &g.view, &plan), J2K_INVALID_ARGUMENT, needle);
  };
  refuse([](Gray& g) { g.view.width = 0; }, "empty");
  refuse([](Gray& g) { g.view.num_components = 0; }, "components");
  refuse([](Gray& g) { g.view.components = nullptr; }, "component array");
  refuse([](Gray& g) { g.comp.type = J2K_SAMPLE_F32; }, "sample type");
  refuse([](Gray& g) { g.comp.type = static_cast<j2k_sample_type>(42); }, "sample type");
  refuse([](Gray& g) { g.comp.precision = 9; }, "precision");
  refuse([](Gray& g) { g.comp.precision = 0; }, "precision");
  refuse([](Gray& g) { g.comp.dx = 0; }, "subsampling");
  refuse([](Gray& g) { g.view.memory = static_cast<j2k_memory>(7); }, "memory");
  refuse([](Gray& g) { g.view.memory = J2K_MEMORY_DEVICE; }, "device memory");

  // Run-time checks: pointers, strides, and the plan's shape.
  Gray g;
  ASSERT_EQ(j2k_plan_create(&s, &g.view, &plan), J2K_OK) << j2k_last_error();
  auto run_refuses = [&](auto mutate, const char* needle) {
    Gray h;
    mutate(h);
    EXPECT_FAILS(j2k_plan_run(plan, &h.view), J2K_INVALID_ARGUMENT, needle);
  };
  run_refuses([](Gray& h) { h.comp.data = nullptr; }, "null");
  run_refuses([](Gray& h) { h.comp.row_stride = 15; }, "row stride");
  run_refuses([](Gray& h) { h.comp.pixel_stride = 0; }, "pixel stride");
  // The buffer's size: one byte short, a stride that reaches past it, a span past 2^63.
  run_refuses([](Gray& h) { h.comp.bytes = 16 * 8 - 1; }, "span 128 bytes, but the buffer holds 127");
  run_refuses([](Gray& h) { h.comp.bytes = 0; }, "the buffer holds 0");
  run_refuses([](Gray& h) { h.comp.row_stride = 17; }, "span 135 bytes, but the buffer holds 128");
  run_refuses([](Gray& h) { h.comp.row_stride = PTRDIFF_MAX / 4; }, "more than 2^63 bytes");
  run_refuses([](Gray& h) { h.view.width = 15; }, "shape");
  run_refuses([](Gray& h) { h.view.x0 = 1; }, "shape");
  run_refuses([](Gray& h) { h.comp.precision = 7; }, "shape");
  EXPECT_FAILS(j2k_plan_run(plan, nullptr), J2K_INVALID_ARGUMENT, "image");
  EXPECT_FAILS(j2k_plan_run(nullptr, &g.view), J2K_INVALID_ARGUMENT, "plan");
  EXPECT_EQ(j2k_plan_run(plan, &g.view), J2K_OK) << j2k_last_error();
  EXPECT_STREQ(j2k_last_error(), "");

  // Outputs and queries.
  j2k_tile_component tc;
  EXPECT_FAILS(j2k_plan_get_tile_component(plan, 1, &tc), J2K_INVALID_ARGUMENT, "does not exist");
  j2k_band b;
  EXPECT_FAILS(j2k_plan_get_band(plan, 0, 16, &b), J2K_INVALID_ARGUMENT, "band 16");
  std::vector<int32_t> out(16 * 8);
  const size_t out_bytes = out.size() * 4;
  EXPECT_FAILS(j2k_plan_set_output(plan, 0, out.data(), out_bytes, 60, J2K_MEMORY_HOST), J2K_INVALID_ARGUMENT, "stride");
  EXPECT_FAILS(j2k_plan_set_output(plan, 0, out.data(), out_bytes, 64, J2K_MEMORY_DEVICE), J2K_INVALID_ARGUMENT, "device memory");
  EXPECT_FAILS(j2k_plan_set_output(plan, 3, out.data(), out_bytes, 64, J2K_MEMORY_HOST), J2K_INVALID_ARGUMENT, "does not exist");
  EXPECT_FAILS(j2k_plan_set_output(plan, 0, out.data(), out_bytes - 1, 64, J2K_MEMORY_HOST), J2K_INVALID_ARGUMENT,
               "output 0: 8 rows of 16 4-byte elements, rows 64 bytes apart, span 512 bytes, but the buffer holds 511");
  EXPECT_FAILS(j2k_plan_set_output(plan, 0, out.data(), out_bytes, 68, J2K_MEMORY_HOST), J2K_INVALID_ARGUMENT,
               "span 540 bytes, but the buffer holds 512");
  EXPECT_EQ(j2k_plan_set_output(plan, 0, out.data(), out_bytes, 64, J2K_MEMORY_HOST), J2K_OK);
  EXPECT_EQ(j2k_plan_run(plan, &g.view), J2K_OK);
  // A flat image: the reversible low-pass keeps the shifted value, every detail is 0.
  EXPECT_EQ(out[0], 100 - 128);
  EXPECT_EQ(std::count(out.begin(), out.end(), 0), 16 * 8 - 1);

  // Frames and the timeline.
  j2k_ticket t = 99;
  EXPECT_FAILS(j2k_plan_submit(nullptr, &g.view, &t), J2K_INVALID_ARGUMENT, "plan");
  EXPECT_EQ(t, 0u) << "a refused submit leaves no ticket";
  EXPECT_FAILS(j2k_plan_submit(plan, nullptr, &t), J2K_INVALID_ARGUMENT, "image");
  EXPECT_FAILS(j2k_plan_submit(plan, &g.view, nullptr), J2K_INVALID_ARGUMENT, "ticket");
  EXPECT_FAILS(j2k_plan_wait(nullptr, 1), J2K_INVALID_ARGUMENT, "plan");
  ASSERT_EQ(j2k_plan_submit(plan, &g.view, &t), J2K_OK) << j2k_last_error();
  EXPECT_NE(t, 0u);
  EXPECT_EQ(j2k_plan_wait(plan, t), J2K_OK) << j2k_last_error();
  EXPECT_FAILS(j2k_plan_wait(plan, t), J2K_INVALID_ARGUMENT, "not in flight");
  EXPECT_FAILS(j2k_plan_submit_after(plan, &g.view, nullptr, &t), J2K_INVALID_ARGUMENT, "needs the cuda backend");
  EXPECT_FAILS(j2k_plan_signal(plan, 1234, nullptr), J2K_INVALID_ARGUMENT, "not in flight");
  ASSERT_EQ(j2k_plan_submit(plan, &g.view, &t), J2K_OK) << j2k_last_error();
  EXPECT_FAILS(j2k_plan_signal(plan, t, nullptr), J2K_INVALID_ARGUMENT, "needs the cuda backend");
  EXPECT_EQ(j2k_plan_wait(plan, t), J2K_OK) << j2k_last_error();
  size_t n = 7;
  j2k_span span;
  EXPECT_FAILS(j2k_plan_get_timeline(plan, nullptr, 1, &n), J2K_INVALID_ARGUMENT, "spans");
  EXPECT_FAILS(j2k_plan_get_timeline(plan, &span, 1, nullptr), J2K_INVALID_ARGUMENT, "count");
  EXPECT_FAILS(j2k_plan_set_tracing(nullptr, 1), J2K_INVALID_ARGUMENT, "plan");
  EXPECT_EQ(j2k_plan_get_timeline(plan, nullptr, 0, &n), J2K_OK);
  EXPECT_EQ(n, 0u) << "the CPU records no spans";
  j2k_plan_destroy(plan);
  j2k_plan_destroy(nullptr);
}

// j2k_views_*: each component gets what is left of the buffer from its first sample on, so a
// view of a buffer too small for its planes is refused at run.
TEST(CApi, ViewHelpersGiveEachComponentTheBytesLeft) {
  std::vector<uint8_t> rgb(10 * 4 * 3);
  j2k_component_view c[3];
  j2k_views_interleaved(c, 3, rgb.data(), rgb.size(), J2K_SAMPLE_U8, 8, 30);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(c[i].data, rgb.data() + i);
    EXPECT_EQ(c[i].bytes, rgb.size() - static_cast<size_t>(i));
    EXPECT_EQ(c[i].pixel_stride, 3);
  }
  j2k_views_planar(c, 3, rgb.data(), rgb.size(), J2K_SAMPLE_U16, 12, 20, 60);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(c[i].bytes, rgb.size() - 60 * static_cast<size_t>(i));
  j2k_views_planar(c, 3, rgb.data(), 100, J2K_SAMPLE_U8, 8, 10, 60);  // plane 2 starts past the end
  EXPECT_EQ(c[1].bytes, 40u);
  EXPECT_EQ(c[2].bytes, 0u);

  // Planar views of 10 x 4 bytes each, in a buffer one byte short of the third plane.
  j2k_views_planar(c, 3, rgb.data(), 119, J2K_SAMPLE_U8, 8, 10, 40);
  j2k_image_view v{};
  v.width = 10;
  v.height = 4;
  v.num_components = 3;
  v.components = c;
  const j2k_settings s = cpu_settings();
  j2k_plan* plan = nullptr;
  ASSERT_EQ(j2k_plan_create(&s, &v, &plan), J2K_OK) << j2k_last_error();
  EXPECT_FAILS(j2k_plan_run(plan, &v), J2K_INVALID_ARGUMENT, "component 2: 4 rows of 10 1-byte elements");
  j2k_views_planar(c, 3, rgb.data(), rgb.size(), J2K_SAMPLE_U8, 8, 10, 40);
  EXPECT_EQ(j2k_plan_run(plan, &v), J2K_OK) << j2k_last_error();
  j2k_plan_destroy(plan);
}

TEST(CApi, DwtAloneWorkedExampleAndErrors) {
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  j2kfront::Dwt dwt(s);
  EXPECT_EQ(dwt.backend(), J2K_BACKEND_CPU);
  // ../shared/OPENJPEG.md: one level on one row, at origin 0 and at origin 1.
  std::vector<int32_t> a = {10, 20, 30, 40, 50, 61};
  dwt.forward(a.data(), a.size(), 6, j2k_rect{0, 0, 6, 1}, 1);
  EXPECT_EQ(a, (std::vector<int32_t>{10, 30, 53, 0, 0, 11}));
  a = {10, 20, 30, 40, 50, 61};
  dwt.forward(a.data(), a.size(), 6, j2k_rect{1, 0, 7, 1}, 1);
  EXPECT_EQ(a, (std::vector<int32_t>{18, 40, 61, -10, 0, 0}));
  dwt.inverse(a.data(), a.size(), 6, j2k_rect{1, 0, 7, 1}, 1);
  EXPECT_EQ(a, (std::vector<int32_t>{10, 20, 30, 40, 50, 61}));

  const j2k_rect r{0, 0, 4, 4};
  std::vector<int32_t> b(16);
  try {
    dwt.forward(b.data(), b.size(), 3, r, 1);
    FAIL() << "stride < width accepted";
  } catch (const j2kfront::Error& e) {
    EXPECT_EQ(e.status(), J2K_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("stride"), std::string::npos) << e.what();
  }
  EXPECT_THROW(dwt.forward(b.data(), b.size(), 4, r, 33), j2kfront::Error);
  EXPECT_THROW(dwt.forward(static_cast<int32_t*>(nullptr), 16, 4, r, 1), j2kfront::Error);
  EXPECT_FAILS(j2k_dwt_run(nullptr, J2K_FORWARD, J2K_WAVELET_53, b.data(), 64, 16, &r, 1), J2K_INVALID_ARGUMENT, "dwt");
  j2k_dwt* d = nullptr;
  const j2k_settings cs = cpu_settings();
  ASSERT_EQ(j2k_dwt_create(&cs, &d), J2K_OK);
  EXPECT_FAILS(j2k_dwt_run(d, static_cast<j2k_direction>(3), J2K_WAVELET_53, b.data(), 64, 16, &r, 1), J2K_INVALID_ARGUMENT, "direction");
  EXPECT_FAILS(j2k_dwt_run(d, J2K_FORWARD, J2K_WAVELET_53, b.data(), 64, 15, &r, 1), J2K_INVALID_ARGUMENT, "stride");
  // The buffer's size: one coefficient short, rows that reach past it, a span past 2^63.
  EXPECT_FAILS(j2k_dwt_run(d, J2K_FORWARD, J2K_WAVELET_97, b.data(), 60, 16, &r, 1), J2K_INVALID_ARGUMENT,
               "data: 4 rows of 4 4-byte elements, rows 16 bytes apart, span 64 bytes, but the buffer holds 60");
  EXPECT_FAILS(j2k_dwt_run(d, J2K_INVERSE, J2K_WAVELET_53, b.data(), 64, 20, &r, 1), J2K_INVALID_ARGUMENT,
               "span 76 bytes");
  const j2k_rect tall{0, 0, 4, int64_t{1} << 32};
  EXPECT_FAILS(j2k_dwt_run(d, J2K_FORWARD, J2K_WAVELET_53, b.data(), 64, int64_t{1} << 32, &tall, 1),
               J2K_INVALID_ARGUMENT, "more than 2^63 bytes");
  EXPECT_THROW(dwt.forward(b.data(), b.size() - 1, 4, r, 1), j2kfront::Error);
  const j2k_rect empty{3, 3, 3, 3};
  EXPECT_EQ(j2k_dwt_run(d, J2K_FORWARD, J2K_WAVELET_53, nullptr, 0, 4, &empty, 5), J2K_OK) << "empty: nothing to do";
  j2k_dwt_destroy(d);
}

}  // namespace

namespace {

// An embedder's pool for the tests: `threads` std::threads per run claiming items in turn
// (worker index = thread index), or all on the calling thread; it counts its runs.
struct TestPool {
  int threads = 1;
  std::atomic<int> runs{0};
  int bad_worker = -1;      // >= 0: hands out this worker index (a broken pool)
  bool drop_items = false;  // runs one item fewer than asked (a broken pool)

  static void run(void* context, size_t count, int workers, j2k_task_fn task, void* arg) {
    auto* self = static_cast<TestPool*>(context);
    self->runs++;
    const size_t n = self->drop_items ? count - 1 : count;
    std::atomic<size_t> next{0};
    auto work = [&](int worker) {
      for (size_t i = next++; i < n; i = next++) task(arg, i, self->bad_worker >= 0 ? self->bad_worker : worker);
    };
    std::vector<std::thread> helpers;
    for (int w = 1; w < std::min(self->threads, workers); ++w) helpers.emplace_back(work, w);
    work(0);
    for (auto& h : helpers) h.join();
  }
  j2k_thread_pool pool(int workers) { return j2k_thread_pool{&TestPool::run, this, workers}; }
};

}  // namespace

// The embedder's own threads through settings.thread_pool: the same coefficients as
// j2kfront's pool, the work really handed to it, and a broken pool reported, not obeyed.
TEST(CApi, EmbeddersThreadPoolRunsTheCpuWork) {
  const uint32_t w = 300, h = 200;
  std::vector<uint8_t> rgb(size_t{w} * h * 3);
  for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<uint8_t>((i * 37 + i / 900) & 255);
  const auto view = j2kfront::ImageView::interleaved(rgb.data(), rgb.size(), w, h, 3, J2K_SAMPLE_U8, 8);
  auto coefficients_with = [&](const j2k_thread_pool* pool, j2k_wavelet wavelet) {
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    s.wavelet = wavelet;
    s.thread_pool = pool;
    j2kfront::Plan plan(s, view);
    plan.run(view);
    const j2k_coefficients c = plan.tile_component(0).coefficients;
    std::vector<char> out;
    for (int64_t y = 0; y < c.height; ++y) {
      const char* row = static_cast<const char*>(c.data) + y * c.row_stride;
      out.insert(out.end(), row, row + c.width * 4);
    }
    return out;
  };
  for (j2k_wavelet wavelet : {J2K_WAVELET_53, J2K_WAVELET_97}) {
    const std::vector<char> own = coefficients_with(nullptr, wavelet);
    for (int threads : {1, 3}) {
      TestPool tp;
      tp.threads = threads;
      const j2k_thread_pool pool = tp.pool(4);
      EXPECT_TRUE(coefficients_with(&pool, wavelet) == own) << threads << " threads";
      EXPECT_GT(tp.runs.load(), 0) << "the embedder's pool was not used";
    }
  }
  // The C++ wrapper's pool, from a callable (here: every item on the calling thread).
  int calls = 0;
  auto serial = [&calls](size_t count, int, const auto& body) {
    ++calls;
    for (size_t i = 0; i < count; ++i) body(i, 0);
  };
  const j2kfront::ThreadPool cxx_pool(serial, 3);
  EXPECT_TRUE(coefficients_with(cxx_pool.get(), J2K_WAVELET_53) == coefficients_with(nullptr, J2K_WAVELET_53));
  EXPECT_GT(calls, 0);

  // The DWT alone goes through it too.
  TestPool tp;
  tp.threads = 2;
  const j2k_thread_pool pool = tp.pool(2);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.thread_pool = &pool;
  j2kfront::Dwt dwt(s);
  std::vector<int32_t> a(512 * 512, 7);
  dwt.forward(a.data(), a.size(), 512, j2k_rect{0, 0, 512, 512}, 3);
  EXPECT_GT(tp.runs.load(), 0);

  // Refused settings, and broken pools reported as such.
  j2k_settings cs = cpu_settings();
  j2k_plan* plan = nullptr;
  j2k_thread_pool bad = tp.pool(0);
  cs.thread_pool = &bad;
  EXPECT_FAILS(j2k_plan_create(&cs, view.get(), &plan), J2K_INVALID_ARGUMENT, "thread_pool->workers must be 1");
  bad = tp.pool(2);
  bad.run = nullptr;
  EXPECT_FAILS(j2k_plan_create(&cs, view.get(), &plan), J2K_INVALID_ARGUMENT, "thread_pool->run is null");
  bad = tp.pool(2);
  cs.threads = 2;
  EXPECT_FAILS(j2k_plan_create(&cs, view.get(), &plan), J2K_INVALID_ARGUMENT, "threads must be 0 with a thread_pool");
  cs.threads = 0;
  TestPool broken;
  broken.bad_worker = 9;
  j2k_thread_pool b = broken.pool(2);
  cs.thread_pool = &b;
  ASSERT_EQ(j2k_plan_create(&cs, view.get(), &plan), J2K_OK) << j2k_last_error();
  EXPECT_FAILS(j2k_plan_run(plan, view.get()), J2K_INVALID_ARGUMENT, "gave worker index 9, outside 0..1");
  j2k_plan_destroy(plan);
  TestPool lazy;
  lazy.drop_items = true;
  b = lazy.pool(2);
  ASSERT_EQ(j2k_plan_create(&cs, view.get(), &plan), J2K_OK) << j2k_last_error();
  EXPECT_FAILS(j2k_plan_run(plan, view.get()), J2K_INVALID_ARGUMENT, "thread pool ran");
  j2k_plan_destroy(plan);
}

// A build without CUDA still links j2k_cuda_dwt and its workspace query (transform/
// device_dwt.cpp), and both say why they cannot run; a build with it is cuda_test's.
TEST(CudaDwtApi, ABuildWithoutCudaSaysSo) {
#if J2KFRONT_HAVE_CUDA
  GTEST_SKIP() << "this build has the CUDA backend: cuda_test covers j2k_cuda_dwt";
#else
  const j2k_rect rect{0, 0, 8, 8};
  size_t bytes = 1;
  EXPECT_FAILS(j2k_cuda_dwt_workspace_size(J2K_WAVELET_53, &rect, 2, &bytes), J2K_BACKEND_UNAVAILABLE, "no CUDA backend");
  EXPECT_EQ(bytes, 0u);
  std::vector<int32_t> host(64);
  const j2k_device_plane plane{host.data(), J2K_SAMPLE_I32, 8 * 4, host.size() * 4};
  EXPECT_FAILS(j2k_cuda_dwt(J2K_FORWARD, J2K_WAVELET_53, &plane, 0, &plane, &rect, 2, nullptr, 0, nullptr),
               J2K_BACKEND_UNAVAILABLE, "no CUDA backend");
#endif
}
