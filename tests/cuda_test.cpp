// SPDX-License-Identifier: BSD-2-Clause
// Tests of the CUDA device-pointer API (transform/cuda/cuda_dwt.hpp) and its C entry points
// (j2k_cuda_dwt): caller streams, workspace size and checks, typed planes, 8/16-bit inputs with
// the DC shift fused, out-of-place semantics, errors, and every kernel choice (CudaDwtOptions)
// in the fused-levels sweep. The backend's arithmetic against the CPU reference over all
// geometries is backend_test's job.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "transform/backend.hpp"
#include "transform/cuda/cuda_dwt.hpp"
#include "transform/dwt.hpp"
#include "common/error.hpp"

namespace {

using j2k::Rect;
using j2k::Wavelet;

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

// A typed device plane, its stride given in elements.
j2k::DevicePlane plane(const void* data, j2k_sample_type type, size_t stride) {
  j2k::DevicePlane p;
  p.data = const_cast<void*>(data);
  p.type = type;
  p.row_stride = static_cast<ptrdiff_t>(stride * j2k_sample_size(type));
  return p;
}

j2k_sample_type type_of(const int32_t*) { return J2K_SAMPLE_I32; }
j2k_sample_type type_of(const float*) { return J2K_SAMPLE_F32; }
j2k_sample_type type_of(const uint8_t*) { return J2K_SAMPLE_U8; }
j2k_sample_type type_of(const uint16_t*) { return J2K_SAMPLE_U16; }

// cuda_dwt on typed pointers, strides in elements.
template <class In, class Out>
void dwt(j2k_direction dir, Wavelet wv, const In* src, size_t ss, int32_t dc, Out* dst, size_t ds,
         const Rect& tc, int levels, void* ws, size_t wsb, cudaStream_t stream = nullptr,
         const j2k::CudaDwtOptions& options = {}) {
  j2k::cuda_dwt(dir, wv, plane(src, type_of(src), ss), dc, plane(dst, type_of(dst), ds), tc,
                levels, ws, wsb, stream, options);
}

constexpr Wavelet k53 = Wavelet::Reversible53;
constexpr Wavelet k97 = Wavelet::Irreversible97;

class CudaApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!j2k::backend_available(j2k::Backend::Cuda, &why)) GTEST_SKIP() << "cuda backend unavailable: " << why;
    cpu_ = std::make_unique<j2k::Dwt>(j2k::BackendOptions{j2k::Backend::Cpu, 0, -1});
  }
  std::unique_ptr<j2k::Dwt> cpu_;
};

template <class T>
struct DevBuf {
  T* p = nullptr;
  explicit DevBuf(size_t n) { EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&p), std::max<size_t>(n, 1) * sizeof(T)), cudaSuccess); }
  ~DevBuf() { cudaFree(p); }
};

TEST(CudaAvailability, AnswersWithoutCrashing) {
  std::string why;
  const bool ok = j2k::backend_available(j2k::Backend::Cuda, &why);
  if (!ok) {
    EXPECT_FALSE(why.empty());
    EXPECT_THROW(j2k::Dwt(j2k::BackendOptions{j2k::Backend::Cuda, 0, -1}), j2k::Error);
  }
}

TEST(CudaWorkspace, SizeFollowsTheLevels) {
  const Rect tc{1, 3, 1 + 1000, 3 + 777};
  EXPECT_EQ(j2k::cuda_dwt_workspace_bytes(Wavelet::Reversible53, tc, 0), 0u);
  EXPECT_EQ(j2k::cuda_dwt_workspace_bytes(Wavelet::Reversible53, tc, 1), 0u);
  const size_t two = j2k::cuda_dwt_workspace_bytes(Wavelet::Reversible53, tc, 2);
  EXPECT_GE(two, size_t{500} * 389 * 4);  // LL of level 1 (cas_x = 1, cas_y = 1)
  EXPECT_EQ(j2k::cuda_dwt_workspace_bytes(Wavelet::Reversible53, tc, 5), two);
  EXPECT_EQ(j2k::cuda_dwt_workspace_bytes(Wavelet::Irreversible97, tc, 5), two);
  EXPECT_EQ(j2k::cuda_dwt_workspace_bytes(Wavelet::Reversible53, Rect{0, 0, 0, 5}, 5), 0u);
  EXPECT_THROW(j2k::cuda_dwt_workspace_bytes(Wavelet::Reversible53, tc, 33), j2k::Error);
}

