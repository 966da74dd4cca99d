// SPDX-License-Identifier: BSD-2-Clause
// The CPU backend's queue: its buffers are host memory and its operations run when called, on
// the calling thread and its workers (worker_pool.hpp). shift_mct reads the caller's samples where they are
// (no upload), the DWT works in place in the coefficients' home (no download), with scratch
// reserved once.
#include <cstdlib>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/memory_pages.hpp"
#include "common/parallel/parallel_for.hpp"
#include "transform/cpu/dwt_cpu.hpp"
#include "transform/cpu/shift_mct.hpp"
#include "transform/cpu/to_samples.hpp"
#include "transform/queue.hpp"

namespace j2k {
namespace {

class CpuQueue final : public Queue {
 public:
  explicit CpuQueue(int threads) : threads_(threads) {}
  Backend kind() const override { return Backend::Cpu; }
  std::string description() const override;
  bool asynchronous() const override { return false; }
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
           const Rect& tc, int levels, const constants::Inverse97Scale& scale) override;
  bool in_place() const override { return true; }
  void to_samples(const std::vector<Plane>& in, const TileOutput& out) override { cpu::to_samples(in, out, threads_); }
  Plane narrow_plane(int, int64_t, int64_t) override;
  void narrow(const Plane& src, const Plane& dst) override;
  void download(const Plane& src, const Plane& host) override;
  void mark(int slot) override;
  void wait(int slot) override;
  void after(void*) override { no_cuda_streams(); }
  void signal(int, void*) override { no_cuda_streams(); }

 private:
  int threads_;
  std::vector<float> scratch_;      // the CPU DWT's passes (int32 and float share it)
  std::vector<int32_t> planes_;     // int32 planes of one tile, for int16 output
  size_t cursor_ = 0;               // the next free byte of planes_ in this tile
  bool out_of_range_ = false;       // a sample outside its precision since the last mark()
  bool slot_out_of_range_[kFrameSlots + 1] = {};
};

}  // namespace

std::string CpuQueue::description() const { return cpu::describe(threads_); }

void CpuQueue::reserve(const QueueNeeds& needs) {
  if (planes_.size() * 4 < needs.output_bytes) planes_.assign((needs.output_bytes + 3) / 4, 0);
  if (scratch_.size() * sizeof(float) < needs.dwt_workspace)
    scratch_.assign((needs.dwt_workspace + sizeof(float) - 1) / sizeof(float), 0.0f);
}

j2k_memory_report CpuQueue::memory_held() const {
  j2k_memory_report r{};
  r.host = scratch_.capacity() * sizeof(float) + planes_.capacity() * sizeof(int32_t);
  return r;
}

// The pages mapped first on the workers: the passes and Tier-1 that fill a plane write its
// rows and code-blocks on every thread at once, which would otherwise fault the same pages
// together (common/memory_pages.hpp).
void* CpuQueue::allocate(size_t bytes, j2k_memory& where) {
  void* p = allocate_host_coefficients(bytes, where, "cpu");
  populate_pages(p, bytes, threads_);
  return p;
}

void CpuQueue::release(void* p, j2k_memory) noexcept { std::free(p); }

size_t CpuQueue::dwt_workspace_bytes(Wavelet, const Rect& tc, int) const {
  return cpu::scratch_per_thread(tc) * sizeof(float) * static_cast<size_t>(worker_count(threads_));
}

