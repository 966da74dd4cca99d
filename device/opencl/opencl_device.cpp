// SPDX-License-Identifier: BSD-2-Clause
#include "device/opencl/opencl_device.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "device/available.hpp"

namespace j2k::ocl {

// ---------------------------------------------------------------- errors

std::string error_name(cl_int err) {
  const char* name = nullptr;
  switch (err) {
#define J2K_CL_ERR(e) \
  case e: name = #e; break;
    J2K_CL_ERR(CL_DEVICE_NOT_FOUND)
    J2K_CL_ERR(CL_DEVICE_NOT_AVAILABLE)
    J2K_CL_ERR(CL_COMPILER_NOT_AVAILABLE)
    J2K_CL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    J2K_CL_ERR(CL_OUT_OF_RESOURCES)
    J2K_CL_ERR(CL_OUT_OF_HOST_MEMORY)
    J2K_CL_ERR(CL_PROFILING_INFO_NOT_AVAILABLE)
    J2K_CL_ERR(CL_MEM_COPY_OVERLAP)
    J2K_CL_ERR(CL_BUILD_PROGRAM_FAILURE)
    J2K_CL_ERR(CL_MAP_FAILURE)
    J2K_CL_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    J2K_CL_ERR(CL_INVALID_VALUE)
    J2K_CL_ERR(CL_INVALID_DEVICE_TYPE)
    J2K_CL_ERR(CL_INVALID_PLATFORM)
    J2K_CL_ERR(CL_INVALID_DEVICE)
    J2K_CL_ERR(CL_INVALID_CONTEXT)
    J2K_CL_ERR(CL_INVALID_QUEUE_PROPERTIES)
    J2K_CL_ERR(CL_INVALID_COMMAND_QUEUE)
    J2K_CL_ERR(CL_INVALID_HOST_PTR)
    J2K_CL_ERR(CL_INVALID_MEM_OBJECT)
    J2K_CL_ERR(CL_INVALID_BINARY)
    J2K_CL_ERR(CL_INVALID_BUILD_OPTIONS)
    J2K_CL_ERR(CL_INVALID_PROGRAM)
    J2K_CL_ERR(CL_INVALID_PROGRAM_EXECUTABLE)
    J2K_CL_ERR(CL_INVALID_KERNEL_NAME)
    J2K_CL_ERR(CL_INVALID_KERNEL)
    J2K_CL_ERR(CL_INVALID_ARG_INDEX)
    J2K_CL_ERR(CL_INVALID_ARG_VALUE)
    J2K_CL_ERR(CL_INVALID_ARG_SIZE)
    J2K_CL_ERR(CL_INVALID_KERNEL_ARGS)
    J2K_CL_ERR(CL_INVALID_WORK_DIMENSION)
    J2K_CL_ERR(CL_INVALID_WORK_GROUP_SIZE)
    J2K_CL_ERR(CL_INVALID_WORK_ITEM_SIZE)
    J2K_CL_ERR(CL_INVALID_GLOBAL_OFFSET)
    J2K_CL_ERR(CL_INVALID_EVENT_WAIT_LIST)
    J2K_CL_ERR(CL_INVALID_EVENT)
    J2K_CL_ERR(CL_INVALID_OPERATION)
    J2K_CL_ERR(CL_INVALID_BUFFER_SIZE)
    J2K_CL_ERR(CL_INVALID_GLOBAL_WORK_SIZE)
#undef J2K_CL_ERR
    case -1001: name = "CL_PLATFORM_NOT_FOUND_KHR"; break;
    default: break;
  }
  return std::string(name ? name : "OpenCL error") + " (" + std::to_string(err) + ")";
}

void fail(const char* call, cl_int err) {
  throw Error(ErrorCode::BackendFailure, std::string(call) + ": " + error_name(err));
}

// ---------------------------------------------------------------- devices

namespace {

// A string property through OpenCL's two-call protocol (size, then data).
template <class Object, class Param, class Query>
std::string info_string(Object obj, Param what, Query query) {
  size_t n = 0;
  if (query(obj, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (query(obj, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  return info_string(p, what, cl().clGetPlatformInfo);
}

std::string device_string(cl_device_id d, cl_device_info what) {
  return info_string(d, what, cl().clGetDeviceInfo);
}

template <class T>
T device_value(cl_device_id d, cl_device_info what, T fallback) {
  T v{};
  return cl().clGetDeviceInfo(d, what, sizeof v, &v, nullptr) == CL_SUCCESS ? v : fallback;
}

// "OpenCL <major>.<minor> ..." -> at least 1.2?
bool version_at_least_1_2(const std::string& version) {
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "OpenCL %d.%d", &major, &minor) != 2) return false;
  return major > 1 || (major == 1 && minor >= 2);
}

}  // namespace

std::vector<DeviceInfo> list_devices(std::string* why) {
  std::vector<DeviceInfo> out;
  if (library(why) == nullptr) return out;
  cl_uint np = 0;
  cl_int err = cl().clGetPlatformIDs(0, nullptr, &np);
  if (err != CL_SUCCESS || np == 0) {
    if (why)
      *why = "no OpenCL platform found (clGetPlatformIDs: " +
             (err == CL_SUCCESS ? std::string("0 platforms") : error_name(err)) +
             "; is an ICD registered in /etc/OpenCL/vendors or OCL_ICD_VENDORS?)";
    return out;
  }
  std::vector<cl_platform_id> platforms(np);
  if ((err = cl().clGetPlatformIDs(np, platforms.data(), nullptr)) != CL_SUCCESS) {
    if (why) *why = "clGetPlatformIDs: " + error_name(err);
    return out;
  }
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (cl().clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ids(nd);
    if (cl().clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr) != CL_SUCCESS) continue;
    const std::string pname = platform_string(p, CL_PLATFORM_NAME);
    for (cl_device_id d : ids) {
      DeviceInfo info;
      info.platform = p;
      info.id = d;
      info.platform_name = pname;
      info.name = device_string(d, CL_DEVICE_NAME);
      info.version = device_string(d, CL_DEVICE_VERSION);
      info.gpu = (device_value<cl_device_type>(d, CL_DEVICE_TYPE, 0) & CL_DEVICE_TYPE_GPU) != 0;
      info.usable = version_at_least_1_2(info.version) &&
                    device_value<cl_bool>(d, CL_DEVICE_AVAILABLE, CL_FALSE) &&
                    device_value<cl_bool>(d, CL_DEVICE_COMPILER_AVAILABLE, CL_FALSE);
      info.compute_units = device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS, 1);
      info.max_alloc = device_value<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0);
      info.local_mem = device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE, 0);
      info.max_work_group = device_value<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, 0);
      size_t items[3] = {0, 0, 0};
      if (device_value<cl_uint>(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, 0) >= 2 &&
          cl().clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, nullptr) == CL_SUCCESS) {
        info.max_items[0] = items[0];
        info.max_items[1] = items[1];
      }
      out.push_back(std::move(info));
    }
  }
  if (out.empty() && why) *why = "OpenCL platforms found, but none has a device";
  return out;
}

