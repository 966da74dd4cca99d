// SPDX-License-Identifier: BSD-2-Clause
// The stage interface of a backend: the front stage's four steps as operations on a queue
// (a CUDA stream, an OpenCL command queue, or the calling thread's pool on the CPU), on
// buffers in the queue's own memory, so that coefficients can stay where they were made.
//
//   upload     samples of one tile-component, host -> queue memory, at their own width
//   shift_mct  DC level shift and RCT/ICT on one tile's components -> int32 / float32 planes
//   dwt        the multi-level DWT of one tile-component, plane -> plane
//   download   coefficients, queue memory -> host
//
// The decoder's back stage runs the same queue the other way: upload of coefficients, the
// inverse dwt, to_samples (inverse RCT/ICT, DC shift, clamp, at the samples' width), download.
//
// Operations are asynchronous on GPU queues and run in order. Frames in flight are told apart
// by marks: mark(slot) closes what has been enqueued since the previous mark as frame slot
// `slot`, wait(slot) blocks until that work is done and reports a sample outside its declared
// precision that shift_mct saw in it; finish() marks and waits for everything. A queue
// allocates only in reserve(); the plan sizes it once for the largest tile.
// Each backend implements this in transform/<backend>/queue.cpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "j2kfront/j2kfront.h"
#include "tiling/canvas.hpp"
#include "transform/common/constants.hpp"
#include "transform/backend.hpp"

namespace j2k {

// A 2-D array: element (x, y) at byte offset + y * row_stride + x * pixel_stride of `base`.
// `base` is a host or CUDA device pointer, or an OpenCL cl_mem: only the queue that made a
// buffer does arithmetic on it, through the offset.
struct Plane {
  void* base = nullptr;
  size_t offset = 0;
  j2k_sample_type type = J2K_SAMPLE_I32;
  ptrdiff_t row_stride = 0, pixel_stride = 0;
  int64_t width = 0, height = 0;
  j2k_memory memory = J2K_MEMORY_HOST;
};

// What a plan asks a queue to hold for its largest tile.
struct QueueNeeds {
  size_t staging_bytes = 0;   // narrow samples of one tile (all components), for upload()
  size_t work_bytes = 0;      // int32/float planes of one tile (all components)
  size_t output_bytes = 0;    // coefficients in queue memory for one tile (when they go home)
  size_t dwt_workspace = 0;   // from dwt_workspace_bytes() of the largest tile-component
  size_t max_plane_bytes = 0; // the largest tile-component's coefficients
  size_t narrow_bytes = 0;    // int16 planes of one tile (all components), for int16 output
  int components = 0;
};

// One tile's components for shift_mct: each input plane, its DC offset and the range that
// its samples must respect (the component's precision and signedness).
struct TileSamples {
  std::vector<Plane> in;        // per component: the tile-component's samples
  std::vector<int32_t> offset;  // per component: 1 << (precision - 1), or 0 when signed
  std::vector<int64_t> lo, hi;  // per component: valid samples lie in [lo, hi]
  std::vector<uint8_t> fused;   // per component: shift_mct skips it (its DWT reads the samples, fuses_shift())
  bool mct = false;             // RCT (5/3) / ICT (9/7) on components 0..2
};

// One tile's components for to_samples, the decoder's mirror of TileSamples: where each
// component's samples go and the range of its precision and signedness.
struct TileOutput {
  std::vector<Plane> out;       // per component: U8 / I8 / U16 / I16 / U32 / I32 samples, in queue memory
  std::vector<int32_t> offset;  // per component: the DC offset added back (0 when signed)
  std::vector<int32_t> lo, hi;  // per component: samples are clamped into [lo, hi]
  bool mct = false;             // inverse RCT (I32 planes) / ICT (F32) on components 0..2
};

class Queue {
 public:
  virtual ~Queue() = default;
  virtual Backend kind() const = 0;
  virtual std::string description() const = 0;

  // Whether operations return before the work is done (GPU queues): then several queues in
  // a plan keep several tiles in flight.
  virtual bool asynchronous() const = 0;
  // Whether shift_mct can read samples that sit in `where` without an upload.
  virtual bool reads(j2k_memory where) const = 0;

