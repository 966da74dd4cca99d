// SPDX-License-Identifier: BSD-2-Clause
// OpenCL-specific tests: device enumeration and selection (BackendOptions::device, bad
// indices; no environment variable is read), OpenCL error conversion, the program cache, the
// tuning option, and the kernels with tiny tile/window sizes (opencl_tuning "small") so that
// small images cross every strip, segment, window and chunk boundary, bit-exact against the CPU.
//
// Built twice: opencl_test (the machine's OpenCL as it is) and, with
// J2K_OPENCL_TEST_NO_PLATFORM, opencl_noplatform_test, which CTest runs with OCL_ICD_VENDORS
// pointing at an empty folder: no platform, so a clear "unavailable", never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "transform/backend.hpp"
#include "transform/dwt.hpp"
#include "common/error.hpp"
#include "j2kfront/j2kfront.h"
#include "pipeline/plan.hpp"
#include "transform/opencl/opencl_dwt.hpp"

namespace {

using j2k::Backend;
using j2k::BackendOptions;
using j2k::ErrorCode;
using j2k::Rect;

// Sets (or unsets, value == nullptr) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

#ifdef J2K_OPENCL_TEST_NO_PLATFORM

TEST(OpenCLNoPlatform, UnavailableWithReasonNotACrash) {
  // The ICD loader also loads the drivers OCL_ICD_FILENAMES names, whatever the vendors folder
  // (ctest points OCL_ICD_VENDORS at an empty one): a machine may set it (measured: the GPU
  // machine's libpocl.so.2:libnvidia-opencl.so.1). Unset before the loader's first use.
  const ScopedEnv no_files("OCL_ICD_FILENAMES", nullptr);
  std::string why;
  EXPECT_FALSE(j2k::backend_available(Backend::OpenCL, &why));
  EXPECT_NE(why.find("no OpenCL platform"), std::string::npos) << why;
  EXPECT_TRUE(j2k::ocl::list_devices().empty());
  try {
    j2k::Dwt dwt(BackendOptions{Backend::OpenCL, 0, -1});
    FAIL() << "expected Error(BackendUnavailable)";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::BackendUnavailable) << e.what();
    EXPECT_NE(std::string(e.what()).find("no OpenCL platform"), std::string::npos) << e.what();
  }
  // Auto falls back to the CPU (or CUDA where built and present), never to OpenCL.
  EXPECT_NE(j2k::resolve_backend(Backend::Auto, j2k::Job::Transform), Backend::OpenCL);
  j2k::Dwt dwt(BackendOptions{});
  EXPECT_NE(dwt.backend(), Backend::OpenCL);
}

#else

BackendOptions opencl(int device = -1, const std::string& tuning = {}) {
  BackendOptions o;
  o.backend = Backend::OpenCL;
  o.device = device;
  o.opencl_tuning = tuning;
  return o;
}

class OpenCLTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!j2k::backend_available(Backend::OpenCL, &why))
      GTEST_SKIP() << "opencl backend unavailable: " << why;
    devices_ = j2k::ocl::list_devices();
  }
  std::vector<j2k::ocl::DeviceInfo> devices_;
};

TEST_F(OpenCLTest, DeviceListIsStable) {
  ASSERT_FALSE(devices_.empty());
  const auto again = j2k::ocl::list_devices();
  ASSERT_EQ(again.size(), devices_.size());
  for (size_t i = 0; i < again.size(); ++i) {
    EXPECT_EQ(again[i].id, devices_[i].id) << i;
    EXPECT_EQ(again[i].name, devices_[i].name) << i;
  }
  for (const auto& d : devices_)
    std::cout << "[opencl] device: " << d.name << " | " << d.platform_name << " | " << d.version
              << (d.gpu ? " | GPU" : "") << (d.usable ? "" : " | unusable") << "\n";
}

