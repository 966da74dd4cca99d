// SPDX-License-Identifier: BSD-2-Clause
// Plans on the CUDA backend with samples and coefficients in GPU memory: a view of pinned or
// device memory goes straight through, coefficients can stay on the device for a GPU coder.
// Each result is compared bit for bit with the CPU backend's plan on the same image.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <random>
#include <vector>

#include "j2kfront/j2kfront.hpp"

namespace {

class PlanCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* why = nullptr;
    if (!j2k_backend_available(J2K_BACKEND_CUDA, &why)) GTEST_SKIP() << "cuda backend unavailable: " << why;
  }
};

std::vector<uint16_t> random_rgb16(uint32_t w, uint32_t h, uint32_t seed, int bits = 12) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(0, (1 << bits) - 1);
  std::vector<uint16_t> v(static_cast<size_t>(w) * h * 3);
  for (auto& s : v) s = static_cast<uint16_t>(d(rng));
  return v;
}

// All tile-components' coefficients of a plan, copied to the host in order.
std::vector<unsigned char> all_coefficients(const j2kfront::Plan& plan) {
  std::vector<unsigned char> out;
  for (size_t i = 0; i < plan.tile_components(); ++i) {
    const j2k_coefficients c = plan.tile_component(i).coefficients;
    const auto row = static_cast<size_t>(c.width * j2k_sample_size(c.type));
    const size_t at = out.size();
    out.resize(at + row * static_cast<size_t>(c.height));
    if (row == 0 || c.height == 0) continue;
    const cudaMemcpyKind kind = c.memory == J2K_MEMORY_DEVICE ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost;
    EXPECT_EQ(cudaMemcpy2D(out.data() + at, row, c.data, static_cast<size_t>(c.row_stride), row,
                           static_cast<size_t>(c.height), kind),
              cudaSuccess);
  }
  return out;
}

j2kfront::Settings settings(j2k_backend b, j2k_wavelet w) {
  j2kfront::Settings s;
  s.backend = b;
  s.wavelet = w;
  s.tile_w = 200;
  s.tile_h = 96;
  s.tile_x0 = 1;
  s.tile_y0 = 2;
  return s;
}

// 12-bit samples go through the shift and MCT pass (with its range check); 16-bit ones have
// their shift and MCT in the DWT's first read, from staging or straight from the caller's
// device memory.
TEST_F(PlanCuda, HostPinnedAndDeviceInputsMatchTheCpu) {
  const uint32_t w = 333, h = 222;
  for (int prec : {12, 16}) {
  const std::vector<uint16_t> rgb = random_rgb16(w, h, 5, prec);
  const size_t bytes = rgb.size() * 2;
  void* pinned = nullptr;
  void* device = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&device, bytes), cudaSuccess);
  std::memcpy(pinned, rgb.data(), bytes);
  ASSERT_EQ(cudaMemcpy(device, rgb.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  for (j2k_wavelet wv : {J2K_WAVELET_53, J2K_WAVELET_97})
    for (bool interleaved : {true, false}) {
      auto view = [&](const void* data, j2k_memory m) {
        auto v = interleaved ? j2kfront::ImageView::interleaved(data, bytes, w, h, 3, J2K_SAMPLE_U16, prec, 0, m)
                             : j2kfront::ImageView::planar(data, bytes, w, h, 3, J2K_SAMPLE_U16, prec, 0, 0, m);
        v.at_origin(3, 4);
        return v;
      };
      j2kfront::Plan cpu(settings(J2K_BACKEND_CPU, wv), view(rgb.data(), J2K_MEMORY_HOST));
      cpu.run(view(rgb.data(), J2K_MEMORY_HOST));
      const std::vector<unsigned char> want = all_coefficients(cpu);
      for (j2k_memory m : {J2K_MEMORY_HOST, J2K_MEMORY_PINNED, J2K_MEMORY_DEVICE}) {
        const void* data = m == J2K_MEMORY_HOST ? rgb.data() : m == J2K_MEMORY_PINNED ? pinned : device;
        for (j2k_memory out : {J2K_MEMORY_HOST, J2K_MEMORY_DEVICE}) {
          j2kfront::Settings s = settings(J2K_BACKEND_CUDA, wv);
          s.output_memory = out;
          j2kfront::Plan gpu(s, view(data, m));
          gpu.run(view(data, m));
          EXPECT_EQ(gpu.tile_component(0).coefficients.memory, out == J2K_MEMORY_DEVICE ? J2K_MEMORY_DEVICE : J2K_MEMORY_PINNED);
          EXPECT_TRUE(all_coefficients(gpu) == want)
              << prec << "-bit " << (wv ? "9/7" : "5/3") << (interleaved ? " interleaved" : " planar")
              << " input memory " << m << " output memory " << out;
        }
      }
    }
  cudaFreeHost(pinned);
  cudaFree(device);
  }
}