  // Allocates the queue's buffers for tiles up to `needs`; the only allocating call.
  virtual void reserve(const QueueNeeds& needs) = 0;
  virtual j2k_memory_report memory_held() const = 0;
  // Planes in the reserved buffers, in queue memory (packed rows).
  virtual Plane staging(int component, j2k_sample_type type, int64_t width, int64_t height) = 0;
  virtual Plane work(int component, j2k_sample_type type, int64_t width, int64_t height) = 0;
  virtual Plane output(int component, j2k_sample_type type, int64_t width, int64_t height) = 0;
  // Memory for a plan's own coefficients. HOST may come back as PINNED where the backend
  // downloads faster into page-locked memory; DEVICE only where the backend has it.
  virtual void* allocate(size_t bytes, j2k_memory& where) = 0;
  virtual void release(void* p, j2k_memory where) noexcept = 0;
  // Bytes of DWT workspace a tile-component needs on this backend.
  virtual size_t dwt_workspace_bytes(Wavelet wavelet, const Rect& tc, int levels) const = 0;

  virtual void upload(const Plane& host, const Plane& dst) = 0;
  virtual void shift_mct(const TileSamples& tile, Wavelet wavelet, const std::vector<Plane>& out) = 0;
  // src and dst may be the same plane (in place) on backends that allow it (in_place()).
  // `scale`: how the inverse 9/7 scales, the standard's or OpenJPEG's decoder's (the
  // decoder's, for OpenJPEG's images bit for bit); ignored by the other transforms.
  virtual void dwt(j2k_direction direction, Wavelet wavelet, const Plane& src, const Plane& dst,
                   const Rect& tc, int levels, const constants::Inverse97Scale& scale) = 0;
  virtual bool in_place() const = 0;
  // The decoder's last step: for each component, in[c] (the inverse DWT's I32 / F32 plane,
  // the size of out.out[c]) through the inverse RCT / ICT when out.mct (components 0..2),
  // plus the DC offset, clamped to [lo, hi] (F32: rounded to nearest, ties to even, first),
  // written at the output's type. `in` is left as it is. The same arithmetic as OpenJPEG's
  // decoder on every backend (transform/cpu/to_samples.hpp).
  virtual void to_samples(const std::vector<Plane>& in, const TileOutput& out) = 0;
  // Backends whose forward DWT can read unsigned 8/16-bit samples where they lie (packed or
  // interleaved) and do the front stage's per-sample work as it loads them (the first level's
  // read): subtract the DC offset and, for components 0..2 of an MCT tile, apply the RCT/ICT.
  // Components that need no range check then skip shift_mct (TileSamples::fused; the plan
  // fuses components 0..2 of an MCT tile together or not at all).
  virtual bool fuses_shift() const { return false; }
  virtual void dwt_from_samples(Wavelet wavelet, const TileSamples& tile, int component, const Plane& dst,
                                const Rect& tc, int levels) {
    (void)wavelet, (void)tile, (void)component, (void)dst, (void)tc, (void)levels;
    throw Error(ErrorCode::Internal, "this backend does not fuse the DC shift into its DWT");
  }
  // A tile in row stripes (CUDA): its samples go up, its first DWT level runs and its finished
  // coefficients go home stripe by stripe, the downloads on a second stream, so that one tile
  // alone keeps both directions of the link busy. For tiles whose components are all fused
  // and go home from queue memory: rows_begin(), then upload() of each stripe's rows followed
  // by rows_ready(rows uploaded so far, in every component), then rows_end() (the other
  // levels, the last downloads). Tracing records the downloads as one span of their own.
  struct RowsJob {
    Plane out, home;  // the component's DWT output (queue memory) and where it goes (host)
    Plane scratch;    // queue memory of its own, at least dwt_workspace_bytes(), for its DWT
    Plane narrow;     // int16 output: an I16 plane in queue memory of its own, where each
                      // finished region is narrowed before it goes home; base null: none
    Rect rect;
    int levels = 0;
  };
  virtual bool by_rows() const { return false; }
  virtual void rows_begin(Wavelet wavelet, const TileSamples& tile, const std::vector<RowsJob>& jobs, int64_t t,
                          uint64_t frame) {
    (void)wavelet, (void)tile, (void)jobs, (void)t, (void)frame;
    throw Error(ErrorCode::Internal, "this backend does not transform tiles by rows");
  }
  virtual void rows_ready(int64_t rows) { (void)rows; }
  virtual void rows_end() {}