int select_device(int requested) {
  std::string why;
  const std::vector<DeviceInfo> devs = list_devices(&why);
  if (devs.empty()) throw Error(ErrorCode::BackendUnavailable, "backend 'opencl' is not available: " + why);
  const auto count = static_cast<int>(devs.size());
  int index = requested;
  if (index < 0) {
    for (int i = 0; i < count; ++i)
      if (devs[static_cast<size_t>(i)].gpu && devs[static_cast<size_t>(i)].usable) return i;
    for (int i = 0; i < count; ++i)
      if (devs[static_cast<size_t>(i)].usable) return i;
    return 0;
  }
  if (index >= count)
    throw Error(ErrorCode::InvalidArgument,
                "OpenCL device index " + std::to_string(index) + " is out of range: " +
                    std::to_string(count) + " device" + (count == 1 ? "" : "s") +
                    " exist (valid: 0.." + std::to_string(count - 1) + ")");
  return index;
}

// ---------------------------------------------------------------- largest buffer

std::vector<std::string> tuning_items(const std::string& tuning) {
  std::vector<std::string> items;
  size_t pos = 0;
  while (pos < tuning.size()) {
    size_t end = tuning.find(',', pos);
    if (end == std::string::npos) end = tuning.size();
    if (end > pos) items.push_back(tuning.substr(pos, end - pos));
    pos = end + 1;
  }
  return items;
}