// Int16 output narrowed on the device, kept there or downloaded: equal to the CPU's.
TEST_F(PlanCuda, NarrowOutputOnTheDeviceAndDownloaded) {
  const uint32_t w = 333, h = 222;
  const std::vector<uint16_t> rgb = random_rgb16(w, h, 7);  // 12-bit: int16 without the RCT
  auto view = j2kfront::ImageView::interleaved(rgb.data(), rgb.size() * 2, w, h, 3, J2K_SAMPLE_U16, 12);
  view.at_origin(3, 4);
  j2kfront::Settings s = settings(J2K_BACKEND_CPU, J2K_WAVELET_53);
  s.mct = J2K_MCT_OFF;
  s.narrow_output = 1;
  j2kfront::Plan cpu(s, view);
  cpu.run(view);
  ASSERT_EQ(cpu.info().coefficient_type, J2K_SAMPLE_I16);
  const std::vector<unsigned char> want = all_coefficients(cpu);
  s.backend = J2K_BACKEND_CUDA;
  for (j2k_memory out : {J2K_MEMORY_HOST, J2K_MEMORY_DEVICE}) {
    s.output_memory = out;
    j2kfront::Plan gpu(s, view);
    gpu.run(view);
    ASSERT_EQ(gpu.info().coefficient_type, J2K_SAMPLE_I16);
    EXPECT_TRUE(all_coefficients(gpu) == want) << "output memory " << out;
  }
}

// A tile larger than the free device memory: a clear error when the plan is made (its memory
// is reserved then), and the device goes on working for the next plan.
TEST_F(PlanCuda, TileLargerThanFreeDeviceMemoryIsACleanError) {
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  // One 8-bit tile needs about 9 bytes a sample on the device (samples, int32 work and output).
  const auto side = static_cast<uint32_t>(std::sqrt(static_cast<double>(free_bytes) / 9.0) * 1.2);
  j2k_component_view c{};
  c.type = J2K_SAMPLE_U8;
  c.precision = 8;
  c.dx = c.dy = 1;
  const j2kfront::ImageView shape(side, side, {c});
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CUDA;
  try {
    j2kfront::Plan plan(s, shape);
    ADD_FAILURE() << "a " << side << "^2 tile on a device with " << free_bytes << " bytes free was accepted";
  } catch (const j2kfront::Error& e) {
    EXPECT_EQ(e.status(), J2K_OUT_OF_MEMORY) << e.what();
    EXPECT_NE(std::string(e.what()).find("CUDA device memory"), std::string::npos) << e.what();
  }
  const uint32_t w = 300, h = 200;
  const std::vector<uint16_t> rgb = random_rgb16(w, h, 3);
  auto view = j2kfront::ImageView::interleaved(rgb.data(), rgb.size() * 2, w, h, 3, J2K_SAMPLE_U16, 12);
  j2kfront::Settings small = settings(J2K_BACKEND_CUDA, J2K_WAVELET_97);
  view.at_origin(3, 4);
  j2kfront::Plan next(small, view);
  EXPECT_NO_THROW(next.run(view)) << "the device after a refused plan";
}