  // Int16 output of the 5/3: narrow() copies int32 coefficients (known to fit) into an I16
  // plane, the home where the queue can write it, else narrow_plane(): a plane in queue
  // memory that is free once the component's DWT has run.
  virtual Plane narrow_plane(int component, int64_t width, int64_t height) = 0;
  virtual void narrow(const Plane& src, const Plane& dst) = 0;
  virtual void download(const Plane& src, const Plane& host) = 0;

  // Slots 0..kFrameSlots-1 are the plan's frames in flight; one more is finish()'s own.
  static constexpr int kFrameSlots = 8;
  virtual void mark(int slot) = 0;
  // Throws Error(InvalidArgument) when a sample of the slot's work was out of range, and
  // whatever the device reported; either way the slot is free again.
  virtual void wait(int slot) = 0;
  void finish() {
    mark(kFrameSlots);
    wait(kFrameSlots);
  }

  // Ordering against the caller's CUDA streams (a cudaStream_t; nullptr: the legacy default
  // stream), without blocking the host: after(stream) makes the work enqueued next wait for
  // what `stream` holds now; signal(slot, stream) makes `stream` wait for the slot's work.
  // Backends without CUDA streams throw Error(InvalidArgument).
  virtual void after(void* stream) = 0;
  virtual void signal(int slot, void* stream) = 0;
  // Work of the caller's own in the queue's order (CUDA, OpenCL): runs `work` at once, passing
  // the queue's stream (CUDA: a cudaStream_t, with the queue's device current; OpenCL: its
  // in-order cl_command_queue), so that the kernels and copies `work` enqueues there run after
  // the operations enqueued before and before those after (the decoder's Tier-1 on the GPU
  // writes a tile's coefficients so). The CPU's queue throws Error(InvalidArgument).
  virtual void on_stream(const std::function<void(void* stream)>& work);

  // Tracing, for benchmarks (it allocates events as it goes): trace(true) on an idle queue
  // starts the clock and forgets earlier spans; span_begin/span_end bracket the operations of
  // one stage; spans() reads them back once the work is done. Backends without device timers
  // record nothing.
  virtual void trace(bool on) { (void)on; }
  virtual void span_begin(j2k_stage stage, int64_t tile, uint64_t frame) { (void)stage, (void)tile, (void)frame; }
  virtual void span_end() {}
  virtual void spans(int queue, std::vector<j2k_span>& out) const { (void)queue, (void)out; }
};

// What after() and signal() throw on backends without CUDA streams.
[[noreturn]] inline void no_cuda_streams() {
  throw Error(ErrorCode::InvalidArgument, "ordering against CUDA streams needs the cuda backend");
}

// What wait() throws for a slot that saw a sample outside its component's range.
inline Error sample_out_of_range() {
  return Error(ErrorCode::InvalidArgument,
               "a sample lies outside the range of its component's precision and signedness");
}

// What every backend's to_samples checks first: one plane in and one out per component, I32 or
// F32 in (one of them for components 0..2 of an MCT tile), U8 / I8 / U16 / I16 / U32 / I32 out. Returns
// whether the MCT applies (out.mct and at least three components); throws Error(Internal).
bool check_to_samples(const std::vector<Plane>& in, const TileOutput& out);

// The plan's own coefficients in pageable host memory (64-byte aligned), for the backends that
// keep them there: `where` DEVICE is refused naming `backend`; release with std::free.
void* allocate_host_coefficients(size_t bytes, j2k_memory& where, const char* backend);

// One queue per backend (Auto resolved); each throws naming why it cannot be built.
std::unique_ptr<Queue> make_queue(const BackendOptions& options);
std::unique_ptr<Queue> make_cpu_queue(const BackendOptions& options);
std::unique_ptr<Queue> make_cuda_queue(const BackendOptions& options);
std::unique_ptr<Queue> make_opencl_queue(const BackendOptions& options);

}  // namespace j2k
