// A queue whose buffers are host memory: the CPU backend, and the OpenCL backend until it has
// device-resident stages of its own (its DWT copies each tile-component to the device and
// back). Operations run on the calling thread (and its OpenMP team) when called; shift_mct
// reads the caller's samples where they are, and the DWT works in place.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "transform/dwt_engine.hpp"
#include "transform/queue.hpp"

namespace j2k {

class HostQueue : public Queue {
 public:
  // `engine`: the DWT on host buffers; null for the CPU reference with the queue's scratch.
  HostQueue(Backend kind, std::unique_ptr<DwtEngine> engine, int threads);
  Backend kind() const override { return kind_; }
  std::string description() const override;
  j2k_memory memory() const override { return J2K_MEMORY_HOST; }
  bool reads(j2k_memory where) const override { return where != J2K_MEMORY_DEVICE; }
  void reserve(const QueueNeeds& needs) override;
  j2k_memory_report memory_held() const override;
  Plane staging(int, j2k_sample_type, int64_t, int64_t) override;
  Plane work(int, j2k_sample_type, int64_t, int64_t) override;
  Plane output(int, j2k_sample_type, int64_t, int64_t) override;
  void* allocate(size_t bytes, j2k_memory& where) override;
  void release(void* p, j2k_memory where) noexcept override;
  size_t dwt_workspace_bytes(Wavelet wavelet, const Rect& tc, int levels) const override;
  void upload(const Plane& host, const Plane& dst) override;
  void shift_mct(const TileSamples& tile, Wavelet wavelet, const std::vector<Plane>& out) override;
  void dwt(j2k_direction direction, Wavelet wavelet, const Plane& src, const Plane& dst,
           const Rect& tc, int levels) override;
  bool in_place() const override { return true; }
  void download(const Plane& src, const Plane& host) override;
  void finish() override;

 private:
  Backend kind_;
  std::unique_ptr<DwtEngine> engine_;
  int threads_;
  std::vector<float> scratch_;      // the CPU DWT's passes (int32 and float share it)
  bool out_of_range_ = false;       // a sample outside its precision since the last finish()
};

}  // namespace j2k