// Argument checks come before any CUDA call, so these run without a GPU too.
TEST(CudaArguments, RejectsOverlappingBuffersAndBadLevels) {
  const Rect tc{0, 0, 16, 16};
  alignas(16) static int32_t fake[2 * 16 * 16];  // never dereferenced: checks fail first
  auto code = [](auto&& fn) {
    try {
      fn();
    } catch (const j2k::Error& e) {
      return static_cast<int>(e.code());
    }
    return -1;
  };
  const int invalid = static_cast<int>(j2k::ErrorCode::InvalidArgument);
  EXPECT_EQ(invalid, code([&] { dwt(J2K_FORWARD, k53, fake, 16, 0, fake, 16, tc, 1, nullptr, 0); }));
  EXPECT_EQ(invalid, code([&] { dwt(J2K_INVERSE, k53, fake + 8, 16, 0, fake, 16, tc, 1, nullptr, 0); }));
  EXPECT_EQ(invalid, code([&] { dwt(J2K_FORWARD, k53, fake, 16, 0, fake + 256, 16, tc, 33, nullptr, 0); }));
  EXPECT_EQ(invalid, code([&] { dwt(J2K_FORWARD, k53, fake, 16, 0, fake + 256, 16, Rect{5, 0, 4, 3}, 1, nullptr, 0); }));
  // Empty tile-component: nothing to do, no device needed.
  EXPECT_EQ(-1, code([&] { dwt(J2K_FORWARD, k53, fake, 16, 0, fake, 16, Rect{3, 3, 3, 9}, 2, nullptr, 0); }));
}

// The C entry points. Every argument check runs before any CUDA call, so these need no GPU:
// the buffers are host memory that no check dereferences.
class CudaCApi : public ::testing::Test {
 protected:
  // bytes: that of src_ and dst_.
  static j2k_device_plane cplane(void* data, j2k_sample_type type, ptrdiff_t row_stride,
                                 size_t bytes = 16 * 16 * 4) {
    j2k_device_plane p;
    p.data = data;
    p.type = type;
    p.row_stride = row_stride;
    p.bytes = bytes;
    return p;
  }
  // J2K_INVALID_ARGUMENT with a message that contains `needle`.
  static void expect_invalid(j2k_status status, const std::string& needle, const std::string& what) {
    const std::string message = j2k_last_error();
    EXPECT_EQ(status, J2K_INVALID_ARGUMENT) << what << ": " << message;
    EXPECT_NE(message.find(needle), std::string::npos) << what << ": " << message;
  }
  // A 16 x 16 tile-component, 3 levels: needs a workspace.
  j2k_rect rect_{0, 0, 16, 16};
  alignas(16) int32_t src_[16 * 16] = {};
  alignas(16) int32_t dst_[16 * 16] = {};
  alignas(16) unsigned char ws_[4096] = {};
};

TEST_F(CudaCApi, WorkspaceSizeQuery) {
  size_t bytes = 1;
  ASSERT_EQ(j2k_cuda_dwt_workspace_size(J2K_WAVELET_53, &rect_, 3, &bytes), J2K_OK) << j2k_last_error();
  EXPECT_EQ(bytes, j2k::cuda_dwt_workspace_bytes(k53, Rect{0, 0, 16, 16}, 3));
  EXPECT_GT(bytes, 0u);
  EXPECT_STREQ(j2k_last_error(), "");
  expect_invalid(j2k_cuda_dwt_workspace_size(J2K_WAVELET_53, nullptr, 3, &bytes), "rect", "null rect");
  EXPECT_EQ(bytes, 0u);
  expect_invalid(j2k_cuda_dwt_workspace_size(J2K_WAVELET_97, &rect_, 3, nullptr), "bytes", "null bytes");
  expect_invalid(j2k_cuda_dwt_workspace_size(static_cast<j2k_wavelet>(7), &rect_, 3, &bytes),
                 "wavelet", "bad wavelet");
  expect_invalid(j2k_cuda_dwt_workspace_size(J2K_WAVELET_53, &rect_, 33, &bytes), "levels", "33 levels");
}