// This queue reads the caller's samples and writes the coefficients in place: the plan never
// asks it for staging or work planes, nor for copies; output planes (int32, packed) only for
// int16 output, which narrow() writes into the home.
Plane CpuQueue::staging(int, j2k_sample_type, int64_t, int64_t) {
  throw Error(ErrorCode::Internal, "cpu queue: no staging planes");
}
Plane CpuQueue::work(int, j2k_sample_type, int64_t, int64_t) {
  throw Error(ErrorCode::Internal, "cpu queue: no work planes");
}
Plane CpuQueue::output(int component, j2k_sample_type type, int64_t w, int64_t h) {
  if (component == 0) cursor_ = 0;
  const auto n = static_cast<size_t>(w * h);
  if (cursor_ + n > planes_.size()) throw Error(ErrorCode::Internal, "cpu queue: output planes not reserved");
  Plane p;
  p.base = planes_.data();
  p.offset = cursor_ * 4;
  p.type = type;
  p.pixel_stride = 4;
  p.row_stride = 4 * w;
  p.width = w;
  p.height = h;
  cursor_ += n;
  return p;
}
Plane CpuQueue::narrow_plane(int, int64_t, int64_t) {
  throw Error(ErrorCode::Internal, "cpu queue: int16 output goes straight home");
}
void CpuQueue::narrow(const Plane& src, const Plane& dst) {
  const auto* s = static_cast<const char*>(src.base) + src.offset;
  auto* d = static_cast<char*>(dst.base) + dst.offset;
  parallel_for(static_cast<ptrdiff_t>(src.height), copy_threads(static_cast<size_t>(src.width * src.height) * 4, threads_),
               [&](ptrdiff_t y) {
    const auto* in = reinterpret_cast<const int32_t*>(s + y * src.row_stride);
    auto* out = reinterpret_cast<int16_t*>(d + y * dst.row_stride);
    for (int64_t x = 0; x < src.width; ++x) out[x] = static_cast<int16_t>(in[x]);
  });
}
void CpuQueue::upload(const Plane&, const Plane&) {
  throw Error(ErrorCode::Internal, "cpu queue: nothing to upload");
}
void CpuQueue::download(const Plane&, const Plane&) {
  throw Error(ErrorCode::Internal, "cpu queue: nothing to download");
}

void CpuQueue::shift_mct(const TileSamples& tile, Wavelet wavelet, const std::vector<Plane>& out) {
  if (!cpu::shift_mct(tile, wavelet, out, threads_)) out_of_range_ = true;
}

void CpuQueue::dwt(j2k_direction direction, Wavelet wavelet, const Plane& src, const Plane& dst,
                   const Rect& tc, int levels, const constants::Inverse97Scale& scale) {
  if (src.base != dst.base || src.offset != dst.offset)
    throw Error(ErrorCode::Internal, "cpu queue: the DWT runs in place");
  if (tc.empty()) return;
  char* data = static_cast<char*>(dst.base) + dst.offset;
  const ptrdiff_t stride = dst.row_stride / 4;
  DwtLevel lv[kMaxLevels];
  const int n = dwt_levels(tc, levels, lv);
  const size_t per_thread = cpu::scratch_per_thread(tc);
  if (scratch_.size() < per_thread * static_cast<size_t>(worker_count(threads_)))
    throw Error(ErrorCode::Internal, "cpu queue: DWT scratch not reserved for this tile-component");
  if (wavelet == Wavelet::Reversible53)
    cpu::dwt(direction, reinterpret_cast<int32_t*>(data), stride, lv, n, threads_,
             cpu::Scratch<int32_t>{reinterpret_cast<int32_t*>(scratch_.data()), per_thread});
  else
    cpu::dwt(direction, reinterpret_cast<float*>(data), stride, lv, n, threads_,
             cpu::Scratch<float>{scratch_.data(), per_thread}, scale);
}

// Work runs when called: a mark only files the range check under the frame's slot.
void CpuQueue::mark(int slot) {
  slot_out_of_range_[slot] = out_of_range_;
  out_of_range_ = false;
}

void CpuQueue::wait(int slot) {
  if (slot_out_of_range_[slot]) {
    slot_out_of_range_[slot] = false;
    throw sample_out_of_range();
  }
}

std::unique_ptr<Queue> make_cpu_queue(const BackendOptions& options) {
  return std::make_unique<CpuQueue>(options.threads);
}

}  // namespace j2k
