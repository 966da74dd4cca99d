// SPDX-License-Identifier: BSD-2-Clause
// OpenCL devices for the GPU code of every stage (the DWT in transform/opencl, Tier-1 in
// codec/tier1/gpu/opencl): the devices of every platform and the choice among them, errors as
// j2k::Error, buffers released with the right call, and the largest buffer a device (or a test
// that makes it behave as a small one) allows. Not part of the public API.
#pragma once
#include "device/opencl/opencl_library.hpp"  // CL/cl.h and cl(), the loaded functions

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace j2k::ocl {

// Every device of every platform, in a stable order: platforms as clGetPlatformIDs lists
// them, then each platform's devices as clGetDeviceIDs(CL_DEVICE_TYPE_ALL) lists them.
struct DeviceInfo {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  std::string name, platform_name, version;  // version: CL_DEVICE_VERSION
  bool gpu = false;
  bool usable = false;  // OpenCL 1.2 or later
  unsigned compute_units = 1;
  uint64_t max_alloc = 0;
  uint64_t local_mem = 0;        // bytes of local memory a work-group may use (0: unknown)
  size_t max_work_group = 0;     // work-items in a group (0: unknown)
  size_t max_items[2] = {0, 0};  // work-items along dimensions 0 and 1 (0: unknown)
};

// Empty when no platform or no device exists; `why` then says which.
std::vector<DeviceInfo> list_devices(std::string* why = nullptr);

// The device index for BackendOptions::device: `requested` >= 0, else the first usable GPU,
// else the first usable device, else device 0. Throws Error(InvalidArgument) for an index out
// of range (naming how many devices exist), Error(BackendUnavailable) when there is no device
// at all.
int select_device(int requested);

// "CL_OUT_OF_RESOURCES (-5)".
std::string error_name(cl_int err);
// Throws Error(BackendFailure, "<call>: <error name>").
[[noreturn]] void fail(const char* call, cl_int err);
inline void check(cl_int err, const char* call) {
  if (err != CL_SUCCESS) fail(call, err);
}

// The items of a tuning list (BackendOptions::opencl_tuning: comma-separated, empty ones
// left out).
std::vector<std::string> tuning_items(const std::string& tuning);

// `max_alloc=N` (bytes) of a tuning list (BackendOptions::opencl_tuning: comma-separated
// items, the others the DWT's), which lowers every device's largest buffer to N so that a
// large device behaves as a small one would (for tests); 0 where the list has none. Throws
// Error(InvalidArgument) naming the item for an N that is not a number of bytes above 0.
uint64_t max_alloc_option(const std::string& tuning);

// The most bytes one buffer on `device` may take: its CL_DEVICE_MAX_MEM_ALLOC_SIZE, or
// `limit` where that is less (0: no limit of its own).
uint64_t largest_buffer(const DeviceInfo& device, uint64_t limit);

// The one context of `device` for the process, made on first use and never released (releasing
// it from static destructors races the ICD loader's own teardown): every stage's buffers on a
// device (the DWT's planes, a Tier-1 batch's) are then usable by every stage's queues.
cl_context context_for(const DeviceInfo& device);

class Buffer {
 public:
  Buffer() = default;
  Buffer(cl_context ctx, size_t bytes, cl_mem_flags flags = CL_MEM_READ_WRITE);
  ~Buffer();
  Buffer(Buffer&& o) noexcept : mem_(o.mem_), bytes_(o.bytes_) { o.mem_ = nullptr; o.bytes_ = 0; }
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  cl_mem get() const { return mem_; }
  size_t bytes() const { return bytes_; }

 private:
  cl_mem mem_ = nullptr;
  size_t bytes_ = 0;
};

// Host memory the device's DMA engine reads and writes directly (page-locked where the
// platform pins CL_MEM_ALLOC_HOST_PTR buffers, as NVIDIA's does): a buffer of that kind,
// mapped once for its lifetime. A transfer between a device buffer and data() runs at the
// link's speed and asynchronously, where one from ordinary (pageable) memory goes through the
// driver's own staging at a fraction of it and holds the calling thread. It maps and unmaps
// on a queue of its own, so that it outlives the queues that transfer from it.
class PinnedHost {
 public:
  PinnedHost() = default;
  PinnedHost(cl_context ctx, cl_device_id device, size_t bytes);
  ~PinnedHost();
  PinnedHost(PinnedHost&& o) noexcept { *this = std::move(o); }
  PinnedHost& operator=(PinnedHost&& o) noexcept;
  PinnedHost(const PinnedHost&) = delete;
  PinnedHost& operator=(const PinnedHost&) = delete;
  unsigned char* data() const { return data_; }
  size_t bytes() const { return data_ ? buffer_.bytes() : 0; }

 private:
  void release() noexcept;
  Buffer buffer_;
  cl_command_queue queue_ = nullptr;
  unsigned char* data_ = nullptr;
};

}  // namespace j2k::ocl