// An image whose samples alone are larger than the free device memory runs tile by tile: the
// device memory held follows the tile, and the coefficients equal the CPU's. The free memory
// is made small by holding the rest of it while the plan is made and run.
TEST_F(PlanCuda, ImageLargerThanFreeDeviceMemoryRunsTileByTile) {
  const uint32_t w = 12288, h = 8192;  // 302 MB of RGB samples, 1.2 GB of int32 coefficients
  const size_t sample_bytes = size_t{w} * h * 3;
  const size_t leave = size_t{256} << 20;
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  ASSERT_GT(free_bytes, leave) << "the device has less than 256 MiB free";
  void* held = nullptr;
  ASSERT_EQ(cudaMalloc(&held, free_bytes - leave), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  ASSERT_LT(free_bytes, sample_bytes) << "could not make the free device memory small";

  std::vector<uint8_t> rgb(sample_bytes);
  std::mt19937 rng(11);
  for (auto& v : rgb) v = static_cast<uint8_t>(rng());
  const auto view = j2kfront::ImageView::interleaved(rgb.data(), rgb.size(), w, h, 3, J2K_SAMPLE_U8, 8);
  j2kfront::Settings s = settings(J2K_BACKEND_CUDA, J2K_WAVELET_53);
  s.tile_w = s.tile_h = 1024;
  s.tile_x0 = s.tile_y0 = 0;
  std::vector<unsigned char> got;
  {
    j2kfront::Plan gpu(s, view);
    EXPECT_LT(gpu.memory().device, free_bytes);
    gpu.run(view);
    got = all_coefficients(gpu);
  }
  cudaFree(held);
  s.backend = J2K_BACKEND_CPU;
  j2kfront::Plan cpu(s, view);
  cpu.run(view);
  EXPECT_TRUE(got == all_coefficients(cpu)) << "device memory free while running: " << free_bytes << " bytes";
}

// An untiled image goes through the CUDA queue by rows (stripes uploaded, transformed as they
// arrive, finished rows downloaded on a second stream): RGB through the fused levels 1 + 2
// (origin on a multiple of 4) and through the per-level kernels (odd origin), RGBA, gray,
// 8 and 16 bit, planar and interleaved, pageable and pinned, levels 1, 2 and 5, both wavelets,
// int16 output (narrowed region by region before its download) for 8-bit samples; frames in
// flight on one stream and on two. Equal to the CPU's.
TEST_F(PlanCuda, UntiledImagesByRowsMatchTheCpu) {
  struct Case { uint32_t w, h, x0, y0; int nc; j2k_sample_type type; bool interleaved; int levels; };
  const Case cases[] = {{700, 1100, 0, 0, 3, J2K_SAMPLE_U8, true, 5},   {333, 1301, 3, 1, 3, J2K_SAMPLE_U16, false, 5},
                        {257, 600, 4, 4, 4, J2K_SAMPLE_U8, true, 2},    {129, 777, 1, 0, 1, J2K_SAMPLE_U16, false, 1},
                        {64, 513, 0, 0, 1, J2K_SAMPLE_U8, false, 5},     {501, 900, 2, 3, 4, J2K_SAMPLE_U16, true, 3}};
  std::mt19937 rng(17);
  for (const Case& k : cases) {
    const int bits = k.type == J2K_SAMPLE_U8 ? 8 : 16;
    const size_t n = size_t{k.w} * k.h * static_cast<size_t>(k.nc);
    std::vector<unsigned char> bytes(n * (bits / 8));
    for (auto& b : bytes) b = static_cast<unsigned char>(rng());
    void* pinned = nullptr;
    ASSERT_EQ(cudaMallocHost(&pinned, bytes.size()), cudaSuccess);
    std::memcpy(pinned, bytes.data(), bytes.size());
    for (int output : {0, 1, 2})  // 5/3 int32, 5/3 int16 (8-bit samples), 9/7
      for (j2k_memory m : {J2K_MEMORY_HOST, J2K_MEMORY_PINNED}) {
        if (output == 1 && bits != 8) continue;
        const j2k_wavelet wv = output == 2 ? J2K_WAVELET_97 : J2K_WAVELET_53;
        const void* data = m == J2K_MEMORY_HOST ? static_cast<const void*>(bytes.data()) : pinned;
        auto view = k.interleaved ? j2kfront::ImageView::interleaved(data, bytes.size(), k.w, k.h, k.nc, k.type, bits, 0, m)
                                  : j2kfront::ImageView::planar(data, bytes.size(), k.w, k.h, k.nc, k.type, bits, 0, 0, m);
        view.at_origin(k.x0, k.y0);
        j2kfront::Settings s;
        s.backend = J2K_BACKEND_CPU;
        s.wavelet = wv;
        s.levels = k.levels;
        s.narrow_output = output == 1;
        j2kfront::Plan cpu(s, view);
        cpu.run(view);
        const std::vector<unsigned char> want = all_coefficients(cpu);
        const std::string what = std::to_string(k.w) + "x" + std::to_string(k.h) + " nc " + std::to_string(k.nc) +
                                 " " + std::to_string(bits) + "-bit" + (wv ? " 9/7" : " 5/3") +
                                 (output == 1 ? " int16" : "") +
                                 (m == J2K_MEMORY_HOST ? " pageable" : " pinned");
        s.backend = J2K_BACKEND_CUDA;
        for (int streams : {1, 2}) {
          s.streams = streams;
          j2kfront::Plan gpu(s, view);
          gpu.run(view);
          EXPECT_TRUE(all_coefficients(gpu) == want) << what << ", " << streams << " streams";
          // Three frames in flight, each into its own buffers.
          const size_t count = gpu.tile_components();
          std::vector<std::vector<std::vector<unsigned char>>> outs(3);
          std::vector<j2k_ticket> tickets;
          for (auto& o : outs) {
            for (size_t i = 0; i < count; ++i) {
              const j2k_coefficients c = gpu.tile_component(i).coefficients;
              const auto row = static_cast<ptrdiff_t>(c.width * j2k_sample_size(c.type));
              o.emplace_back(static_cast<size_t>(row * c.height));
              gpu.set_output(i, o.back().data(), o.back().size(), row);
            }
            tickets.push_back(gpu.submit(view));
          }
          for (j2k_ticket t : tickets) gpu.wait(t);
          for (size_t f = 0; f < outs.size(); ++f) {
            std::vector<unsigned char> got;
            for (const auto& plane : outs[f]) got.insert(got.end(), plane.begin(), plane.end());
            EXPECT_TRUE(got == want) << what << ", " << streams << " streams, frame " << f;
          }
        }
      }
    cudaFreeHost(pinned);
  }
}

// Frames ordered against the caller's streams on the device: samples copied up on one stream
// and transformed after it without a host wait; coefficients kept on the device and copied
// down on another stream after the frame, again without a host wait; equal to the CPU's.
TEST_F(PlanCuda, FramesOrderedAgainstTheCallersStreams) {
  const uint32_t w = 1000, h = 700;
  j2kfront::Settings s = settings(J2K_BACKEND_CPU, J2K_WAVELET_53);
  s.tile_w = s.tile_h = 256;
  s.tile_x0 = s.tile_y0 = 0;
  cudaStream_t in_stream = nullptr, out_stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&in_stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&out_stream, cudaStreamNonBlocking), cudaSuccess);
  const size_t bytes = size_t{w} * h * 3 * 2;
  void* host = nullptr;
  void* device = nullptr;
  ASSERT_EQ(cudaMallocHost(&host, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&device, bytes), cudaSuccess);
  j2kfront::Settings g = s;
  g.backend = J2K_BACKEND_CUDA;
  g.output_memory = J2K_MEMORY_DEVICE;
  const auto device_view = j2kfront::ImageView::interleaved(device, bytes, w, h, 3, J2K_SAMPLE_U16, 12, 0, J2K_MEMORY_DEVICE);
  j2kfront::Plan gpu(g, device_view);
  for (uint32_t frame = 0; frame < 3; ++frame) {
    const std::vector<uint16_t> rgb = random_rgb16(w, h, 40 + frame);
    const auto view = j2kfront::ImageView::interleaved(rgb.data(), rgb.size() * 2, w, h, 3, J2K_SAMPLE_U16, 12);
    j2kfront::Plan cpu(s, view);
    cpu.run(view);
    // Up on in_stream: several copies queued (the last one the real samples), so that the
    // plan would read stale samples if it did not wait for the stream.
    std::memset(host, 0, bytes);
    for (int i = 0; i < 8; ++i)
      ASSERT_EQ(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, in_stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(in_stream), cudaSuccess);
    std::memcpy(host, rgb.data(), bytes);
    for (int i = 0; i < 8; ++i)
      ASSERT_EQ(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, in_stream), cudaSuccess);
    const j2k_ticket t = gpu.submit_after(device_view, in_stream);
    gpu.signal(t, out_stream);
    std::vector<std::vector<unsigned char>> got(gpu.tile_components());
    for (size_t i = 0; i < got.size(); ++i) {
      const j2k_coefficients c = gpu.tile_component(i).coefficients;
      got[i].resize(static_cast<size_t>(c.width * c.height * 4));
      ASSERT_EQ(cudaMemcpy2DAsync(got[i].data(), static_cast<size_t>(c.width * 4), c.data, static_cast<size_t>(c.row_stride),
                                  static_cast<size_t>(c.width * 4), static_cast<size_t>(c.height), cudaMemcpyDeviceToHost,
                                  out_stream),
                cudaSuccess);
    }
    ASSERT_EQ(cudaStreamSynchronize(out_stream), cudaSuccess);
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const j2k_coefficients c = cpu.tile_component(i).coefficients;
      for (int64_t y = 0; y < c.height; ++y)
        bad += std::memcmp(got[i].data() + y * c.width * 4, static_cast<const char*>(c.data) + y * c.row_stride,
                           static_cast<size_t>(c.width * 4)) != 0;
    }
    EXPECT_EQ(bad, 0u) << "frame " << frame << ": rows differ from the CPU";
    gpu.wait(t);
  }
  cudaFree(device);
  cudaFreeHost(host);
  cudaStreamDestroy(in_stream);
  cudaStreamDestroy(out_stream);
}

