// The CUDA backend as a DwtEngine (host buffers): copies the tile-component into a device
// buffer through pinned staging, transforms it out of place with the device API
// (cuda_dwt.hpp), and copies the result back. Device buffers, workspace and staging
// are allocated once and grown when a larger geometry comes; nothing is allocated per call
// otherwise.
#include <cuda_runtime_api.h>

#include <cstring>
#include <string>
#include <type_traits>

#include "transform/cuda/cuda_dwt.hpp"
#include "common/error.hpp"
#include "transform/cuda/cuda_check.hpp"
#include "transform/dwt_engine.hpp"

namespace j2k {
namespace {

// What a GrowingBuffer holds: device memory, or pinned host memory for the staging copies.
struct DeviceMemory {
  static constexpr const char* kAllocName = "cudaMalloc";
  static cudaError_t alloc(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
  static void release(void* p) { cudaFree(p); }
};
struct PinnedMemory {
  static constexpr const char* kAllocName = "cudaMallocHost";
  static cudaError_t alloc(void** p, size_t bytes) { return cudaMallocHost(p, bytes); }
  static void release(void* p) { cudaFreeHost(p); }
};

// A buffer that grows to the largest size asked for and is kept: nothing is allocated per
// call once the largest geometry has been seen.
template <class Memory>
class GrowingBuffer {
 public:
  GrowingBuffer() = default;
  GrowingBuffer(const GrowingBuffer&) = delete;
  GrowingBuffer& operator=(const GrowingBuffer&) = delete;
  ~GrowingBuffer() { if (p_) Memory::release(p_); }
  void* get(size_t bytes) {
    if (bytes > size_) {
      if (p_) Memory::release(p_);
      p_ = nullptr;
      size_ = 0;
      cuda_check(Memory::alloc(&p_, bytes), Memory::kAllocName);
      size_ = bytes;
    }
    return p_;
  }
  size_t size() const { return size_; }

 private:
  void* p_ = nullptr;
  size_t size_ = 0;
};

using DeviceBuffer = GrowingBuffer<DeviceMemory>;
using PinnedBuffer = GrowingBuffer<PinnedMemory>;

class CudaEngine final : public DwtEngine {
 public:
  CudaEngine(int device, const CudaDwtOptions& options) : device_(device), options_(options) {
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    cudaDeviceProp prop{};
    cuda_check(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    cuda_check(cuda_kernel_image_check(), "cudaFuncGetAttributes");
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    name_ = std::string("cuda (device ") + std::to_string(device_) + ": " + prop.name + ", sm_" +
            std::to_string(prop.major) + std::to_string(prop.minor) + ")";
  }
  ~CudaEngine() override {
    if (stream_) cudaStreamDestroy(stream_);
  }
  Backend kind() const override { return Backend::Cuda; }
  std::string description() const override { return name_; }

  void forward53(int32_t* d, size_t s, const Rect& tc, int l) override {
    run(d, s, tc, l, Wavelet::Reversible53, true);
  }
  void inverse53(int32_t* d, size_t s, const Rect& tc, int l) override {
    run(d, s, tc, l, Wavelet::Reversible53, false);
  }
  void forward97(float* d, size_t s, const Rect& tc, int l) override {
    run(d, s, tc, l, Wavelet::Irreversible97, true);
  }
  void inverse97(float* d, size_t s, const Rect& tc, int l) override {
    run(d, s, tc, l, Wavelet::Irreversible97, false);
  }

 private:
  template <class T>
  void run(T* data, size_t stride, const Rect& tc, int levels, Wavelet wavelet, bool fwd) {
    if (tc.empty()) return;
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    const auto w = static_cast<size_t>(tc.width()), h = static_cast<size_t>(tc.height());
    const size_t row = w * sizeof(T), bytes = row * h;
    const size_t ws_bytes = cuda_dwt_workspace_bytes(wavelet, tc, levels);
    T* a = static_cast<T*>(a_.get(bytes));
    T* b = static_cast<T*>(b_.get(bytes));
    void* ws = ws_bytes ? ws_.get(ws_bytes) : nullptr;
    auto* pinned = static_cast<unsigned char*>(pinned_.get(bytes));
    for (size_t y = 0; y < h; ++y) std::memcpy(pinned + y * row, data + y * stride, row);
    cuda_check(cudaMemcpyAsync(a, pinned, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync");
    const j2k_sample_type type = std::is_integral<T>::value ? J2K_SAMPLE_I32 : J2K_SAMPLE_F32;
    const auto pitch = static_cast<ptrdiff_t>(row);
    cuda_dwt(fwd ? J2K_FORWARD : J2K_INVERSE, wavelet, DevicePlane{a, type, pitch}, 0,
             DevicePlane{b, type, pitch}, tc, levels, ws, ws_bytes, stream_, options_);
    cuda_check(cudaMemcpyAsync(pinned, b, bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    for (size_t y = 0; y < h; ++y) std::memcpy(data + y * stride, pinned + y * row, row);
  }

  int device_;
  CudaDwtOptions options_;
  cudaStream_t stream_ = nullptr;
  std::string name_;
  DeviceBuffer a_, b_, ws_;
  PinnedBuffer pinned_;
};

}  // namespace

bool cuda_available(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    if (why) *why = std::string("no CUDA device: ") + cudaGetErrorString(err);
    cudaGetLastError();  // clear the sticky-free error state
    return false;
  }
  if (count == 0) {
    if (why) *why = "no CUDA device: none found";
    return false;
  }
  return true;
}

std::unique_ptr<DwtEngine> make_cuda_engine(const BackendOptions& options) {
  const int device = options.device >= 0 ? options.device : 0;
  std::string why;
  if (!cuda_available(&why))
    throw Error(ErrorCode::BackendUnavailable, "backend 'cuda' is not available: " + why);
  int count = 0;
  cudaGetDeviceCount(&count);
  if (device >= count)
    throw Error(ErrorCode::InvalidArgument, "CUDA device " + std::to_string(device) +
                                                " does not exist (" + std::to_string(count) +
                                                " found)");
  CudaDwtOptions kernels;
  kernels.fuse_97 = options.cuda_fuse_97;
  kernels.fuse_inverse = options.cuda_fuse_inverse;
  return std::make_unique<CudaEngine>(device, kernels);
}

}  // namespace j2k
