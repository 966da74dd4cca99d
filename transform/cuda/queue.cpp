// SPDX-License-Identifier: BSD-2-Clause
// The CUDA backend's queue: two streams, buffers in device memory reserved once per plan.
// Samples cross the bus at their own width (pageable ones through a pinned staging buffer,
// pinned planar ones directly); shift + MCT and the DWT run on the device; coefficients stay
// there or are copied home. Uploads and compute go on the main stream, downloads on a second
// one (after an event), so that the next tile's upload overlaps this tile's download; the main
// stream waits for the downloads only before it writes the buffers they read, and at a mark.
// A tile by rows (rows_begin .. rows_end) sends its finished regions home the same way, stripe
// by stripe. Only wait() (and finish()) waits for the device.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "device/available.hpp"
#include "common/parallel/parallel_for.hpp"
#include "transform/common/pack_row.hpp"
#include "device/cuda/buffers.hpp"
#include "device/cuda/cuda_check.hpp"
#include "transform/cuda/cuda_dwt.hpp"
#include "transform/cuda/narrow.hpp"
#include "transform/cuda/shift_mct.hpp"
#include "transform/cuda/to_samples.hpp"
#include "transform/dwt_engine.hpp"
#include "transform/queue.hpp"

namespace j2k {
namespace {

constexpr size_t kAlign = 256;
size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

char* at(const Plane& p) { return static_cast<char*>(p.base) + p.offset; }

// Hands out consecutive planes of one tile from a reserved buffer, component 0 first.
class Slicer {
 public:
  Plane next(void* base, size_t capacity, int component, j2k_sample_type type, int64_t w, int64_t h,
             j2k_memory memory) {
    if (component == 0) cursor_ = 0;
    const size_t size = j2k_sample_size(type);
    const size_t bytes = static_cast<size_t>(w * h) * size;
    if (cursor_ + bytes > capacity)
      throw Error(ErrorCode::Internal, "cuda queue: a plane does not fit the reserved buffer");
    Plane p;
    p.base = base;
    p.offset = cursor_;
    p.type = type;
    p.pixel_stride = static_cast<ptrdiff_t>(size);
    p.row_stride = static_cast<ptrdiff_t>(w * static_cast<int64_t>(size));
    p.width = w;
    p.height = h;
    p.memory = memory;
    cursor_ += align_up(bytes);
    return p;
  }