uint64_t max_alloc_option(const std::string& tuning) {
  uint64_t limit = 0;
  for (const std::string& item : tuning_items(tuning)) {
    if (item.rfind("max_alloc=", 0) != 0) continue;
    const char* digits = item.c_str() + 10;
    char* stop = nullptr;
    const unsigned long long v = std::strtoull(digits, &stop, 10);
    if (*digits < '0' || *digits > '9' || *stop != '\0' || v == 0 || v > (uint64_t{1} << 62))
      throw Error(ErrorCode::InvalidArgument, "OpenCL tuning: cannot use '" + item + "' (a number of bytes above 0)");
    limit = v;
  }
  return limit;
}

uint64_t largest_buffer(const DeviceInfo& device, uint64_t limit) {
  return limit && (device.max_alloc == 0 || limit < device.max_alloc) ? limit : device.max_alloc;
}

// ---------------------------------------------------------------- contexts

cl_context context_for(const DeviceInfo& device) {
  static std::mutex mutex;
  static std::map<cl_device_id, cl_context> contexts;
  std::lock_guard<std::mutex> lock(mutex);
  cl_context& ctx = contexts[device.id];
  if (!ctx) {
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(device.platform), 0};
    cl_int err = CL_SUCCESS;
    cl_context c = cl().clCreateContext(props, 1, &device.id, nullptr, nullptr, &err);
    check(err, "clCreateContext");
    ctx = c;
  }
  return ctx;
}

// ---------------------------------------------------------------- buffers

Buffer::Buffer(cl_context ctx, size_t bytes, cl_mem_flags flags) : bytes_(bytes) {
  cl_int err = CL_SUCCESS;
  mem_ = cl().clCreateBuffer(ctx, flags, bytes, nullptr, &err);
  check(err, "clCreateBuffer");
}
Buffer::~Buffer() {
  if (mem_) cl().clReleaseMemObject(mem_);
}
Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    if (mem_) cl().clReleaseMemObject(mem_);
    mem_ = o.mem_;
    bytes_ = o.bytes_;
    o.mem_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}


PinnedHost::PinnedHost(cl_context ctx, cl_device_id device, size_t bytes)
    : buffer_(ctx, std::max<size_t>(bytes, 1), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR) {
  cl_int err = CL_SUCCESS;
  queue_ = cl().clCreateCommandQueue(ctx, device, 0, &err);
  check(err, "clCreateCommandQueue");
  void* p = cl().clEnqueueMapBuffer(queue_, buffer_.get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, buffer_.bytes(), 0,
                                    nullptr, nullptr, &err);
  if (err != CL_SUCCESS) {
    release();
    fail("clEnqueueMapBuffer", err);
  }
  data_ = static_cast<unsigned char*>(p);
}
// Unmapped, and the unmapping finished, before the buffer goes: the release of a mapped
// region is left to the implementation by the standard.
void PinnedHost::release() noexcept {
  if (data_ && cl().clEnqueueUnmapMemObject(queue_, buffer_.get(), data_, 0, nullptr, nullptr) == CL_SUCCESS)
    cl().clFinish(queue_);
  if (queue_) cl().clReleaseCommandQueue(queue_);
  data_ = nullptr;
  queue_ = nullptr;
  buffer_ = Buffer();
}
PinnedHost::~PinnedHost() { release(); }
PinnedHost& PinnedHost::operator=(PinnedHost&& o) noexcept {
  if (this != &o) {
    release();
    buffer_ = std::move(o.buffer_);
    queue_ = o.queue_;
    data_ = o.data_;
    o.data_ = nullptr;
    o.queue_ = nullptr;
  }
  return *this;
}

}  // namespace j2k::ocl

namespace j2k {

bool opencl_available(std::string* why) {
  std::string reason;
  const std::vector<ocl::DeviceInfo> devs = ocl::list_devices(&reason);
  if (devs.empty()) {
    if (why) *why = reason;
    return false;
  }
  if (std::none_of(devs.begin(), devs.end(), [](const ocl::DeviceInfo& d) { return d.usable; })) {
    if (why) *why = "no OpenCL device supports OpenCL 1.2 with a compiler";
    return false;
  }
  return true;
}

bool opencl_gpu_available() {
  const std::vector<ocl::DeviceInfo> devs = ocl::list_devices();
  return std::any_of(devs.begin(), devs.end(),
                     [](const ocl::DeviceInfo& d) { return d.gpu && d.usable; });
}

}  // namespace j2k