TEST_F(CudaCApi, RejectsBadTypeCombinations) {
  size_t need = 0;
  ASSERT_EQ(j2k_cuda_dwt_workspace_size(J2K_WAVELET_53, &rect_, 3, &need), J2K_OK);
  ASSERT_LE(need, sizeof ws_);
  struct Case {
    const char* what;
    j2k_direction dir;
    j2k_wavelet wv;
    j2k_sample_type src, dst;
    int32_t dc;
    const char* needle;
  };
  const Case cases[] = {
      {"5/3 forward from F32", J2K_FORWARD, J2K_WAVELET_53, J2K_SAMPLE_F32, J2K_SAMPLE_I32, 0, "src type is F32"},
      {"9/7 forward from I32", J2K_FORWARD, J2K_WAVELET_97, J2K_SAMPLE_I32, J2K_SAMPLE_F32, 0, "src type is I32"},
      {"forward from I16", J2K_FORWARD, J2K_WAVELET_53, J2K_SAMPLE_I16, J2K_SAMPLE_I32, 0, "src type is I16"},
      {"5/3 into F32", J2K_FORWARD, J2K_WAVELET_53, J2K_SAMPLE_U8, J2K_SAMPLE_F32, 128, "dst type is F32"},
      {"9/7 into I32", J2K_FORWARD, J2K_WAVELET_97, J2K_SAMPLE_U16, J2K_SAMPLE_I32, 0, "dst type is I32"},
      {"inverse from U8", J2K_INVERSE, J2K_WAVELET_53, J2K_SAMPLE_U8, J2K_SAMPLE_I32, 0, "src type is U8"},
      {"9/7 inverse from I32", J2K_INVERSE, J2K_WAVELET_97, J2K_SAMPLE_I32, J2K_SAMPLE_F32, 0, "src type is I32"},
      {"inverse with a DC shift", J2K_INVERSE, J2K_WAVELET_53, J2K_SAMPLE_I32, J2K_SAMPLE_I32, 128, "DC shift"},
      {"DC shift on I32", J2K_FORWARD, J2K_WAVELET_53, J2K_SAMPLE_I32, J2K_SAMPLE_I32, 128, "U8/U16"},
      {"DC shift on F32", J2K_FORWARD, J2K_WAVELET_97, J2K_SAMPLE_F32, J2K_SAMPLE_F32, 2, "U8/U16"},
      {"unknown src type", J2K_FORWARD, J2K_WAVELET_53, static_cast<j2k_sample_type>(42), J2K_SAMPLE_I32, 0, "src has an unknown type (42)"},
      {"unknown direction", static_cast<j2k_direction>(5), J2K_WAVELET_53, J2K_SAMPLE_I32, J2K_SAMPLE_I32, 0, "direction"},
      {"unknown wavelet", J2K_FORWARD, static_cast<j2k_wavelet>(9), J2K_SAMPLE_I32, J2K_SAMPLE_I32, 0, "wavelet"},
  };
  for (const Case& c : cases) {
    const j2k_device_plane src = cplane(src_, c.src, 64), dst = cplane(dst_, c.dst, 64);
    expect_invalid(j2k_cuda_dwt(c.dir, c.wv, &src, c.dc, &dst, &rect_, 3, ws_, need, nullptr),
                   c.needle, c.what);
  }
}

TEST_F(CudaCApi, RejectsBadStridesPointersAndWorkspace) {
  size_t need = 0;
  ASSERT_EQ(j2k_cuda_dwt_workspace_size(J2K_WAVELET_53, &rect_, 3, &need), J2K_OK);
  ASSERT_LE(need, sizeof ws_);
  const j2k_device_plane src = cplane(src_, J2K_SAMPLE_I32, 64), dst = cplane(dst_, J2K_SAMPLE_I32, 64);
  auto run = [&](const j2k_device_plane* s, const j2k_device_plane* d, const j2k_rect* r,
                 void* ws, size_t ws_bytes) {
    return j2k_cuda_dwt(J2K_FORWARD, J2K_WAVELET_53, s, 0, d, r, 3, ws, ws_bytes, nullptr);
  };
  expect_invalid(run(nullptr, &dst, &rect_, ws_, need), "src", "null src plane");
  expect_invalid(run(&src, nullptr, &rect_, ws_, need), "dst", "null dst plane");
  expect_invalid(run(&src, &dst, nullptr, ws_, need), "rect", "null rect");
  const j2k_device_plane null_src = cplane(nullptr, J2K_SAMPLE_I32, 64);
  expect_invalid(run(&null_src, &dst, &rect_, ws_, need), "null src data", "null src data");
  const j2k_device_plane null_dst = cplane(nullptr, J2K_SAMPLE_I32, 64);
  expect_invalid(run(&src, &null_dst, &rect_, ws_, need), "null dst data", "null dst data");
  const j2k_device_plane odd_stride = cplane(src_, J2K_SAMPLE_I32, 66);
  expect_invalid(run(&odd_stride, &dst, &rect_, ws_, need), "src row_stride 66", "stride 66 bytes");
  const j2k_device_plane negative = cplane(dst_, J2K_SAMPLE_I32, -64);
  expect_invalid(run(&src, &negative, &rect_, ws_, need), "dst row_stride -64", "negative stride");
  const j2k_device_plane narrow = cplane(src_, J2K_SAMPLE_I32, 60);
  expect_invalid(run(&narrow, &dst, &rect_, ws_, need), "width", "stride under the width");
  const j2k_device_plane misaligned =
      cplane(reinterpret_cast<unsigned char*>(src_) + 2, J2K_SAMPLE_I32, 64);
  expect_invalid(run(&misaligned, &dst, &rect_, ws_, need), "aligned", "misaligned src");
  const j2k_device_plane overlap = cplane(src_ + 8, J2K_SAMPLE_I32, 64);
  expect_invalid(run(&src, &overlap, &rect_, ws_, need), "overlap", "overlapping planes");
  expect_invalid(run(&src, &dst, &rect_, ws_, need - 1), "workspace", "short workspace");
  expect_invalid(run(&src, &dst, &rect_, nullptr, need), "workspace", "null workspace");
  const j2k_rect inverted{5, 0, 4, 3};
  expect_invalid(run(&src, &dst, &inverted, ws_, need), "rectangle", "inverted rect");
  // Sizes: one byte short, rows that reach past the buffer.
  const j2k_device_plane short_src = cplane(src_, J2K_SAMPLE_I32, 64, 1023);
  expect_invalid(run(&short_src, &dst, &rect_, ws_, need),
                 "src: 16 rows of 16 4-byte elements, rows 64 bytes apart, span 1024 bytes, but the buffer holds 1023",
                 "src a byte short");
  const j2k_device_plane short_dst = cplane(dst_, J2K_SAMPLE_I32, 64, 0);
  expect_invalid(run(&src, &short_dst, &rect_, ws_, need), "dst: 16 rows", "dst of 0 bytes");
  const j2k_device_plane wide = cplane(dst_, J2K_SAMPLE_I32, 68);
  expect_invalid(run(&src, &wide, &rect_, ws_, need), "span 1084 bytes", "dst rows past its end");
  const j2k_device_plane u8_narrow = cplane(src_, J2K_SAMPLE_U8, 15);
  expect_invalid(j2k_cuda_dwt(J2K_FORWARD, J2K_WAVELET_53, &u8_narrow, 128, &dst, &rect_, 3, ws_,
                              need, nullptr),
                 "width", "U8 stride under the width");
}

