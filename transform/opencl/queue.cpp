// SPDX-License-Identifier: BSD-2-Clause
// The OpenCL backend's queue: one command queue, buffers on the device reserved once per plan.
// Samples cross the bus at their own width (packed by host threads into a pinned host staging
// buffer, so that the upload runs at the link's speed and overlaps the host's work);
// shift + MCT (kernels at the end of dwt.cl) and the sliding-window DWT run on the device, in
// place on one buffer per component; coefficients come home with a rectangular read. Only
// wait() (and finish()) waits for the device.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/parallel/parallel_for.hpp"
#include "transform/common/pack_row.hpp"
#include "transform/opencl/opencl_dwt.hpp"
#include "transform/queue.hpp"

namespace j2k {
namespace {

using ocl::check;
using ocl::cl;

constexpr size_t kAlign = 256;
size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
cl_mem mem(const Plane& p) { return static_cast<cl_mem>(p.base); }

class Kernel {
 public:
  Kernel(cl_program program, const char* name) {
    cl_int err = CL_SUCCESS;
    k_ = cl().clCreateKernel(program, name, &err);
    check(err, "clCreateKernel");
  }
  ~Kernel() { cl().clReleaseKernel(k_); }
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  template <class... A>
  void run(cl_command_queue q, int64_t width, int64_t height, const A&... args) {
    cl_uint i = 0;
    (check(cl().clSetKernelArg(k_, i++, sizeof(A), &args), "clSetKernelArg"), ...);
    const size_t local[2] = {16, 8};
    const size_t global[2] = {(static_cast<size_t>(width) + 15) / 16 * 16,
                              (static_cast<size_t>(height) + 7) / 8 * 8};
    check(cl().clEnqueueNDRangeKernel(q, k_, 2, nullptr, global, local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
  }

 private:
  cl_kernel k_ = nullptr;
};

class OpenCLQueue final : public Queue {
 public:
  OpenCLQueue(int device, const std::string& tuning, int threads)
      : runner_(device, tuning),
        threads_(threads),
        shift_i32_(runner_.program(), "shift_i32"),
        shift_f32_(runner_.program(), "shift_f32"),
        rct_(runner_.program(), "rct_forward"),
        ict_(runner_.program(), "ict_forward"),
        narrow_(runner_.program(), "narrow_i16"),
        to_i32_(runner_.program(), "to_samples_i32"),
        to_f32_(runner_.program(), "to_samples_f32"),
        to_rct_(runner_.program(), "to_samples_rct"),
        to_ict_(runner_.program(), "to_samples_ict") {}
  ~OpenCLQueue() override {
    cl().clFinish(runner_.queue());
    if (staged_) cl().clReleaseEvent(staged_);
    for (int i = 0; i <= kFrameSlots; ++i) release_mark(i);
  }

  Backend kind() const override { return Backend::OpenCL; }
  std::string description() const override {
    const ocl::DeviceInfo& d = runner_.device();
    return "opencl (" + d.name + ", " + d.platform_name + ", " + d.version + ")";
  }
  bool asynchronous() const override { return true; }
  bool reads(j2k_memory) const override { return false; }
  bool in_place() const override { return true; }
  void to_samples(const std::vector<Plane>& in, const TileOutput& out) override {
    const size_t n = out.out.size();
    const bool mct = check_to_samples(in, out);
    // The kernels' PLANE_ARGS of component c: its planes, offsets in bytes, strides in
    // elements, the output's type (dwt.cl's numbering), the DC offset and the range.
    struct Args {
      cl_mem in;
      cl_ulong in_offset;
      cl_int in_stride;
      cl_mem out;
      cl_ulong out_offset;
      cl_int out_stride, type, dc, lo, hi;
    };
    auto args = [&](size_t c) {
      const Plane& o = out.out[c];
      cl_int type = 0;
      switch (o.type) {
        case J2K_SAMPLE_U8: type = 0; break;
        case J2K_SAMPLE_I8: type = 1; break;
        case J2K_SAMPLE_U16: type = 2; break;
        case J2K_SAMPLE_I16: type = 3; break;
        case J2K_SAMPLE_U32: type = 4; break;
        case J2K_SAMPLE_I32: type = 5; break;
        default: throw Error(ErrorCode::Internal, "to_samples: output samples must be U8, I8, U16, I16, U32 or I32");
      }
      return Args{mem(in[c]), in[c].offset, static_cast<cl_int>(in[c].row_stride / 4), mem(o), o.offset,
                  static_cast<cl_int>(o.row_stride / static_cast<ptrdiff_t>(j2k_sample_size(o.type))), type,
                  out.offset[c], out.lo[c], out.hi[c]};
    };
    cl_command_queue q = runner_.queue();
    for (size_t c = mct ? 2 : 0; c < n; ++c) {
      const size_t first = mct && c == 2 ? 0 : c;  // components 0..2 in one launch
      const Plane& o = out.out[first];
      if (o.width == 0 || o.height == 0) continue;
      const cl_int w = static_cast<cl_int>(o.width), h = static_cast<cl_int>(o.height);
      const bool f32 = in[first].type == J2K_SAMPLE_F32;
      const Args a = args(first);
      if (first != c) {
        const Args b = args(1), d = args(2);
        (f32 ? to_ict_ : to_rct_)
            .run(q, o.width, o.height, a.in, a.in_offset, a.in_stride, a.out, a.out_offset, a.out_stride, a.type, a.dc,
                 a.lo, a.hi, b.in, b.in_offset, b.in_stride, b.out, b.out_offset, b.out_stride, b.type, b.dc, b.lo, b.hi,
                 d.in, d.in_offset, d.in_stride, d.out, d.out_offset, d.out_stride, d.type, d.dc, d.lo, d.hi, w, h);
      } else {
        (f32 ? to_f32_ : to_i32_)
            .run(q, o.width, o.height, a.in, a.in_offset, a.in_stride, a.out, a.out_offset, a.out_stride, a.type, a.dc,
                 a.lo, a.hi, w, h);
      }
    }
  }

  void reserve(const QueueNeeds& n) override {
    const uint64_t max_alloc = runner_.device().max_alloc;
    if (max_alloc && std::max(n.staging_bytes, n.max_plane_bytes) > max_alloc)
      throw Error(ErrorCode::OutOfMemory,
                  "OpenCL: a tile needs a buffer of " + std::to_string(std::max(n.staging_bytes, n.max_plane_bytes)) +
                      " bytes; " + runner_.device().name + " allows at most " + std::to_string(max_alloc) +
                      " (choose smaller tiles)");
    cl_context ctx = runner_.context();
    if (n.staging_bytes > staging_.bytes()) {
      staging_ = ocl::Buffer(ctx, n.staging_bytes);
      wait_staged();  // the old host staging may still be on its way up
      host_staging_ = ocl::PinnedHost(ctx, runner_.device().id, n.staging_bytes);
    }
    if (n.max_plane_bytes > scratch_.bytes() || planes_.size() < static_cast<size_t>(n.components)) {
      planes_.clear();
      for (int c = 0; c < n.components; ++c) planes_.emplace_back(ctx, std::max<size_t>(n.max_plane_bytes, 4));
      scratch_ = ocl::Buffer(ctx, std::max<size_t>(n.max_plane_bytes, 4));
    }
    if (n.narrow_bytes > narrow_buffer_.bytes()) narrow_buffer_ = ocl::Buffer(ctx, n.narrow_bytes);
    if (!flag_.get()) flag_ = ocl::Buffer(ctx, sizeof(int));
    const int zero = 0;
    check(cl().clEnqueueWriteBuffer(runner_.queue(), flag_.get(), CL_TRUE, 0, sizeof zero, &zero, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
    lvs_.reserve(kMaxLevels);
  }

  j2k_memory_report memory_held() const override {
    j2k_memory_report r{};
    r.host = host_staging_.bytes();
    r.device = staging_.bytes() + scratch_.bytes() + flag_.bytes() + narrow_buffer_.bytes();
    for (const ocl::Buffer& b : planes_) r.device += b.bytes();
    return r;
  }

  Plane staging(int c, j2k_sample_type type, int64_t w, int64_t h) override {
    return next_plane(staging_, cursor_, c, type, w, h);
  }
  Plane work(int, j2k_sample_type, int64_t, int64_t) override {
    throw Error(ErrorCode::Internal, "opencl queue: the DWT runs in place, no work planes");
  }
  Plane output(int c, j2k_sample_type type, int64_t w, int64_t h) override {
    return packed(planes_.at(static_cast<size_t>(c)).get(), type, w, h);
  }

  // DEVICE: one cl_mem of the device's context (the encoder's Tier-1 batch reads it, its base
  // a cl_mem and each plane's offset in bytes); else host memory.
  void* allocate(size_t bytes, j2k_memory& where) override {
    if (where != J2K_MEMORY_DEVICE) return allocate_host_coefficients(bytes, where, "opencl");
    const uint64_t max_alloc = runner_.device().max_alloc;
    if (max_alloc && bytes > max_alloc)
      throw Error(ErrorCode::OutOfMemory, "OpenCL: the image's coefficients on the device need a buffer of " + std::to_string(bytes) +
                                              " bytes; " + runner_.device().name + " allows at most " + std::to_string(max_alloc) +
                                              " (choose smaller tiles, or the cpu backend)");
    cl_int err = CL_SUCCESS;
    cl_mem m = cl().clCreateBuffer(runner_.context(), CL_MEM_READ_WRITE, std::max<size_t>(bytes, 4), nullptr, &err);
    check(err, "clCreateBuffer");
    return m;
  }
  // The decoder's Tier-1 writes a tile's coefficients on this (in-order) queue.
  void on_stream(const std::function<void(void*)>& work) override { work(runner_.queue()); }
  void release(void* p, j2k_memory where) noexcept override {
    if (where == J2K_MEMORY_DEVICE) {
      if (p) cl().clReleaseMemObject(static_cast<cl_mem>(p));
    } else {
      std::free(p);
    }
  }
  size_t dwt_workspace_bytes(Wavelet, const Rect&, int) const override { return 0; }

  void upload(const Plane& src, const Plane& dst) override {
    const size_t size = j2k_sample_size(dst.type);
    const size_t row = static_cast<size_t>(dst.width) * size;
    if (row == 0 || dst.height == 0) return;
    wait_staged();
    // Packed through the host staging at the plane's offset (the decoder's coefficient planes,
    // each in a buffer of its own, at offset 0: the plan reserves staging for the largest).
    if (dst.offset + row * static_cast<size_t>(dst.height) > host_staging_.bytes())
      throw Error(ErrorCode::Internal, "opencl queue: an upload larger than the reserved staging");
    unsigned char* host = host_staging_.data() + dst.offset;
    const auto* base = static_cast<const unsigned char*>(src.base) + src.offset;
    parallel_for(static_cast<ptrdiff_t>(dst.height), copy_threads(row * static_cast<size_t>(dst.height), threads_),
                 [&](ptrdiff_t y) {
      pack_row(host + static_cast<size_t>(y) * row, base + y * src.row_stride, dst.width, size, src.pixel_stride);
    });
    check(cl().clEnqueueWriteBuffer(runner_.queue(), mem(dst), CL_FALSE, dst.offset, row * static_cast<size_t>(dst.height),
                               host, 0, nullptr, &staged_),
          "clEnqueueWriteBuffer");
  }

  void shift_mct(const TileSamples& tile, Wavelet wavelet, const std::vector<Plane>& out) override {
    cl_command_queue q = runner_.queue();
    const bool rev = wavelet == Wavelet::Reversible53;
    for (size_t c = 0; c < tile.in.size(); ++c) {
      const Plane& in = tile.in[c];
      if (in.width == 0 || in.height == 0) continue;
      const cl_long lo = tile.lo[c], hi = tile.hi[c];
      const cl_ulong offset = in.offset;
      const cl_int type = in.type, w = static_cast<cl_int>(in.width), h = static_cast<cl_int>(in.height);
      const auto size = static_cast<ptrdiff_t>(j2k_sample_size(in.type));
      const cl_long row_pitch = in.row_stride / size;
      const cl_int pixel_pitch = static_cast<cl_int>(in.pixel_stride / size);
      const cl_int dc = tile.offset[c], stride = static_cast<cl_int>(out[c].row_stride / 4);
      Kernel& k = rev ? shift_i32_ : shift_f32_;
      k.run(q, in.width, in.height, mem(in), offset, type, w, h, row_pitch, pixel_pitch, dc, lo, hi, mem(out[c]),
            stride, flag_.get());
    }
    if (!tile.mct || out[0].width == 0 || out[0].height == 0) return;
    const cl_int w = static_cast<cl_int>(out[0].width), h = static_cast<cl_int>(out[0].height);
    const cl_int stride = static_cast<cl_int>(out[0].row_stride / 4);
    (rev ? rct_ : ict_).run(q, w, h, mem(out[0]), mem(out[1]), mem(out[2]), w, h, stride);
  }

  void dwt(j2k_direction direction, Wavelet wavelet, const Plane& src, const Plane& dst,
           const Rect& tc, int levels, const constants::Inverse97Scale& scale) override {
    if (src.base != dst.base || src.offset != 0 || dst.offset != 0)
      throw Error(ErrorCode::Internal, "opencl queue: the DWT runs in place on a whole buffer");
    if (tc.empty()) return;
    lvs_.resize(static_cast<size_t>(levels));  // keeps its capacity: no allocation per call
    dwt_levels(tc, levels, lvs_.data());
    runner_.transform(wavelet, direction == J2K_FORWARD, mem(dst), scratch_.get(),
                      static_cast<size_t>(dst.row_stride / 4), lvs_, scale);
  }

  // Int16 planes of one tile, side by side in their own buffer (a tile's downloads follow
  // all its transforms).
  Plane narrow_plane(int c, int64_t w, int64_t h) override {
    return next_plane(narrow_buffer_, narrow_cursor_, c, J2K_SAMPLE_I16, w, h);
  }
  void narrow(const Plane& src, const Plane& dst) override {
    if (src.width == 0 || src.height == 0) return;
    const cl_int w = static_cast<cl_int>(src.width), h = static_cast<cl_int>(src.height);
    const cl_int src_stride = static_cast<cl_int>(src.row_stride / 4), dst_stride = static_cast<cl_int>(dst.row_stride / 2);
    const cl_ulong dst_offset = dst.offset / 2;
    narrow_.run(runner_.queue(), src.width, src.height, mem(src), w, h, src_stride, mem(dst), dst_offset, dst_stride);
  }

  void download(const Plane& src, const Plane& dst) override {
    const size_t row = static_cast<size_t>(src.width) * j2k_sample_size(src.type);
    if (row == 0 || src.height == 0) return;
    const size_t origin[3] = {src.offset, 0, 0}, host_origin[3] = {0, 0, 0};
    const size_t region[3] = {row, static_cast<size_t>(src.height), 1};
    if (dst.memory == J2K_MEMORY_DEVICE) {  // into the plan's cl_mem (allocate()), on the device
      const size_t dst_origin[3] = {dst.offset, 0, 0};
      check(cl().clEnqueueCopyBufferRect(runner_.queue(), mem(src), mem(dst), origin, dst_origin, region,
                                         static_cast<size_t>(src.row_stride), 0, static_cast<size_t>(dst.row_stride), 0, 0,
                                         nullptr, nullptr),
            "clEnqueueCopyBufferRect");
      return;
    }
    check(cl().clEnqueueReadBufferRect(runner_.queue(), mem(src), CL_FALSE, origin, host_origin, region,
                                  static_cast<size_t>(src.row_stride), 0, static_cast<size_t>(dst.row_stride), 0,
                                  static_cast<char*>(dst.base) + dst.offset, 0, nullptr, nullptr),
          "clEnqueueReadBufferRect");
  }

  // The range flag of the work since the last mark is read into the slot's word and cleared
  // for the next frame; the clearing write's event ends the slot (the queue runs in order).
  void mark(int slot) override {
    cl_command_queue q = runner_.queue();
    release_mark(slot);
    if (!flag_.get()) return;
    check(cl().clEnqueueReadBuffer(q, flag_.get(), CL_FALSE, 0, sizeof(int), &slot_flags_[slot], 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
    check(cl().clEnqueueWriteBuffer(q, flag_.get(), CL_FALSE, 0, sizeof kZero, &kZero, 0, nullptr, &marks_[slot]),
          "clEnqueueWriteBuffer");
  }

  void after(void*) override { no_cuda_streams(); }
  void signal(int, void*) override { no_cuda_streams(); }

  void wait(int slot) override {
    if (marks_[slot]) {
      const cl_int err = cl().clWaitForEvents(1, &marks_[slot]);
      release_mark(slot);
      check(err, "clWaitForEvents");
    } else {
      check(cl().clFinish(runner_.queue()), "clFinish");
    }
    if (slot_flags_[slot]) {
      slot_flags_[slot] = 0;
      throw sample_out_of_range();
    }
  }

 private:
  static constexpr int kZero = 0;
  void release_mark(int slot) {
    if (marks_[slot]) cl().clReleaseEvent(marks_[slot]);
    marks_[slot] = nullptr;
  }

  // The next packed plane of a tile in `buffer`, after those handed out since component 0.
  static Plane next_plane(const ocl::Buffer& buffer, size_t& cursor, int c, j2k_sample_type type, int64_t w,
                          int64_t h) {
    if (c == 0) cursor = 0;
    Plane p = packed(buffer.get(), type, w, h);
    p.offset = cursor;
    const auto bytes = static_cast<size_t>(p.row_stride * h);
    if (cursor + bytes > buffer.bytes())
      throw Error(ErrorCode::Internal, "opencl queue: a tile's planes do not fit the reserved buffer");
    cursor += align_up(bytes);
    return p;
  }

  // The host staging may still be in flight to the device from the previous upload.
  void wait_staged() {
    if (!staged_) return;
    check(cl().clWaitForEvents(1, &staged_), "clWaitForEvents");
    cl().clReleaseEvent(staged_);
    staged_ = nullptr;
  }

  static Plane packed(cl_mem base, j2k_sample_type type, int64_t w, int64_t h) {
    Plane p;
    p.base = base;
    p.type = type;
    p.pixel_stride = static_cast<ptrdiff_t>(j2k_sample_size(type));
    p.row_stride = p.pixel_stride * w;
    p.width = w;
    p.height = h;
    p.memory = J2K_MEMORY_DEVICE;
    return p;
  }

  ocl::Runner runner_;
  int threads_;
  Kernel shift_i32_, shift_f32_, rct_, ict_, narrow_, to_i32_, to_f32_, to_rct_, to_ict_;
  ocl::Buffer staging_, scratch_, flag_, narrow_buffer_;
  std::vector<ocl::Buffer> planes_;        // one per component: coefficients, DWT in place
  ocl::PinnedHost host_staging_;           // samples packed for the bus, at its speed
  cl_event staged_ = nullptr;              // the last upload from host_staging_
  cl_event marks_[kFrameSlots + 1] = {};   // the end of each frame slot's work
  int slot_flags_[kFrameSlots + 1] = {};   // each slot's range flag, read from flag_
  size_t cursor_ = 0, narrow_cursor_ = 0;
  std::vector<DwtLevel> lvs_;
};

}  // namespace

std::unique_ptr<Queue> make_opencl_queue(const BackendOptions& options) {
  return std::make_unique<OpenCLQueue>(ocl::select_device(options.device), options.opencl_tuning,
                                       options.threads);
}

}  // namespace j2k