TEST_F(OpenCLTest, DefaultIsFirstGpuElseFirstDevice) {
  int expected = -1;
  for (size_t i = 0; i < devices_.size() && expected < 0; ++i)
    if (devices_[i].gpu && devices_[i].usable) expected = static_cast<int>(i);
  for (size_t i = 0; i < devices_.size() && expected < 0; ++i)
    if (devices_[i].usable) expected = static_cast<int>(i);
  EXPECT_EQ(j2k::ocl::select_device(-1), expected);
  j2k::Dwt dwt(BackendOptions{Backend::OpenCL, 0, -1});
  EXPECT_EQ(dwt.backend(), Backend::OpenCL);
  EXPECT_NE(dwt.description().find(devices_[static_cast<size_t>(expected)].name), std::string::npos)
      << dwt.description();
}

TEST_F(OpenCLTest, ExplicitIndexWins) {
  const int last = static_cast<int>(devices_.size()) - 1;
  EXPECT_EQ(j2k::ocl::select_device(last), last);
  EXPECT_EQ(j2k::ocl::select_device(0), 0);
}

// The variables that the library once read (the CLI maps them now) change nothing, even
// with values it would refuse as options.
TEST_F(OpenCLTest, LibraryReadsNoEnvironment) {
  const int expected = j2k::ocl::select_device(-1);
  ScopedEnv device("J2KFRONT_DEVICE", "gpu");
  ScopedEnv tuning("J2KFRONT_OPENCL_TUNING", "nonsense=1");
  EXPECT_EQ(j2k::ocl::select_device(-1), expected);
  j2k::Dwt dwt(opencl());
  EXPECT_EQ(dwt.backend(), Backend::OpenCL);
}

TEST_F(OpenCLTest, BadIndexIsInvalidArgumentNamingTheCount) {
  const std::string count = std::to_string(devices_.size());
  auto expect_invalid = [&](int index) {
    try {
      j2k::Dwt dwt(opencl(index));
      ADD_FAILURE() << "no error for index " << index;
    } catch (const j2k::Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
      EXPECT_NE(std::string(e.what()).find(count + " device"), std::string::npos) << e.what();
    }
  };
  expect_invalid(static_cast<int>(devices_.size()));
  expect_invalid(1000);
}