// Nothing to transform: no buffer, workspace or device is needed.
TEST_F(CudaCApi, EmptyGeometryNeedsNothing) {
  const j2k_device_plane src = cplane(nullptr, J2K_SAMPLE_U16, 0), dst = cplane(nullptr, J2K_SAMPLE_I32, 0);
  const j2k_rect empty{3, 3, 3, 9};
  EXPECT_EQ(j2k_cuda_dwt(J2K_FORWARD, J2K_WAVELET_53, &src, 2048, &dst, &empty, 5, nullptr, 0, nullptr),
            J2K_OK)
      << j2k_last_error();
  EXPECT_STREQ(j2k_last_error(), "");
}

// Valid arguments on a machine without a GPU: the backend is unavailable, said as such.
TEST_F(CudaCApi, NoDeviceIsBackendUnavailable) {
  std::string why;
  if (j2k::backend_available(j2k::Backend::Cuda, &why))
    GTEST_SKIP() << "this machine has a CUDA device (the buffers here are host memory)";
  const j2k_device_plane src = cplane(src_, J2K_SAMPLE_I32, 64), dst = cplane(dst_, J2K_SAMPLE_I32, 64);
  const j2k_status status =
      j2k_cuda_dwt(J2K_FORWARD, J2K_WAVELET_53, &src, 0, &dst, &rect_, 1, nullptr, 0, nullptr);
  EXPECT_EQ(status, J2K_BACKEND_UNAVAILABLE) << j2k_status_name(status) << ": " << j2k_last_error();
  EXPECT_STRNE(j2k_last_error(), "");
}

// The C entry point on a caller's stream, against the CPU: 12-bit samples in U16 with the DC
// shift, forward 9/7, then the inverse back to the shifted samples' transform input.
TEST_F(CudaApiTest, CEntryPointOnAStream) {
  const Rect tc{4, 8, 4 + 203, 8 + 150};
  const j2k_rect rect{tc.x0, tc.y0, tc.x1, tc.y1};
  const int levels = 4;
  const size_t w = 203, h = 150, ss = 208, ds = 211;
  std::mt19937 rng(21);
  std::vector<uint16_t> src(ss * h);
  for (auto& v : src) v = static_cast<uint16_t>(rng() & 4095);
  size_t ws = 0;
  ASSERT_EQ(j2k_cuda_dwt_workspace_size(J2K_WAVELET_97, &rect, levels, &ws), J2K_OK);
  DevBuf<uint16_t> d_src(src.size());
  DevBuf<float> d_dst(ds * h), d_back(ds * h);
  DevBuf<char> d_ws(ws);
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_OK(cudaMemcpyAsync(d_src.p, src.data(), src.size() * 2, cudaMemcpyHostToDevice, stream));
  j2k_device_plane in{d_src.p, J2K_SAMPLE_U16, static_cast<ptrdiff_t>(ss * 2), ss * h * 2};
  j2k_device_plane out{d_dst.p, J2K_SAMPLE_F32, static_cast<ptrdiff_t>(ds * 4), ds * h * 4};
  j2k_device_plane back{d_back.p, J2K_SAMPLE_F32, static_cast<ptrdiff_t>(ds * 4), ds * h * 4};
  ASSERT_EQ(j2k_cuda_dwt(J2K_FORWARD, J2K_WAVELET_97, &in, 2048, &out, &rect, levels, d_ws.p, ws, stream),
            J2K_OK) << j2k_last_error();
  ASSERT_EQ(j2k_cuda_dwt(J2K_INVERSE, J2K_WAVELET_97, &out, 0, &back, &rect, levels, d_ws.p, ws, stream),
            J2K_OK) << j2k_last_error();
  std::vector<float> got(ds * h), got_back(ds * h);
  CUDA_OK(cudaMemcpyAsync(got.data(), d_dst.p, got.size() * 4, cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaMemcpyAsync(got_back.data(), d_back.p, got_back.size() * 4, cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaStreamDestroy(stream));
  std::vector<float> ref(w * h);
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x) ref[y * w + x] = static_cast<float>(static_cast<int>(src[y * ss + x]) - 2048);
  cpu_->forward97(ref.data(), w, tc, levels);
  long bad = 0;
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x) bad += std::memcmp(&got[y * ds + x], &ref[y * w + x], 4) != 0;
  EXPECT_EQ(bad, 0) << "forward";
  cpu_->inverse97(ref.data(), w, tc, levels);
  bad = 0;
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x) bad += std::memcmp(&got_back[y * ds + x], &ref[y * w + x], 4) != 0;
  EXPECT_EQ(bad, 0) << "inverse";
}

