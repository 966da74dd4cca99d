// SPDX-License-Identifier: BSD-2-Clause
// GpuMemory on OpenCL: buffers and the command queue of a Runner on the first device, whose
// context is the one the Tier-1 batch gets for that device (contexts are cached per device).
#include <memory>
#include <vector>

#include "device/opencl/opencl_device.hpp"
#include "tests/support/gpu_memory.hpp"
#include "transform/opencl/opencl_dwt.hpp"

namespace test_support {
namespace {

class OpenCLMemory final : public GpuMemory {
 public:
  OpenCLMemory() : runner_(j2k::ocl::select_device(-1)) {}
  ~OpenCLMemory() override { j2k::ocl::cl().clFinish(runner_.queue()); }
  j2k::Plane filled(size_t bytes, unsigned char value) override {
    buffers_.emplace_back(runner_.context(), bytes);
    j2k::Plane plane;
    plane.base = buffers_.back().get();
    plane.memory = J2K_MEMORY_DEVICE;
    fill(plane, bytes, value);
    return plane;
  }
  void fill(const j2k::Plane& plane, size_t bytes, unsigned char value) override {
    const std::vector<unsigned char> pattern(bytes, value);
    j2k::ocl::check(j2k::ocl::cl().clEnqueueWriteBuffer(runner_.queue(), static_cast<cl_mem>(plane.base), CL_TRUE,
                                                        plane.offset, bytes, pattern.data(), 0, nullptr, nullptr),
                    "clEnqueueWriteBuffer");
  }
  void read(const j2k::Plane& plane, void* host, size_t bytes) override {
    j2k::ocl::check(j2k::ocl::cl().clEnqueueReadBuffer(runner_.queue(), static_cast<cl_mem>(plane.base), CL_TRUE,
                                                       plane.offset, bytes, host, 0, nullptr, nullptr),
                    "clEnqueueReadBuffer");
  }
  void write(const j2k::Plane& plane, const void* host, size_t bytes) override {
    j2k::ocl::check(j2k::ocl::cl().clEnqueueWriteBuffer(runner_.queue(), static_cast<cl_mem>(plane.base), CL_TRUE,
                                                        plane.offset, bytes, host, 0, nullptr, nullptr),
                    "clEnqueueWriteBuffer");
  }
  void* stream() override { return runner_.queue(); }

 private:
  j2k::ocl::Runner runner_;
  std::vector<j2k::ocl::Buffer> buffers_;
};

}  // namespace

std::unique_ptr<GpuMemory> make_opencl_memory() { return std::make_unique<OpenCLMemory>(); }

}  // namespace test_support