 private:
  size_t cursor_ = 0;
};

class CudaQueue final : public Queue {
 public:
  CudaQueue(int device, int threads, const CudaDwtOptions& kernels)
      : device_(device), threads_(threads), kernels_(kernels) {
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    cudaDeviceProp prop{};
    cuda_check(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    cuda_check(cuda_kernel_image_check(), "cudaFuncGetAttributes");
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    cuda_check(cudaStreamCreateWithFlags(&down_, cudaStreamNonBlocking), "cudaStreamCreate");
    cuda_check(cudaEventCreateWithFlags(&stream_done_, cudaEventDisableTiming), "cudaEventCreate");
    cuda_check(cudaEventCreateWithFlags(&down_done_, cudaEventDisableTiming), "cudaEventCreate");
    cuda_check(cudaEventCreateWithFlags(&staged_, cudaEventDisableTiming), "cudaEventCreate");
    for (cudaEvent_t& e : marks_) cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    cuda_check(cudaEventCreateWithFlags(&caller_, cudaEventDisableTiming), "cudaEventCreate");
    name_ = std::string("cuda (device ") + std::to_string(device_) + ": " + prop.name + ", sm_" +
            std::to_string(prop.major) + std::to_string(prop.minor) + ")";
  }
  ~CudaQueue() override {
    cudaSetDevice(device_);
    if (stream_) cudaStreamSynchronize(stream_);
    if (down_) cudaStreamSynchronize(down_);
    forget_spans();
    if (staged_) cudaEventDestroy(staged_);
    for (cudaEvent_t e : marks_)
      if (e) cudaEventDestroy(e);
    if (caller_) cudaEventDestroy(caller_);
    if (stream_done_) cudaEventDestroy(stream_done_);
    if (down_done_) cudaEventDestroy(down_done_);
    if (down_) cudaStreamDestroy(down_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  Backend kind() const override { return Backend::Cuda; }
  std::string description() const override { return name_; }
  bool asynchronous() const override { return true; }
  bool reads(j2k_memory where) const override { return where == J2K_MEMORY_DEVICE; }
  bool in_place() const override { return false; }
  void to_samples(const std::vector<Plane>& in, const TileOutput& out) override {
    use_device();
    after_downloads();
    cuda::to_samples(in, out, stream_);
  }

  void reserve(const QueueNeeds& n) override {
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    staging_d_.get(n.staging_bytes);
    staging_h_.get(n.staging_bytes);
    work_.get(n.work_bytes);
    output_.get(n.output_bytes);
    workspace_.get(n.dwt_workspace);
    flag_d_.get(sizeof(int));
    by_rows_.reserve(static_cast<size_t>(n.components));
    rows_jobs_.reserve(static_cast<size_t>(n.components));
    final_.reserve(8);
    flag_h_.get(sizeof(int) * (kFrameSlots + 1));
    std::memset(flag_h_.data(), 0, flag_h_.size());
    cuda_check(cudaMemsetAsync(flag_d_.data(), 0, sizeof(int), stream_), "cudaMemsetAsync");
  }

  j2k_memory_report memory_held() const override {
    j2k_memory_report r{};
    r.device = staging_d_.size() + work_.size() + output_.size() + workspace_.size() + flag_d_.size();
    r.pinned = staging_h_.size() + flag_h_.size();
    return r;
  }

  Plane staging(int c, j2k_sample_type type, int64_t w, int64_t h) override {
    return staging_slices_.next(staging_d_.data(), staging_d_.size(), c, type, w, h, J2K_MEMORY_DEVICE);
  }
  Plane work(int c, j2k_sample_type type, int64_t w, int64_t h) override {
    return work_slices_.next(work_.data(), work_.size(), c, type, w, h, J2K_MEMORY_DEVICE);
  }
  Plane output(int c, j2k_sample_type type, int64_t w, int64_t h) override {
    return output_slices_.next(output_.data(), output_.size(), c, type, w, h, J2K_MEMORY_DEVICE);
  }

  void* allocate(size_t bytes, j2k_memory& where) override {
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    if (where == J2K_MEMORY_DEVICE) return cuda_allocate<DeviceMemory>(bytes);
    if (where == J2K_MEMORY_HOST) {
      // Downloads into page-locked memory run at the link's speed; where the system cannot lock
      // that much (an image larger than is wise to pin), pageable memory still works.
      try {
        void* p = cuda_allocate<PinnedMemory>(bytes);
        where = J2K_MEMORY_PINNED;
        return p;
      } catch (const Error& e) {
        if (e.code() != ErrorCode::OutOfMemory) throw;
        return allocate_host_coefficients(bytes, where, "cuda");
      }
    }
    return cuda_allocate<PinnedMemory>(bytes);
  }
  void release(void* p, j2k_memory where) noexcept override {
    if (where == J2K_MEMORY_DEVICE) cudaFree(p);
    else if (where == J2K_MEMORY_PINNED) cudaFreeHost(p);
    else std::free(p);
  }

  size_t dwt_workspace_bytes(Wavelet wavelet, const Rect& tc, int levels) const override {
    return cuda_dwt_workspace_bytes(wavelet, tc, levels);
  }

  void upload(const Plane& src, const Plane& dst) override {
    use_device();
    const size_t row = static_cast<size_t>(dst.width) * j2k_sample_size(dst.type);
    if (row == 0 || dst.height == 0) return;
    send_held();  // a held download joins only downloads that follow it directly
    // Page-locked rows of packed samples: the copy engine reads them directly. So do packed
    // rows for a plane outside the staging buffer (the decoder's coefficients), which has no
    // pinned mirror; from pageable memory CUDA stages them itself.
    const bool outside = dst.base != staging_d_.data();
    if ((src.memory == J2K_MEMORY_PINNED || outside) && src.pixel_stride == dst.pixel_stride) {
      cuda_check(cudaMemcpy2DAsync(at(dst), static_cast<size_t>(dst.row_stride), at(src),
                                   static_cast<size_t>(src.row_stride), row,
                                   static_cast<size_t>(dst.height), cudaMemcpyHostToDevice, stream_),
                 "cudaMemcpy2DAsync");
      return;
    }
    // Pageable (or interleaved) samples: host threads pack them into the pinned mirror of the
    // staging buffer, once the previous upload from it has left.
    if (outside) throw Error(ErrorCode::Internal, "cuda queue: interleaved samples go up into staging planes only");
    cuda_check(cudaEventSynchronize(staged_), "cudaEventSynchronize");
    char* pinned = static_cast<char*>(staging_h_.data()) + dst.offset;
    const size_t size = j2k_sample_size(dst.type);
    parallel_for(static_cast<ptrdiff_t>(dst.height), copy_threads(row * static_cast<size_t>(dst.height), threads_),
                 [&](ptrdiff_t y) {
      pack_row(reinterpret_cast<unsigned char*>(pinned + y * dst.row_stride),
               reinterpret_cast<const unsigned char*>(at(src) + y * src.row_stride), dst.width, size,
               src.pixel_stride);
    });
    cuda_check(cudaMemcpyAsync(at(dst), pinned, static_cast<size_t>(dst.row_stride * dst.height),
                               cudaMemcpyHostToDevice, stream_),
               "cudaMemcpyAsync");
    cuda_check(cudaEventRecord(staged_, stream_), "cudaEventRecord");
  }

  void shift_mct(const TileSamples& tile, Wavelet wavelet, const std::vector<Plane>& out) override {
    use_device();
    after_downloads();
    cuda::shift_mct(tile, wavelet, out, static_cast<int*>(flag_d_.data()), stream_);
  }

  void dwt(j2k_direction direction, Wavelet wavelet, const Plane& src, const Plane& dst,
           const Rect& tc, int levels, const constants::Inverse97Scale& scale) override {
    if (tc.empty()) return;
    use_device();
    after_downloads();
    CudaDwtOptions kernels = kernels_;
    kernels.inverse97 = scale;
    cuda_dwt(direction, wavelet, DevicePlane{at(src), src.type, src.row_stride}, 0,
             DevicePlane{at(dst), dst.type, dst.row_stride}, tc, levels, workspace_.data(),
             workspace_.size(), stream_, kernels);
  }

  // Int16 planes go where the component's work plane was: consumed by its (out-of-place)
  // DWT, and at least twice their size.
  Plane narrow_plane(int c, int64_t w, int64_t h) override {
    return narrow_slices_.next(work_.data(), work_.size(), c, J2K_SAMPLE_I16, w, h, J2K_MEMORY_DEVICE);
  }
  void narrow(const Plane& src, const Plane& dst) override {
    use_device();
    after_downloads();
    cuda::narrow(src, dst, stream_);
  }

  bool fuses_shift() const override { return true; }
  void dwt_from_samples(Wavelet wavelet, const TileSamples& tile, int component, const Plane& dst, const Rect& tc,
                        int levels) override {
    if (tc.empty()) return;
    use_device();
    after_downloads();
    cuda_dwt_from_samples(wavelet, device_samples(tile, component), DevicePlane{at(dst), dst.type, dst.row_stride},
                          tc, levels, workspace_.data(), workspace_.size(), stream_, kernels_);
  }

  bool by_rows() const override { return true; }
  // The first level's launches go on the stream as the stripes arrive; whatever they finish is
  // copied home on down_, after an event.
  void rows_begin(Wavelet wavelet, const TileSamples& tile, const std::vector<RowsJob>& jobs, int64_t t,
                  uint64_t frame) override {
    use_device();
    after_downloads();
    by_rows_.clear();
    rows_jobs_.assign(jobs.begin(), jobs.end());
    for (size_t c = 0; c < jobs.size(); ++c) {
      const RowsJob& j = jobs[c];
      // A workspace per component: all first levels run before any component's other levels.
      by_rows_.emplace_back(wavelet, device_samples(tile, static_cast<int>(c)),
                            DevicePlane{at(j.out), j.out.type, j.out.row_stride}, j.rect, j.levels, at(j.scratch),
                            static_cast<size_t>(j.scratch.row_stride * j.scratch.height), kernels_);
    }
    if (tracing_) open_download_span(t, frame);
  }
  void rows_ready(int64_t rows) override {
    use_device();
    for (size_t c = 0; c < by_rows_.size(); ++c) {
      by_rows_[c].advance(rows, stream_, final_);
      send_final(c);
    }
  }
  void rows_end() override {
    use_device();
    for (size_t c = 0; c < by_rows_.size(); ++c) {
      by_rows_[c].finish(stream_, final_);
      send_final(c);
    }
    close_download_span();
  }

  // On down_, once the work enqueued so far on the stream is done. Tracing: between
  // span_begin(DOWNLOAD) and span_end(), as one span timed on down_.
  void download(const Plane& src, const Plane& dst) override {
    use_device();
    const size_t row = static_cast<size_t>(src.width) * j2k_sample_size(src.type);
    if (row == 0 || src.height == 0) return;
    // Packed planes that continue the previous download on both sides (a tile's components in
    // the plan's buffers) join it: one copy of 6 MB crosses the link faster than three of 2.
    const bool packed = src.row_stride == static_cast<ptrdiff_t>(row) && dst.row_stride == static_cast<ptrdiff_t>(row);
    const size_t bytes = row * static_cast<size_t>(src.height);
    if (packed && held_.bytes > 0 && held_.src + held_.bytes == at(src) && held_.dst + held_.bytes == at(dst)) {
      held_.bytes += bytes;
      return;
    }
    send_held();
    downloads_follow_stream();
    if (packed) {
      held_ = HeldCopy{at(dst), at(src), bytes};
      return;
    }
    cuda_check(cudaMemcpy2DAsync(at(dst), static_cast<size_t>(dst.row_stride), at(src),
                                 static_cast<size_t>(src.row_stride), row,
                                 static_cast<size_t>(src.height), cudaMemcpyDeviceToHost, down_),
               "cudaMemcpy2DAsync");
    downloads_pending_ = true;
  }

  // The range flag of the work since the last mark goes to the slot's pinned word, the flag is
  // cleared for the next frame, and the slot's event follows them.
  void mark(int slot) override {
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    after_downloads();
    auto* flags = static_cast<int*>(flag_h_.data());
    if (flags) {
      cuda_check(cudaMemcpyAsync(flags + slot, flag_d_.data(), sizeof(int), cudaMemcpyDeviceToHost, stream_),
                 "cudaMemcpyAsync");
      cuda_check(cudaMemsetAsync(flag_d_.data(), 0, sizeof(int), stream_), "cudaMemsetAsync");
    }
    cuda_check(cudaEventRecord(marks_[slot], stream_), "cudaEventRecord");
  }

  void after(void* stream) override {
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    send_held();
    cuda_check(cudaEventRecord(caller_, static_cast<cudaStream_t>(stream)), "cudaEventRecord");
    cuda_check(cudaStreamWaitEvent(stream_, caller_, 0), "cudaStreamWaitEvent");
  }
  void signal(int slot, void* stream) override {
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    cuda_check(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), marks_[slot], 0), "cudaStreamWaitEvent");
  }
  void on_stream(const std::function<void(void*)>& work) override {
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    send_held();  // as upload(): a held download joins only downloads that follow it directly
    work(stream_);
  }

  void wait(int slot) override {
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    cuda_check(cudaEventSynchronize(marks_[slot]), "cudaEventSynchronize");
    auto* flags = static_cast<int*>(flag_h_.data());
    if (flags && flags[slot]) {
      flags[slot] = 0;
      throw sample_out_of_range();
    }
  }

  void trace(bool on) override {
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    forget_spans();
    tracing_ = on;
    if (!on) return;
    // Every queue of a plan starts its clock on an idle stream at the same moment (within
    // microseconds), so spans of different queues share one time axis.
    cuda_check(cudaEventCreate(&origin_), "cudaEventCreate");
    cuda_check(cudaEventRecord(origin_, stream_), "cudaEventRecord");
  }
  void span_begin(j2k_stage stage, int64_t tile, uint64_t frame) override {
    if (!tracing_) return;
    if (stage == J2K_STAGE_DOWNLOAD) {
      open_download_span(tile, frame);
      download_span_ends_ = true;
      return;
    }
    // A whole tile's transform starts once the downloads that read its buffers are done (it
    // would wait for them anyway): its span is its own work. (A tile by rows has its download
    // span open, and its transform overlaps its own downloads.)
    if (stage == J2K_STAGE_TRANSFORM && download_span_.frame == kNoSpan) after_downloads();
    Timed t{stage, tile, frame, nullptr, nullptr};
    cuda_check(cudaEventCreate(&t.begin), "cudaEventCreate");
    timed_.push_back(t);
    cuda_check(cudaEventRecord(t.begin, stream_), "cudaEventRecord");
  }
  void span_end() override {  // the download span that span_begin opened, else the newest open one
    if (!tracing_) return;
    if (download_span_ends_) {
      close_download_span();
      return;
    }
    for (auto it = timed_.rbegin(); it != timed_.rend(); ++it) {
      if (it->end) continue;
      cuda_check(cudaEventCreate(&it->end), "cudaEventCreate");
      cuda_check(cudaEventRecord(it->end, stream_), "cudaEventRecord");
      return;
    }
  }
  void spans(int queue, std::vector<j2k_span>& out) const override {
    for (const Timed& t : timed_) {
      if (!t.end) continue;
      j2k_span s{};
      s.queue = queue;
      s.frame = t.frame;
      s.tile = t.tile;
      s.stage = t.stage;
      float b = 0, e = 0;
      cuda_check(cudaEventElapsedTime(&b, origin_, t.begin), "cudaEventElapsedTime");
      cuda_check(cudaEventElapsedTime(&e, origin_, t.end), "cudaEventElapsedTime");
      s.begin_ms = b;
      s.end_ms = e;
      out.push_back(s);
    }
  }

 private:
  DeviceSamples device_samples(const TileSamples& tile, int component) const {
    const auto c = static_cast<size_t>(component);
    const Plane& p = tile.in[c];
    DeviceSamples in;
    in.type = p.type;
    in.row_stride = p.row_stride;
    in.pixel_stride = p.pixel_stride;
    if (tile.mct && component < 3) {
      for (size_t i = 0; i < 3; ++i) {
        in.data[i] = at(tile.in[i]);
        in.dc[i] = tile.offset[i];
      }
      in.component = component;
    } else {
      in.data[0] = at(p);
      in.dc[0] = tile.offset[c];
    }
    return in;
  }
  // Copies the regions in final_, of component c, home on down_ once the work enqueued so far
  // on the stream is done (for int16 output, their narrowing into the job's I16 plane).
  void send_final(size_t c) {
    if (final_.empty()) return;
    const RowsJob& j = rows_jobs_[c];
    if (j.narrow.base)
      for (const Rect& r : final_) cuda::narrow(region(j.out, r), region(j.narrow, r), stream_);
    downloads_follow_stream();
    const Plane& from = j.narrow.base ? j.narrow : j.out;
    const auto e = static_cast<int64_t>(j2k_sample_size(from.type));
    for (const Rect& r : final_) {
      const char* src = at(from) + r.y0 * from.row_stride + r.x0 * e;
      char* dst = at(j.home) + r.y0 * j.home.row_stride + r.x0 * e;
      cuda_check(cudaMemcpy2DAsync(dst, static_cast<size_t>(j.home.row_stride), src,
                                   static_cast<size_t>(from.row_stride), static_cast<size_t>(r.width() * e),
                                   static_cast<size_t>(r.height()), cudaMemcpyDeviceToHost, down_),
                 "cudaMemcpy2DAsync");
    }
    final_.clear();
    downloads_pending_ = true;
  }
  // down_ waits for the work enqueued so far on the stream (and, for a span opened by
  // span_begin(DOWNLOAD), its begin is recorded there: when the first of its copies can start).
  void downloads_follow_stream() {
    cuda_check(cudaEventRecord(stream_done_, stream_), "cudaEventRecord");
    cuda_check(cudaStreamWaitEvent(down_, stream_done_, 0), "cudaStreamWaitEvent");
    if (download_span_.frame != kNoSpan && !download_span_.begin) {
      cuda_check(cudaEventCreate(&download_span_.begin), "cudaEventCreate");
      cuda_check(cudaEventRecord(download_span_.begin, down_), "cudaEventRecord");
    }
  }
  // A download that download() held back for the next one to join, on down_.
  // Kernels and copies go to the calling thread's current device, which a frame lane's thread
  // (or the caller's) may have left on another GPU of the host: each method that enqueues work
  // makes the queue's device current first.
  void use_device() const { cuda_check(cudaSetDevice(device_), "cudaSetDevice"); }
  void send_held() {
    if (held_.bytes == 0) return;
    cuda_check(cudaMemcpyAsync(held_.dst, held_.src, held_.bytes, cudaMemcpyDeviceToHost, down_), "cudaMemcpyAsync");
    held_.bytes = 0;
    downloads_pending_ = true;
  }
  // The stream waits for the downloads enqueued so far: before it writes buffers that they
  // read, and before a mark (a frame's end includes its downloads).
  void after_downloads() {
    send_held();
    if (!downloads_pending_) return;
    cuda_check(cudaEventRecord(down_done_, down_), "cudaEventRecord");
    cuda_check(cudaStreamWaitEvent(stream_, down_done_, 0), "cudaStreamWaitEvent");
    downloads_pending_ = false;
  }
  void open_download_span(int64_t tile, uint64_t frame) {
    download_span_ = Timed{J2K_STAGE_DOWNLOAD, tile, frame, nullptr, nullptr};
  }
  void close_download_span() {
    send_held();
    if (download_span_.begin) {
      cuda_check(cudaEventCreate(&download_span_.end), "cudaEventCreate");
      cuda_check(cudaEventRecord(download_span_.end, down_), "cudaEventRecord");
      timed_.push_back(download_span_);
    }
    download_span_ = Timed{J2K_STAGE_DOWNLOAD, 0, kNoSpan, nullptr, nullptr};
    download_span_ends_ = false;
  }
  static Plane region(Plane p, const Rect& r) {
    p.offset += static_cast<size_t>(r.y0 * p.row_stride + r.x0 * p.pixel_stride);
    p.width = r.width();
    p.height = r.height();
    return p;
  }
  struct Timed {
    j2k_stage stage;
    int64_t tile;
    uint64_t frame;
    cudaEvent_t begin, end;
  };
  void forget_spans() noexcept {
    for (const Timed& t : timed_) {
      cudaEventDestroy(t.begin);
      if (t.end) cudaEventDestroy(t.end);
    }
    timed_.clear();
    if (download_span_.begin) cudaEventDestroy(download_span_.begin);
    download_span_ = Timed{J2K_STAGE_DOWNLOAD, 0, kNoSpan, nullptr, nullptr};
    download_span_ends_ = false;
    if (origin_) cudaEventDestroy(origin_);
    origin_ = nullptr;
  }

  int device_;
  int threads_;
  CudaDwtOptions kernels_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t staged_ = nullptr;  // the last upload from the pinned staging buffer has left
  cudaEvent_t marks_[kFrameSlots + 1] = {};  // the end of each frame slot's work
  cudaEvent_t caller_ = nullptr;  // a point in a caller's stream that the next work waits for
  // Downloads go on down_ after stream_done_; down_done_ ends them for the stream, which waits
  // for it (after_downloads) while downloads_pending_.
  cudaStream_t down_ = nullptr;
  cudaEvent_t stream_done_ = nullptr, down_done_ = nullptr;
  bool downloads_pending_ = false;
  struct HeldCopy {
    char* dst = nullptr;
    const char* src = nullptr;
    size_t bytes = 0;
  } held_;  // a packed download not on down_ yet (send_held)
  std::vector<CudaForwardByRows> by_rows_;
  std::vector<RowsJob> rows_jobs_;
  std::vector<Rect> final_;
  std::string name_;
  DeviceBuffer staging_d_, work_, output_, workspace_, flag_d_;
  PinnedBuffer staging_h_, flag_h_;
  Slicer staging_slices_, work_slices_, output_slices_, narrow_slices_;
  bool tracing_ = false;
  cudaEvent_t origin_ = nullptr;
  std::vector<Timed> timed_;
  static constexpr uint64_t kNoSpan = ~uint64_t{0};
  // The open download span (frame kNoSpan: none), timed on down_; closed by span_end() where
  // span_begin(DOWNLOAD) opened it, else by rows_end().
  Timed download_span_{J2K_STAGE_DOWNLOAD, 0, kNoSpan, nullptr, nullptr};
  bool download_span_ends_ = false;
};

}  // namespace

std::unique_ptr<Queue> make_cuda_queue(const BackendOptions& options) {
  std::string why;
  if (!cuda_available(&why))
    throw Error(ErrorCode::BackendUnavailable, "backend 'cuda' is not available: " + why);
  int count = 0;
  cuda_check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  const int device = options.device < 0 ? 0 : options.device;
  if (device >= count)
    throw Error(ErrorCode::InvalidArgument, "CUDA device " + std::to_string(device) + " does not exist (" +
                                                std::to_string(count) + " found)");
  CudaDwtOptions kernels;
  kernels.fuse_97 = options.cuda_fuse_97;
  kernels.fuse_inverse = options.cuda_fuse_inverse;
  return std::make_unique<CudaQueue>(device, options.threads, kernels);
}

}  // namespace j2k