TEST_F(CudaApiTest, RejectsTooSmallWorkspaceAndNullBuffers) {
  const Rect tc{0, 0, 64, 64};
  DevBuf<int32_t> a(64 * 64), b(64 * 64);
  const size_t ws = j2k::cuda_dwt_workspace_bytes(Wavelet::Reversible53, tc, 3);
  DevBuf<char> w(ws);
  try {
    dwt(J2K_FORWARD, k53, a.p, 64, 0, b.p, 64, tc, 3, w.p, ws - 1);
    FAIL() << "no error for a short workspace";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::InvalidArgument);
  }
  EXPECT_THROW(dwt(J2K_FORWARD, k53, static_cast<const int32_t*>(nullptr), 64, 0, b.p, 64, tc, 3,
                   w.p, ws),
               j2k::Error);
  EXPECT_THROW(dwt(J2K_INVERSE, k53, a.p, 63, 0, b.p, 64, tc, 3, w.p, ws), j2k::Error);
  EXPECT_NO_THROW(dwt(J2K_FORWARD, k53, a.p, 64, 0, b.p, 64, tc, 3, w.p, ws));
  CUDA_OK(cudaDeviceSynchronize());
}

// Strided device buffers on a caller's stream; src must stay untouched, dst padding too.
TEST_F(CudaApiTest, StreamStridesAndSourceUntouched) {
  const Rect tc{5, 2, 5 + 301, 2 + 203};
  const int levels = 4;
  const size_t w = 301, h = 203, ss = 320, ds = 333;
  std::mt19937 rng(7);
  std::vector<int32_t> src(ss * h), dst(ds * h, 12345);
  for (auto& v : src) v = static_cast<int32_t>(rng() % 4096) - 2048;
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DevBuf<int32_t> d_src(src.size()), d_dst(dst.size());
  const size_t ws = j2k::cuda_dwt_workspace_bytes(Wavelet::Reversible53, tc, levels);
  DevBuf<char> d_ws(ws);
  CUDA_OK(cudaMemcpyAsync(d_src.p, src.data(), src.size() * 4, cudaMemcpyHostToDevice, stream));
  CUDA_OK(cudaMemcpyAsync(d_dst.p, dst.data(), dst.size() * 4, cudaMemcpyHostToDevice, stream));
  dwt(J2K_FORWARD, k53, d_src.p, ss, 0, d_dst.p, ds, tc, levels, d_ws.p, ws, stream);
  std::vector<int32_t> got(dst.size()), src_after(src.size());
  CUDA_OK(cudaMemcpyAsync(got.data(), d_dst.p, got.size() * 4, cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaMemcpyAsync(src_after.data(), d_src.p, src.size() * 4, cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  EXPECT_EQ(src, src_after);
  std::vector<int32_t> ref = src;
  cpu_->forward53(ref.data(), ss, tc, levels);
  long bad = 0, pad = 0;
  for (size_t y = 0; y < h; ++y) {
    for (size_t x = 0; x < w; ++x) bad += got[y * ds + x] != ref[y * ss + x];
    for (size_t x = w; x < ds; ++x) pad += got[y * ds + x] != 12345;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(pad, 0);

  // And back, on the same stream.
  DevBuf<int32_t> d_back(ss * h);
  dwt(J2K_INVERSE, k53, d_dst.p, ds, 0, d_back.p, ss, tc, levels, d_ws.p, ws, stream);
  std::vector<int32_t> back(ss * h);
  CUDA_OK(cudaMemcpyAsync(back.data(), d_back.p, back.size() * 4, cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  bad = 0;
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x) bad += back[y * ss + x] != src[y * ss + x];
  EXPECT_EQ(bad, 0) << "5/3 round trip is not lossless";
  CUDA_OK(cudaStreamDestroy(stream));
}

// 8- and 16-bit samples, DC shift fused, against the CPU reference on shifted int32 / float.
template <class In>
void check_narrow_input(j2k::Dwt& cpu, const Rect& tc, int levels, int bits,
                        const j2k::CudaDwtOptions& options = {}) {
  const auto w = static_cast<size_t>(tc.width()), h = static_cast<size_t>(tc.height());
  const int32_t dc = 1 << (bits - 1);
  std::mt19937 rng(bits * 1000 + levels);
  std::vector<In> src(w * h);
  for (auto& v : src) v = static_cast<In>(rng() & ((1u << bits) - 1));
  DevBuf<In> d_src(src.size());
  DevBuf<int32_t> d_i(src.size());
  DevBuf<float> d_f(src.size());
  const size_t ws = j2k::cuda_dwt_workspace_bytes(Wavelet::Reversible53, tc, levels);
  DevBuf<char> d_ws(ws);
  ASSERT_EQ(cudaMemcpy(d_src.p, src.data(), src.size() * sizeof(In), cudaMemcpyHostToDevice), cudaSuccess);
  dwt(J2K_FORWARD, k53, d_src.p, w, dc, d_i.p, w, tc, levels, d_ws.p, ws, nullptr, options);
  dwt(J2K_FORWARD, k97, d_src.p, w, dc, d_f.p, w, tc, levels, d_ws.p, ws, nullptr, options);
  std::vector<int32_t> gi(src.size());
  std::vector<float> gf(src.size());
  ASSERT_EQ(cudaMemcpy(gi.data(), d_i.p, gi.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(gf.data(), d_f.p, gf.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  std::vector<int32_t> ri(src.size());
  std::vector<float> rf(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    ri[i] = static_cast<int32_t>(src[i]) - dc;
    rf[i] = static_cast<float>(static_cast<int32_t>(src[i]) - dc);
  }
  cpu.forward53(ri.data(), w, tc, levels);
  cpu.forward97(rf.data(), w, tc, levels);
  long bad = 0;
  for (size_t i = 0; i < src.size(); ++i)
    bad += (gi[i] != ri[i]) + (std::memcmp(&gf[i], &rf[i], 4) != 0);
  EXPECT_EQ(bad, 0) << bits << "-bit input, tc " << w << "x" << h << " levels " << levels;
}

TEST_F(CudaApiTest, EightAndSixteenBitInputsWithDcShift) {
  for (const Rect& tc : {Rect{0, 0, 517, 389}, Rect{3, 7, 3 + 64, 7 + 1}, Rect{1, 1, 2, 2}})
    for (int levels : {0, 1, 5}) {
      check_narrow_input<uint8_t>(*cpu_, tc, levels, 8);
      check_narrow_input<uint16_t>(*cpu_, tc, levels, 12);
      check_narrow_input<uint16_t>(*cpu_, tc, levels, 16);
    }
}

// The library reads no J2KFRONT_DEVICE (the CLI maps it): a value it would refuse changes
// nothing. One past the last device is refused.
TEST(CudaDeviceChoice, EnvironmentIgnoredAndBadIndexInvalid) {
  ::setenv("J2KFRONT_DEVICE", "gpu0", 1);
  std::string why;
  const bool gpu = j2k::backend_available(j2k::Backend::Cuda, &why);
  try {
    j2k::Dwt dwt(j2k::BackendOptions{j2k::Backend::Cuda, 0, -1});
    EXPECT_TRUE(gpu);
  } catch (const j2k::Error& e) {
    EXPECT_FALSE(gpu) << e.what();
    EXPECT_EQ(e.code(), j2k::ErrorCode::BackendUnavailable) << e.what();
  }
  ::unsetenv("J2KFRONT_DEVICE");
  if (!gpu) GTEST_SKIP() << "cuda backend unavailable: " << why;
  try {
    j2k::Dwt dwt(j2k::BackendOptions{j2k::Backend::Cuda, 0, 999});
    ADD_FAILURE() << "device 999 accepted";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::InvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find("found"), std::string::npos) << e.what();
  }
}

// The host engine reuses its device buffers across geometries of different sizes.
TEST_F(CudaApiTest, EngineReusesBuffersAcrossSizes) {
  j2k::Dwt gpu(j2k::BackendOptions{j2k::Backend::Cuda, 0, -1});
  EXPECT_EQ(gpu.backend(), j2k::Backend::Cuda);
  std::mt19937 rng(3);
  for (int64_t n : {1000, 10, 2000, 1}) {
    const Rect tc{0, 1, n, 1 + n / 2 + 1};
    std::vector<float> a(static_cast<size_t>(tc.width() * tc.height()));
    for (auto& v : a) v = static_cast<float>(static_cast<int>(rng() % 1000) - 500);
    std::vector<float> b = a;
    cpu_->forward97(a.data(), static_cast<size_t>(n), tc, 6);
    gpu.forward97(b.data(), static_cast<size_t>(n), tc, 6);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * 4)) << n;
  }
}

// Tiny resolutions (sizes 0/1/2, levels beyond log2 size, odd origins) through the host engine:
// a short sweep that compute-sanitizer can afford (backend_test holds the dense one).
TEST_F(CudaApiTest, TinyGeometrySweep) {
  j2k::Dwt gpu(j2k::BackendOptions{j2k::Backend::Cuda, 0, -1});
  std::mt19937 rng(11);
  long cases = 0, bad = 0;
  for (int64_t ox : {0, 1})
    for (int64_t w = 1; w <= 9; ++w)
      for (int64_t h = 1; h <= 9; ++h)
        for (int levels : {0, 1, 2, 4, 7}) {
          const Rect tc{ox, 1 - ox, ox + w, 1 - ox + h};
          const auto n = static_cast<size_t>(w * h);
          std::vector<int32_t> a(n), b;
          for (auto& v : a) v = static_cast<int32_t>(rng() % 2001) - 1000;
          b = a;
          cpu_->forward53(a.data(), static_cast<size_t>(w), tc, levels);
          gpu.forward53(b.data(), static_cast<size_t>(w), tc, levels);
          bad += a != b;
          cpu_->inverse53(a.data(), static_cast<size_t>(w), tc, levels);
          gpu.inverse53(b.data(), static_cast<size_t>(w), tc, levels);
          bad += a != b;
          std::vector<float> fa(n), fb;
          for (auto& v : fa) v = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) * 0.5f;
          fb = fa;
          cpu_->forward97(fa.data(), static_cast<size_t>(w), tc, levels);
          gpu.forward97(fb.data(), static_cast<size_t>(w), tc, levels);
          bad += std::memcmp(fa.data(), fb.data(), n * 4) != 0;
          cpu_->inverse97(fa.data(), static_cast<size_t>(w), tc, levels);
          gpu.inverse97(fb.data(), static_cast<size_t>(w), tc, levels);
          bad += std::memcmp(fa.data(), fb.data(), n * 4) != 0;
          cases += 4;
        }
  EXPECT_EQ(bad, 0) << "of " << cases << " transforms";
}

// Levels 1 and 2 run fused in one kernel (the 5/3 forward by default; the 9/7 forward with
// fuse_97, the inverses with fuse_inverse) where the tile-component origin is a multiple of 4
// (cas 0 at both levels) and level 2 is at least 2 x 2: sizes around the fused blocks' edges
// (64 x 44 / 64 x 40 level-1 LL samples), every level count that reaches the fused path.
// `Gpu`: j2k::Dwt or DeviceDwt. (TinyGeometrySweep never reaches a fused kernel: its origins
// have an odd coordinate.)
template <class Gpu>
void fused_levels_sweep(j2k::Dwt& cpu, Gpu& gpu, const std::string& what) {
  std::mt19937 rng(17);
  long cases = 0, bad = 0;
  const int64_t origins[][2] = {{0, 0}, {4, 8}, {8, 4}};
  const int64_t sizes[] = {3, 4, 5, 8, 17, 97, 128, 129, 135, 193, 260};
  for (const auto& o : origins)
    for (int64_t w : sizes)
      for (int64_t h : sizes) {
        if ((w * 7 + h * 3 + o[0]) % 4 != 0 && (w > 17 || h > 17)) continue;  // thin (racecheck)
        const int levels = 2 + static_cast<int>((w + h) % 4);  // 2..5
        const Rect tc{o[0], o[1], o[0] + w, o[1] + h};
        const auto n = static_cast<size_t>(w * h);
        std::vector<int32_t> a(n);
        for (auto& v : a) v = static_cast<int32_t>(rng() % 4001) - 2000;
        std::vector<int32_t> b(a);
        cpu.forward53(a.data(), static_cast<size_t>(w), tc, levels);
        gpu.forward53(b.data(), static_cast<size_t>(w), tc, levels);
        bad += a != b;
        std::vector<float> fa(n);
        for (auto& v : fa) v = static_cast<float>(static_cast<int>(rng() % 4001) - 2000) * 0.25f;
        std::vector<float> fb(fa);
        cpu.forward97(fa.data(), static_cast<size_t>(w), tc, levels);
        gpu.forward97(fb.data(), static_cast<size_t>(w), tc, levels);
        bad += std::memcmp(fa.data(), fb.data(), n * 4) != 0;
        // Inverses of the same (forward) pyramids: the fused levels-2+1 inverse kernel.
        cpu.inverse53(a.data(), static_cast<size_t>(w), tc, levels);
        gpu.inverse53(b.data(), static_cast<size_t>(w), tc, levels);
        bad += a != b;
        cpu.inverse97(fa.data(), static_cast<size_t>(w), tc, levels);
        gpu.inverse97(fb.data(), static_cast<size_t>(w), tc, levels);
        bad += std::memcmp(fa.data(), fb.data(), n * 4) != 0;
        cases += 4;
      }
  EXPECT_EQ(bad, 0) << what << ": of " << cases << " transforms";
}

TEST_F(CudaApiTest, FusedLevelsSweep) {
  j2k::Dwt gpu(j2k::BackendOptions{j2k::Backend::Cuda, 0, -1});
  fused_levels_sweep(*cpu_, gpu, "engine, default kernels");
}

// The settings' switches reach the kernels' launchers (the variants' own sweeps are below).
TEST_F(CudaApiTest, EngineWithExperimentalKernels) {
  j2k::BackendOptions o{j2k::Backend::Cuda, 0, -1};
  o.cuda_fuse_97 = true;
  o.cuda_fuse_inverse = true;
  j2k::Dwt gpu(o);
  std::mt19937 rng(5);
  for (const Rect& tc : {Rect{0, 0, 300, 200}, Rect{4, 8, 4 + 129, 8 + 97}}) {
    const auto n = static_cast<size_t>(tc.width() * tc.height());
    const auto stride = static_cast<size_t>(tc.width());
    std::vector<float> a(n);
    for (auto& v : a) v = static_cast<float>(static_cast<int>(rng() % 4001) - 2000) * 0.5f;
    std::vector<float> b(a);
    cpu_->forward97(a.data(), stride, tc, 4);
    gpu.forward97(b.data(), stride, tc, 4);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), n * 4)) << "forward " << tc.width();
    cpu_->inverse97(a.data(), stride, tc, 4);
    gpu.inverse97(b.data(), stride, tc, 4);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), n * 4)) << "inverse " << tc.width();
  }
}