TEST_F(OpenCLTest, BadTuningIsInvalidArgumentNamingTheItem) {
  auto expect_invalid = [&](const std::string& tuning, const std::string& needle) {
    try {
      j2k::Dwt dwt(opencl(-1, tuning));
      ADD_FAILURE() << "no error for tuning '" << tuning << "'";
    } catch (const j2k::Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_invalid("hp=2,nonsense=1", "'nonsense=1'");
  expect_invalid("hp=x", "'hp=x'");
  expect_invalid("vcap=100", "cannot run");  // not a power of two
  // Valid sizes, but 128 MiB of local memory: refused before any driver sees it.
  expect_invalid("vcap=1048576", "bytes of local memory in the vertical pass, more than the device's");
  expect_invalid("max_alloc=0", "'max_alloc=0'");
  expect_invalid("max_alloc=-1", "'max_alloc=-1'");
  expect_invalid("max_alloc=4k", "'max_alloc=4k'");
  j2k::Dwt ok(opencl(-1, "hp=2,hgroup=64"));
  EXPECT_EQ(ok.backend(), Backend::OpenCL);
}

// max_alloc lowers the device's largest buffer as the runner reports it, never raises it.
TEST_F(OpenCLTest, TuningMaxAllocLowersTheLargestBuffer) {
  const int index = j2k::ocl::select_device(-1);
  const uint64_t device = devices_[static_cast<size_t>(index)].max_alloc;
  EXPECT_EQ(j2k::ocl::Runner(index, "max_alloc=12345").device().max_alloc, device ? std::min<uint64_t>(device, 12345) : 12345);
  EXPECT_EQ(j2k::ocl::Runner(index, "").device().max_alloc, device);
  if (device > 0 && device < (uint64_t{1} << 62)) {
    EXPECT_EQ(j2k::ocl::Runner(index, "max_alloc=" + std::to_string(device + 1)).device().max_alloc, device);
  }
}

TEST_F(OpenCLTest, ErrorsNameTheCallAndTheCode) {
  EXPECT_EQ(j2k::ocl::error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES (-5)");
  EXPECT_EQ(j2k::ocl::error_name(-9999), "OpenCL error (-9999)");
  try {
    j2k::ocl::check(CL_INVALID_KERNEL_ARGS, "clEnqueueNDRangeKernel");
    FAIL();
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::BackendFailure);
    EXPECT_STREQ(e.what(), "clEnqueueNDRangeKernel: CL_INVALID_KERNEL_ARGS (-52)");
  }
}

TEST_F(OpenCLTest, ProgramIsBuiltOncePerDevice) {
  std::vector<int32_t> v(64 * 64, 3);
  const Rect tc{0, 0, 64, 64};
  j2k::Dwt first(opencl());
  first.forward53(v.data(), 64, tc, 2);
  const uint64_t builds = j2k::ocl::program_builds();
  EXPECT_GE(builds, 1u);
  for (int i = 0; i < 3; ++i) {
    j2k::Dwt again(opencl());
    again.forward97(std::vector<float>(64 * 64, 1.5f).data(), 64, tc, 3);
  }
  EXPECT_EQ(j2k::ocl::program_builds(), builds);
}

// Forward and inverse of both wavelets against the CPU; returns differing words.
long compare(j2k::Dwt& subject, j2k::Dwt& reference, const Rect& tc, int levels, size_t stride,
             std::mt19937& rng) {
  const size_t rows = static_cast<size_t>(tc.height());
  const size_t n = rows == 0 ? 0 : (rows - 1) * stride + static_cast<size_t>(tc.width());
  std::uniform_int_distribution<int32_t> sample(-32768, 32767);
  long diff = 0;
  std::vector<int32_t> a(n), b;
  for (auto& x : a) x = sample(rng);
  b = a;
  reference.forward53(a.data(), stride, tc, levels);
  subject.forward53(b.data(), stride, tc, levels);
  for (size_t i = 0; i < n; ++i) diff += a[i] != b[i];
  b = a;
  reference.inverse53(a.data(), stride, tc, levels);
  subject.inverse53(b.data(), stride, tc, levels);
  for (size_t i = 0; i < n; ++i) diff += a[i] != b[i];
  std::vector<float> f(n), g;
  for (auto& x : f) x = static_cast<float>(sample(rng)) * 0.75f;
  g = f;
  reference.forward97(f.data(), stride, tc, levels);
  subject.forward97(g.data(), stride, tc, levels);
  for (size_t i = 0; i < n; ++i) diff += std::memcmp(&f[i], &g[i], 4) != 0;
  g = f;
  reference.inverse97(f.data(), stride, tc, levels);
  subject.inverse97(g.data(), stride, tc, levels);
  for (size_t i = 0; i < n; ++i) diff += std::memcmp(&f[i], &g[i], 4) != 0;
  return diff;
}

// Strips 4 columns wide, windows of 8 rows, segments of 11 rows, horizontal chunks of 16:
// sizes up to ~70 exercise every boundary case of the real kernels many times over.
TEST_F(OpenCLTest, SmallTilesCrossEveryKernelBoundary) {
  const uint64_t builds = j2k::ocl::program_builds();
  j2k::Dwt subject(opencl(-1, "small"));
  j2k::Dwt reference(BackendOptions{Backend::Cpu, 0, -1});
  EXPECT_LE(j2k::ocl::program_builds(), builds + 1);  // its own build options, built once
  std::mt19937 rng(7);
  long cases = 0, bad = 0;
  std::string first;
  const int64_t origins[][2] = {{0, 0}, {1, 1}, {3, 2}};
  for (const auto& o : origins)
    for (int64_t h = 1; h <= 70; h += (h < 24 ? 1 : 5))
      for (int64_t w = 1; w <= 70; w += (w < 24 ? 1 : 5)) {
        if ((w * 7 + h * 3 + o[0]) % 4 != 0) continue;
        const int levels = static_cast<int>((w + h + o[1]) % 5) + ((w * h) % 3 == 0 ? 4 : 1);
        const Rect tc{o[0], o[1], o[0] + w, o[1] + h};
        const size_t stride = static_cast<size_t>(w + (w % 3));
        ++cases;
        if (long d = compare(subject, reference, tc, levels, stride, rng)) {
          if (bad++ == 0)
            first = "[" + std::to_string(tc.x0) + "," + std::to_string(tc.x1) + ")x[" +
                    std::to_string(tc.y0) + "," + std::to_string(tc.y1) + ") levels " +
                    std::to_string(levels) + ": " + std::to_string(d) + " words differ";
        }
      }
  // A few larger ones: many strips, segments and chunks at once.
  for (const Rect& tc : {Rect{0, 0, 257, 131}, Rect{5, 3, 5 + 190, 3 + 203}, Rect{1, 0, 2, 300},
                         Rect{0, 7, 333, 8}}) {
    ++cases;
    if (long d = compare(subject, reference, tc, 4, static_cast<size_t>(tc.width()), rng))
      if (bad++ == 0) first = "large case: " + std::to_string(d) + " words differ";
  }
  std::cout << "[opencl] small tuning: " << cases << " geometries x 4 transforms, " << bad
            << " mismatching\n";
  EXPECT_EQ(bad, 0) << "first: " << first;
}

// A plan whose own coefficients are DEVICE memory (what the encoder asks for when its Tier-1
// runs on the device, codec/tier1/gpu/opencl/ht_image_encoder): one cl_mem of the device's
// context, each tile-component at its offset, copied there on the device by every queue of the
// plan; read back, the CPU plan's coefficients exactly. The public API still refuses DEVICE
// output memory off CUDA (its callers get pointers).
TEST_F(OpenCLTest, PlanKeepsDeviceCoefficientsInOneBuffer) {
  const int64_t w = 141, h = 97;
  std::mt19937 rng(3);
  std::vector<uint8_t> rgb(static_cast<size_t>(w * h * 3));
  for (uint8_t& v : rgb) v = static_cast<uint8_t>(rng());
  j2k_component_view comps[3];
  for (int c = 0; c < 3; ++c) {
    comps[c] = j2k_component_view{};
    comps[c].data = rgb.data() + c;
    comps[c].bytes = rgb.size() - static_cast<size_t>(c);
    comps[c].type = J2K_SAMPLE_U8;
    comps[c].precision = 8;
    comps[c].dx = comps[c].dy = 1;
    comps[c].row_stride = w * 3;
    comps[c].pixel_stride = 3;
  }
  j2k_image_view image{};
  image.x0 = 3, image.y0 = 1;
  image.width = static_cast<uint32_t>(w), image.height = static_cast<uint32_t>(h);
  image.num_components = 3;
  image.components = comps;
  image.memory = J2K_MEMORY_HOST;
  for (j2k::Wavelet wavelet : {j2k::Wavelet::Reversible53, j2k::Wavelet::Irreversible97}) {
    j2k::PlanSettings s;
    s.wavelet = wavelet;
    s.levels = 3;
    s.tile_w = 64, s.tile_h = 48;  // 9 tiles on 3 queues
    s.backend = BackendOptions{Backend::Cpu, 0, -1};
    j2k::Plan cpu(s, image);
    cpu.run(image);
    s.backend = opencl();
    s.output_memory = J2K_MEMORY_DEVICE;
    j2k::Plan gpu(s, image);
    gpu.run(image);
    ASSERT_EQ(gpu.tile_components().size(), cpu.tile_components().size());
    const void* buffer = gpu.tile_components()[0].home.base;
    j2k::ocl::Runner runner(j2k::ocl::select_device(-1));
    size_t differ = 0;
    for (size_t i = 0; i < cpu.tile_components().size(); ++i) {
      const j2k::Plane& want = cpu.tile_components()[i].home;
      const j2k::Plane& got = gpu.tile_components()[i].home;
      ASSERT_EQ(got.memory, J2K_MEMORY_DEVICE);
      ASSERT_EQ(got.base, buffer) << "tile-component " << i << ": every one in the plan's one cl_mem";
      const size_t bytes = static_cast<size_t>(got.row_stride * got.height);
      std::vector<uint8_t> back(bytes);
      if (bytes > 0)
        j2k::ocl::check(j2k::ocl::cl().clEnqueueReadBuffer(runner.queue(), static_cast<cl_mem>(const_cast<void*>(got.base)), CL_TRUE,
                                                           got.offset, bytes, back.data(), 0, nullptr, nullptr),
                        "clEnqueueReadBuffer");
      for (int64_t y = 0; y < got.height; ++y)
        differ += std::memcmp(back.data() + y * got.row_stride, static_cast<const char*>(want.base) + want.offset + y * want.row_stride,
                              static_cast<size_t>(got.width * 4)) != 0;
    }
    EXPECT_EQ(differ, 0u) << "rows unlike the CPU plan's (" << (wavelet == j2k::Wavelet::Reversible53 ? "5/3" : "9/7") << ")";
  }
  // The public API: DEVICE output memory is CUDA's alone.
  j2k_settings settings;
  j2k_settings_default(&settings);
  settings.backend = J2K_BACKEND_OPENCL;
  settings.output_memory = J2K_MEMORY_DEVICE;
  j2k_plan* plan = nullptr;
  EXPECT_EQ(j2k_plan_create(&settings, &image, &plan), J2K_INVALID_ARGUMENT);
  EXPECT_EQ(plan, nullptr);
  EXPECT_NE(std::string(j2k_last_error()).find("device memory needs the cuda backend"), std::string::npos) << j2k_last_error();
}

// Tuning against a device's limits, on described devices (no OpenCL device needed): the
// work-group sizes shrink to what the device runs, and local memory that the kernels would
// need beyond the device's is refused naming both figures, not left to the driver.
j2k::ocl::DeviceInfo described_device(uint64_t local_mem, size_t max_group, size_t max_x, size_t max_y) {
  j2k::ocl::DeviceInfo d;
  d.local_mem = local_mem;
  d.max_work_group = max_group;
  d.max_items[0] = max_x;
  d.max_items[1] = max_y;
  return d;
}

TEST(OpenCLTuning, WorkGroupsShrinkToTheDevicesLimits) {
  using j2k::ocl::Tuning;
  const Tuning t = Tuning::for_device(described_device(32768, 256, 16, 4));
  EXPECT_LE(t.vcols, 16);
  EXPECT_LE(t.vr, 4);
  EXPECT_LE(t.vcols * t.vr, 256);
  EXPECT_LE(t.hx_max, 16);
  EXPECT_LE(t.hgroup / t.hx_min, 4);  // rows of the narrowest horizontal groups
  EXPECT_LE(t.vertical_local_bytes(), 32768u);
  EXPECT_LE(t.horizontal_local_bytes(), 32768u);
  // The defaults on a device with OpenCL 1.2's minimum of local memory.
  const Tuning d = Tuning::for_device(described_device(32768, 1024, 1024, 1024));
  EXPECT_EQ(d.vcols, 32);
  EXPECT_EQ(d.hgroup, 256);
}

TEST(OpenCLTuning, LocalMemoryBeyondTheDevicesIsRefusedNamingBothFigures) {
  using j2k::ocl::Tuning;
  const j2k::ocl::DeviceInfo device = described_device(32768, 1024, 1024, 1024);
  for (const char* spec : {"vcap=4096", "hp=64", "vcols=512,vr=1"}) {
    SCOPED_TRACE(spec);
    try {
      (void)Tuning::for_device(device, spec);
      ADD_FAILURE() << "accepted";
    } catch (const j2k::Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("bytes of local memory"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("more than the device's 32768"), std::string::npos) << e.what();
    }
  }
  // What the kernels take is what the launch asks for: the horizontal pass's two buffers.
  Tuning t;
  t.hx_min = t.hx_max = 64;
  t.hgroup = 256;
  t.hp = 4;
  EXPECT_EQ(t.horizontal_local_bytes(), Tuning::horizontal_in_bytes(64, 4, 4, 4) + Tuning::horizontal_out_bytes(64, 4, 4));
  // 4 rows of 512 + 10 and of 512 words, each padded by one word in 32 and one more.
  EXPECT_EQ(Tuning::horizontal_in_bytes(64, 4, 4, 4), 4u * 4u * (522u + 16u + 1u));
  EXPECT_EQ(Tuning::horizontal_out_bytes(64, 4, 4), 4u * 4u * (512u + 16u + 1u));
  // A device too small for even the smallest groups: refused, never launched.
  EXPECT_THROW((void)Tuning::for_device(described_device(1024, 1024, 1024, 1024)), j2k::Error);
}

#endif  // J2K_OPENCL_TEST_NO_PLATFORM

}  // namespace
