#include "transform/host_queue.hpp"

#include <cstdlib>

#include "common/error.hpp"
#include "transform/cpu/dwt_cpu.hpp"
#include "transform/cpu/shift_mct.hpp"
#include "transform/cpu/threading.hpp"

namespace j2k {

HostQueue::HostQueue(Backend kind, std::unique_ptr<DwtEngine> engine, int threads)
    : kind_(kind), engine_(std::move(engine)), threads_(threads) {}

std::string HostQueue::description() const {
  if (engine_) return engine_->description();
#ifdef J2K_HAVE_OPENMP
  const int n = worker_count(threads_);
  return "cpu (OpenMP, " + std::to_string(n) + (n == 1 ? " thread)" : " threads)");
#else
  return "cpu (single thread, built without OpenMP)";
#endif
}

void HostQueue::reserve(const QueueNeeds& needs) {
  if (!engine_ && scratch_.size() * sizeof(float) < needs.dwt_workspace)
    scratch_.assign((needs.dwt_workspace + sizeof(float) - 1) / sizeof(float), 0.0f);
}

j2k_memory_report HostQueue::memory_held() const {
  j2k_memory_report r{};
  r.host = scratch_.capacity() * sizeof(float);
  return r;
}

void* HostQueue::allocate(size_t bytes, j2k_memory& where) {
  if (where == J2K_MEMORY_DEVICE)
    throw Error(ErrorCode::InvalidArgument,
                std::string("the ") + backend_name(kind_) +
                    " backend keeps coefficients in host memory; device memory needs the cuda backend");
  where = J2K_MEMORY_HOST;
  // Rows of 64-byte aligned buffers start on a cache line (the plan aligns each plane).
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p && bytes) throw Error(ErrorCode::OutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes of host memory for the coefficients");
  return p;
}

void HostQueue::release(void* p, j2k_memory) noexcept { std::free(p); }

size_t HostQueue::dwt_workspace_bytes(Wavelet, const Rect& tc, int) const {
  if (engine_) return 0;
  return cpu::scratch_per_thread(tc) * sizeof(float) * static_cast<size_t>(worker_count(threads_));
}

// Host queues read the caller's samples and write the coefficients in place: the plan never
// asks them for staging, work or output planes, nor for copies.
Plane HostQueue::staging(int, j2k_sample_type, int64_t, int64_t) {
  throw Error(ErrorCode::Internal, "host queue: no staging planes");
}
Plane HostQueue::work(int, j2k_sample_type, int64_t, int64_t) {
  throw Error(ErrorCode::Internal, "host queue: no work planes");
}
Plane HostQueue::output(int, j2k_sample_type, int64_t, int64_t) {
  throw Error(ErrorCode::Internal, "host queue: no output planes");
}
void HostQueue::upload(const Plane&, const Plane&) {
  throw Error(ErrorCode::Internal, "host queue: nothing to upload");
}
void HostQueue::download(const Plane&, const Plane&) {
  throw Error(ErrorCode::Internal, "host queue: nothing to download");
}

void HostQueue::shift_mct(const TileSamples& tile, Wavelet wavelet, const std::vector<Plane>& out) {
  if (!cpu::shift_mct(tile, wavelet, out, threads_)) out_of_range_ = true;
}

void HostQueue::dwt(j2k_direction direction, Wavelet wavelet, const Plane& src, const Plane& dst,
                    const Rect& tc, int levels) {
  if (src.base != dst.base || src.offset != dst.offset)
    throw Error(ErrorCode::Internal, "host queue: the DWT runs in place");
  if (tc.empty()) return;
  char* data = static_cast<char*>(dst.base) + dst.offset;
  const ptrdiff_t stride = dst.row_stride / 4;
  const bool fwd = direction == J2K_FORWARD;
  const bool rev = wavelet == Wavelet::Reversible53;
  if (engine_) {
    auto* i = reinterpret_cast<int32_t*>(data);
    auto* f = reinterpret_cast<float*>(data);
    const auto s = static_cast<size_t>(stride);
    if (rev) fwd ? engine_->forward53(i, s, tc, levels) : engine_->inverse53(i, s, tc, levels);
    else fwd ? engine_->forward97(f, s, tc, levels) : engine_->inverse97(f, s, tc, levels);
    return;
  }
  DwtLevel lv[kMaxLevels];
  const int n = dwt_levels(tc, levels, lv);
  const size_t per_thread = cpu::scratch_per_thread(tc);
  if (scratch_.size() < per_thread * static_cast<size_t>(worker_count(threads_)))
    throw Error(ErrorCode::Internal, "host queue: DWT scratch not reserved for this tile-component");
  if (rev)
    cpu::dwt(direction, reinterpret_cast<int32_t*>(data), stride, lv, n, threads_,
             cpu::Scratch<int32_t>{reinterpret_cast<int32_t*>(scratch_.data()), per_thread});
  else
    cpu::dwt(direction, reinterpret_cast<float*>(data), stride, lv, n, threads_,
             cpu::Scratch<float>{scratch_.data(), per_thread});
}

void HostQueue::finish() {
  if (out_of_range_) {
    out_of_range_ = false;
    throw Error(ErrorCode::InvalidArgument,
                "a sample lies outside the range of its component's precision and signedness");
  }
}

}  // namespace j2k