// The device API on host buffers of contiguous rows, with the kernels chosen: every
// CudaDwtOptions combination can be swept like the engine.
class DeviceDwt {
 public:
  explicit DeviceDwt(const j2k::CudaDwtOptions& options) : options_(options) {}
  void forward53(int32_t* d, size_t s, const Rect& tc, int l) { run(d, s, tc, l, true); }
  void inverse53(int32_t* d, size_t s, const Rect& tc, int l) { run(d, s, tc, l, false); }
  void forward97(float* d, size_t s, const Rect& tc, int l) { run(d, s, tc, l, true); }
  void inverse97(float* d, size_t s, const Rect& tc, int l) { run(d, s, tc, l, false); }

 private:
  template <class T>
  void run(T* data, size_t stride, const Rect& tc, int levels, bool forward) {
    const Wavelet wavelet = std::is_same<T, int32_t>::value ? k53 : k97;
    const size_t n = static_cast<size_t>(tc.height()) * stride;
    DevBuf<T> src(n), dst(n);
    const size_t ws = j2k::cuda_dwt_workspace_bytes(wavelet, tc, levels);
    DevBuf<char> d_ws(ws);
    ASSERT_EQ(cudaMemcpy(src.p, data, n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    dwt(forward ? J2K_FORWARD : J2K_INVERSE, wavelet, src.p, stride, 0, dst.p, stride, tc, levels,
        d_ws.p, ws, nullptr, options_);
    ASSERT_EQ(cudaMemcpy(data, dst.p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  }
  j2k::CudaDwtOptions options_;
};

struct Variant {
  const char* name;
  j2k::CudaDwtOptions options;
};

j2k::CudaDwtOptions kernels(bool fuse_levels12, bool fuse_97, bool fuse_inverse) {
  j2k::CudaDwtOptions o;
  o.fuse_levels12 = fuse_levels12;
  o.fuse_97 = fuse_97;
  o.fuse_inverse = fuse_inverse;
  return o;
}

void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }  // test names in CTest

class CudaKernelVariant : public CudaApiTest, public ::testing::WithParamInterface<Variant> {};

// The exactness sweeps with the kernels that are not the default: one kernel per level for
// the 5/3 forward, the fused 9/7 forward, the fused inverses, and all fused kernels at once.
TEST_P(CudaKernelVariant, FusedLevelsSweep) {
  DeviceDwt gpu(GetParam().options);
  fused_levels_sweep(*cpu_, gpu, GetParam().name);
}

TEST_P(CudaKernelVariant, EightAndSixteenBitInputsWithDcShift) {
  for (const Rect& tc : {Rect{0, 0, 517, 389}, Rect{4, 4, 4 + 64, 4 + 9}})
    for (int levels : {2, 5}) {
      check_narrow_input<uint8_t>(*cpu_, tc, levels, 8, GetParam().options);
      check_narrow_input<uint16_t>(*cpu_, tc, levels, 16, GetParam().options);
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, CudaKernelVariant,
                         ::testing::Values(Variant{"per_level", kernels(false, false, false)},
                                           Variant{"fuse_97", kernels(true, true, false)},
                                           Variant{"fuse_inverse", kernels(true, false, true)},
                                           Variant{"all_fused", kernels(true, true, true)}),
                         [](const ::testing::TestParamInfo<Variant>& p) {
                           return std::string(p.param.name);
                         });

}  // namespace