// The caller's device buffers as outputs, with padded rows that must stay untouched.
TEST_F(PlanCuda, CallerDeviceOutputs) {
  const uint32_t w = 130, h = 70;
  const std::vector<uint16_t> rgb = random_rgb16(w, h, 9);
  const auto view = j2kfront::ImageView::interleaved(rgb.data(), rgb.size() * 2, w, h, 3, J2K_SAMPLE_U16, 12);
  j2kfront::Settings s = settings(J2K_BACKEND_CUDA, J2K_WAVELET_53);
  s.tile_w = s.tile_h = 64;
  s.tile_x0 = s.tile_y0 = 0;
  j2kfront::Plan plan(s, view);
  plan.run(view);
  const std::vector<unsigned char> own = all_coefficients(plan);
  std::vector<void*> buffers;
  for (size_t i = 0; i < plan.tile_components(); ++i) {
    const j2k_coefficients c = plan.tile_component(i).coefficients;
    const ptrdiff_t stride = (c.width + 7) * 4;
    void* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, static_cast<size_t>(stride * c.height)), cudaSuccess);
    ASSERT_EQ(cudaMemset(d, 0x5A, static_cast<size_t>(stride * c.height)), cudaSuccess);
    plan.set_output(i, d, static_cast<size_t>(stride * c.height), stride, J2K_MEMORY_DEVICE);
    buffers.push_back(d);
  }
  // cudaMemset may still be running on the default stream, which the plan's streams do not wait for.
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  plan.run(view);
  EXPECT_TRUE(all_coefficients(plan) == own);
  for (size_t i = 0; i < buffers.size(); ++i) {
    const j2k_coefficients c = plan.tile_component(i).coefficients;
    std::vector<unsigned char> raw(static_cast<size_t>(c.row_stride * c.height));
    ASSERT_EQ(cudaMemcpy(raw.data(), buffers[i], raw.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int64_t y = 0; y < c.height; ++y)
      for (int64_t b = c.width * 4; b < c.row_stride; ++b)
        ASSERT_EQ(raw[static_cast<size_t>(y * c.row_stride + b)], 0x5A) << "padding written, tile-component " << i;
    cudaFree(buffers[i]);
  }
}

}  // namespace
