// SPDX-License-Identifier: BSD-2-Clause
// The host side of block_decoder.cl: the blocks packed into one upload (their descriptions,
// segment tables and bytes), the program and its tables once per OpenCL context, the launch,
// and the SEGMARK and corrupt-HT-block counters read back per batch.
#include "codec/tier1/gpu/opencl/block_decoder.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>

#include "codec/tier1/block_decoder_cl_source.hpp"  // kBlockDecoderClSource, generated from block_decoder.cl
#include "codec/tier1/ebcot/block_passes.hpp"
#include "codec/tier1/gpu/gpu_block_records.hpp"
#include "codec/tier1/ht/cleanup_pass.hpp"
#include "common/error.hpp"
#include "device/opencl/opencl_device.hpp"

namespace j2k::codec::opencl {
namespace {

using ocl::check;
using ocl::cl;

// A block as the kernel reads it (gpu_block_records.hpp: block_decoder.cl's DeviceBlock).
using DeviceBlock = GpuBlockRecord;

// The program and the constant tables of a context, built once per context for the process
// (never released, as the DWT's programs: transform/opencl/runner.cpp says why).
struct Program {
  cl_program program = nullptr;
  cl_mem next_words = nullptr, zero_contexts = nullptr, sign_table = nullptr, ht_tables = nullptr;
};

cl_mem constant_buffer(cl_context ctx, const void* data, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem m = cl().clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<void*>(data), &err);
  check(err, "clCreateBuffer");
  return m;
}

const Program& program_for(cl_context ctx, cl_device_id device) {
  static std::mutex mutex;
  static std::map<cl_context, Program> programs;
  std::lock_guard<std::mutex> lock(mutex);
  Program& p = programs[ctx];
  if (p.program) return p;
  cl_int err = CL_SUCCESS;
  const char* src = kBlockDecoderClSource;
  cl_program prog = cl().clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  err = cl().clBuildProgram(prog, 1, &device, "-cl-std=CL1.2", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::string log;
    size_t n = 0;
    if (cl().clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) == CL_SUCCESS && n > 0) {
      log.resize(n);
      cl().clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    }
    cl().clReleaseProgram(prog);
    throw Error(ErrorCode::BackendFailure, "clBuildProgram (Tier-1 decoder): " + ocl::error_name(err) + "; build log:\n" + log);
  }
  // The CPU's own tables, so that both decode with the same ones.
  p.next_words = constant_buffer(ctx, mq_detail::kNextWords.after, sizeof mq_detail::kNextWords.after);
  p.zero_contexts = constant_buffer(ctx, &t1::kWindowZeroContexts, sizeof t1::kWindowZeroContexts);
  p.sign_table = constant_buffer(ctx, t1::kSignTable.entry, sizeof t1::kSignTable.entry);
  p.ht_tables = constant_buffer(ctx, &ht::cleanup::tables(), sizeof(ht::cleanup::Tables));
  p.program = prog;
  return p;
}
static_assert(sizeof(t1::WindowZeroContexts) == 3 * 512, "ll_lh, hl, hh back to back, as block_decoder.cl reads them");
static_assert(sizeof(ht::cleanup::Tables) == 8192 + 6 * 64 * 8 && offsetof(ht::cleanup::Tables, uvlc) == 8192 &&
                  sizeof(ht::cleanup::UvlcPrefixes) == 8,
              "the CxtVLC entries, then the U-VLC prefixes, as block_decoder.cl reads them (HT_UVLC_AT)");

template <class T>
T queue_info(cl_command_queue q, cl_command_queue_info what) {
  T v{};
  check(cl().clGetCommandQueueInfo(q, what, sizeof v, &v, nullptr), "clGetCommandQueueInfo");
  return v;
}

size_t align16(size_t n) { return (n + 15) / 16 * 16; }
size_t align256(size_t n) { return (n + 255) / 256 * 256; }

// Where each part of the host's upload starts, bytes from its base (each goes to a buffer
// of its own).
struct Layout {
  size_t blocks, plane_at, counts, segment_bytes, segment_passes, bytes, total;
};

// Grows `buffer` to `bytes` on `queue`'s device (a new buffer: the old one is released once
// the work queued on it is done, as OpenCL defers it). A device allocates at most `max_alloc`
// bytes in one buffer (0: no limit known): asked for more, this says so. (The decoder gathers
// no more than that into own_planes(), and decode() splits planes of several buffers into
// runs within it; what is left are blocks whose bytes or flags alone pass it.)
cl_mem grown(ocl::Buffer& buffer, cl_command_queue queue, size_t bytes, const char* what, uint64_t max_alloc) {
  if (buffer.bytes() >= bytes) return buffer.get();
  if (max_alloc > 0 && bytes > max_alloc)
    throw Error(ErrorCode::OutOfMemory, std::string("OpenCL: Tier-1 needs a buffer of ") + std::to_string(bytes) + " bytes for " +
                                            what + "; the device allows at most " + std::to_string(max_alloc) +
                                            " (choose smaller tiles, or the cuda or cpu backend)");
  buffer = ocl::Buffer(queue_info<cl_context>(queue, CL_QUEUE_CONTEXT), bytes);
  return buffer.get();
}

}  // namespace

struct BlockBatch::Impl {
  ocl::Buffer blocks_d, plane_at_d, counts_d, segment_bytes_d, segment_passes_d, bytes_d, words_d, out_d, own_d;
  cl_kernel kernel = nullptr;
  cl_context kernel_context = nullptr;

  // Each batch's upload from a host buffer of its own, reused once the batch's counters (a
  // SEGMARK counter per plane, then a corrupt-HT-block one) are read back: the queue is in
  // order, so its writes are done.
  static constexpr int kSlots = 4;
  struct Slot {
    ocl::PinnedHost upload;  // the batch's records and bytes, sent up at the link's speed
    std::vector<int> counts;
    std::vector<int64_t> tiles;
    cl_event counted = nullptr;  // the counters' read, after the writes and the kernel
  };
  Slot slots[kSlots];
  int next = 0;
  std::map<int64_t, int> errors, corrupt;

  ~Impl() {
    for (Slot& s : slots) harvest(s, /*throwing=*/false);
    if (kernel) cl().clReleaseKernel(kernel);
  }

  // Waits for the slot's last batch and adds its counters to `errors`.
  void harvest(Slot& s, bool throwing = true) {
    if (s.counted) {
      const cl_int err = cl().clWaitForEvents(1, &s.counted);
      cl().clReleaseEvent(s.counted);
      s.counted = nullptr;
      if (throwing) check(err, "clWaitForEvents");
      const size_t planes = s.tiles.size();
      for (size_t p = 0; p < planes; ++p) {
        if (s.counts[p] > 0) errors[s.tiles[p]] += s.counts[p];
        if (s.counts[planes + p] > 0) corrupt[s.tiles[p]] += s.counts[planes + p];
      }
    }
  }

  static constexpr cl_uint kPlaneRangeArg = 9;  // plane_from, plane_to, planes (block_decoder.cl)
  static constexpr cl_uint kTableArgs = 12;     // next_words, zero_contexts, sign_table, ht_tables
  cl_kernel kernel_for(cl_context ctx, cl_device_id device) {
    if (kernel && kernel_context == ctx) return kernel;
    const Program& p = program_for(ctx, device);
    cl_int err = CL_SUCCESS;
    cl_kernel k = cl().clCreateKernel(p.program, "decode_blocks", &err);
    check(err, "clCreateKernel");
    // The constant tables, the kernel's last four arguments, once for the kernel's life.
    const cl_mem tables[4] = {p.next_words, p.zero_contexts, p.sign_table, p.ht_tables};
    for (cl_uint i = 0; i < 4; ++i)
      if ((err = cl().clSetKernelArg(k, kTableArgs + i, sizeof(cl_mem), &tables[i])) != CL_SUCCESS) {
        cl().clReleaseKernel(k);
        check(err, "clSetKernelArg");
      }
    if (kernel) cl().clReleaseKernel(kernel);
    kernel = k;
    kernel_context = ctx;
    return k;
  }

  // Work-items a group. On NVIDIA's OpenCL a group runs as one warp with that many lanes
  // busy, as a CUDA block of the CUDA batch does (cuda/block_decoder.cu says why few lanes a
  // warp decode fastest): light blocks (lossy streams) one a group; heavy ones in the fewest
  // that put every group on the device at once, counting kResidentGroups a compute unit
  // (16, fitted to the figures below), up to 8. H200, NVIDIA's OpenCL,
  // one-thread decodes of a folder of 8 (2048^2) or 4 (4096^2) streams, median ms of three
  // for 1, 2, 4, 8 work-items: 2048^2 RGB lossless (about 3,100 blocks) 686, 699, 713, 757
  // (this rule: 2); 16-bit grey (1,000) 656, 655, 669, 724 (1); 4096^2 RGB lossless (12,300)
  // 1063, 1043, 1005, 996 (8), in 1024^2 tiles 992, 872, 911, 861 (8); grey (4,100) 914, 821,
  // 854, 852 (2); RGB -I -r 20, light, 2048^2 507, 539, 588, 655 (1), 4096^2 618, 624, 564,
  // 566 (1).
  static constexpr size_t kResidentGroups = 16;
  size_t compute_units = 1;
  size_t group_size(size_t count, uint64_t bytes) const {
    constexpr uint64_t kLightBlockBytes = 1024;
    if (bytes < kLightBlockBytes * count) return 1;
    size_t items = 1;
    while (items < 8 && count > items * kResidentGroups * compute_units) items *= 2;
    return items;
  }
};

BlockBatch::BlockBatch(int device, const std::string& tuning) : impl_(std::make_unique<Impl>()) {
  const ocl::DeviceInfo d = ocl::list_devices()[static_cast<size_t>(ocl::select_device(device))];
  max_alloc_ = ocl::largest_buffer(d, ocl::max_alloc_option(tuning));
  impl_->compute_units = std::max(1u, d.compute_units);
}
BlockBatch::~BlockBatch() = default;

void BlockBatch::decode(const std::vector<Plane>& planes, const std::vector<size_t>& plane_bytes, void* queue_handle,
                        const std::vector<int64_t>& tiles) {
  Impl& m = *impl_;
  GpuBlockRecords& r = records();
  if (r.blocks.empty()) return;
  if (tiles.size() != planes.size() || plane_bytes.size() != planes.size() || planes.size() > kMaxPlanes)
    throw Error(ErrorCode::Internal, "BlockBatch::decode: bytes and a tile for each plane, at most kMaxPlanes");
  auto queue = static_cast<cl_command_queue>(queue_handle);
  const auto ctx = queue_info<cl_context>(queue, CL_QUEUE_CONTEXT);
  const auto device = queue_info<cl_device_id>(queue, CL_QUEUE_DEVICE);
  cl_kernel kernel = m.kernel_for(ctx, device);

  // A launch writes one buffer: the planes' own when they all share one (own_planes()), else
  // the batch's, copied out plane by plane after. Planes of several buffers go through the
  // batch's in runs of planes that together fit the device's largest buffer, a launch each
  // (one run where they all fit; the back stage has made sure that each plane does).
  bool direct = true;
  for (const Plane& p : planes) direct = direct && p.base == planes[0].base && p.offset % 4 == 0;
  std::vector<int64_t> plane_at(planes.size());
  std::vector<size_t> run_from{0};  // each run's first plane, then planes.size()
  size_t run_bytes = 0, out_bytes = 4;
  for (size_t p = 0; p < planes.size(); ++p) {
    if (direct) {
      plane_at[p] = static_cast<int64_t>(planes[p].offset / 4);
      continue;
    }
    const size_t bytes = align256(plane_bytes[p]);
    if (run_bytes > 0 && max_alloc_ > 0 && run_bytes + bytes > max_alloc_) {
      run_from.push_back(p);
      run_bytes = 0;
    }
    plane_at[p] = static_cast<int64_t>(run_bytes / 4);
    run_bytes += bytes;
    out_bytes = std::max(out_bytes, run_bytes);
  }
  run_from.push_back(planes.size());
  cl_mem out = direct ? static_cast<cl_mem>(planes[0].base) : grown(m.out_d, queue, out_bytes, "a tile's coefficients", max_alloc_);

  r.sort_by_bytes();
  Layout l{};
  l.blocks = 0;
  l.plane_at = align16(r.blocks.size() * sizeof(DeviceBlock));
  l.counts = align16(l.plane_at + planes.size() * sizeof(int64_t));
  const size_t counts = 2 * planes.size();  // SEGMARK failures, then corrupt HT blocks
  l.segment_bytes = align16(l.counts + counts * sizeof(int));
  l.segment_passes = align16(l.segment_bytes + r.segment_bytes.size() * sizeof(uint32_t));
  l.bytes = align16(l.segment_passes + r.segment_passes.size() * sizeof(int));
  l.total = align16(l.bytes + r.bytes.size() + 1);

  Impl::Slot& slot = m.slots[m.next];
  m.next = (m.next + 1) % Impl::kSlots;
  m.harvest(slot);  // its last batch, long done
  // Grown by a quarter beyond the need, so that tiles of about one size reuse it.
  if (l.total > slot.upload.bytes()) slot.upload = ocl::PinnedHost(ctx, device, l.total + l.total / 4);
  uint8_t* u = slot.upload.data();
  std::memcpy(u + l.blocks, r.blocks.data(), r.blocks.size() * sizeof(DeviceBlock));
  std::memcpy(u + l.plane_at, plane_at.data(), plane_at.size() * sizeof(int64_t));
  std::memset(u + l.counts, 0, counts * sizeof(int));
  std::memcpy(u + l.segment_bytes, r.segment_bytes.data(), r.segment_bytes.size() * sizeof(uint32_t));
  std::memcpy(u + l.segment_passes, r.segment_passes.data(), r.segment_passes.size() * sizeof(int));
  if (!r.bytes.empty()) std::memcpy(u + l.bytes, r.bytes.data(), r.bytes.size());

  // The device buffers are reused by the next batch on the same (in-order) queue, after this
  // one's work.
  struct Part {
    ocl::Buffer& buffer;
    size_t at, bytes;
  };
  const Part parts[] = {{m.blocks_d, l.blocks, r.blocks.size() * sizeof(DeviceBlock)},
                        {m.plane_at_d, l.plane_at, planes.size() * sizeof(int64_t)},
                        {m.counts_d, l.counts, counts * sizeof(int)},
                        {m.segment_bytes_d, l.segment_bytes, r.segment_bytes.size() * sizeof(uint32_t)},
                        {m.segment_passes_d, l.segment_passes, r.segment_passes.size() * sizeof(int)},
                        {m.bytes_d, l.bytes, r.bytes.size()}};
  // The writes read the slot's host buffer until they are done: should an enqueue fail part
  // way, the queue is drained before the error leaves, so that no write outlives the buffer.
  try {
    cl_mem mems[6];
    for (size_t i = 0; i < 6; ++i) {
      const Part& part = parts[i];
      mems[i] = grown(part.buffer, queue, std::max<size_t>(part.bytes, 16), "the code-blocks' bytes", max_alloc_);
      if (part.bytes > 0)
        check(cl().clEnqueueWriteBuffer(queue, mems[i], CL_FALSE, 0, part.bytes, u + part.at, 0, nullptr, nullptr),
              "clEnqueueWriteBuffer");
    }
    cl_mem words = grown(m.words_d, queue, std::max<uint64_t>(r.words, 1) * sizeof(uint32_t), "the code-blocks' flags", max_alloc_);

    const cl_int count = static_cast<cl_int>(r.blocks.size());
    cl_uint a = 0;
    auto arg = [&](size_t size, const void* value) { check(cl().clSetKernelArg(kernel, a++, size, value), "clSetKernelArg"); };
    arg(sizeof(cl_mem), &mems[0]);  // blocks
    arg(sizeof count, &count);
    arg(sizeof(cl_mem), &mems[3]);  // segment_bytes
    arg(sizeof(cl_mem), &mems[4]);  // segment_passes
    arg(sizeof(cl_mem), &mems[5]);  // bytes
    arg(sizeof(cl_mem), &words);
    arg(sizeof(cl_mem), &out);
    arg(sizeof(cl_mem), &mems[1]);  // plane_at
    arg(sizeof(cl_mem), &mems[2]);  // counts
    const size_t local = m.group_size(r.blocks.size(), r.bytes.size());
    const size_t global = (r.blocks.size() + local - 1) / local * local;
    const auto plane_count = static_cast<cl_uint>(planes.size());
    for (size_t k = 0; k + 1 < run_from.size(); ++k) {
      const auto from = static_cast<cl_uint>(run_from[k]), to = static_cast<cl_uint>(run_from[k + 1]);
      a = Impl::kPlaneRangeArg;
      arg(sizeof from, &from);
      arg(sizeof to, &to);
      arg(sizeof plane_count, &plane_count);
      check(cl().clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr), "clEnqueueNDRangeKernel");
      if (direct) continue;
      // The run's planes home before the next launch writes the buffer again (the queue is in order).
      for (size_t p = from; p < to; ++p)
        if (plane_bytes[p] > 0)
          check(cl().clEnqueueCopyBuffer(queue, out, static_cast<cl_mem>(planes[p].base), static_cast<size_t>(plane_at[p]) * 4,
                                         planes[p].offset, plane_bytes[p], 0, nullptr, nullptr),
                "clEnqueueCopyBuffer");
    }
    slot.counts.assign(counts, 0);
    slot.tiles = tiles;
    check(cl().clEnqueueReadBuffer(queue, mems[2], CL_FALSE, 0, counts * sizeof(int), slot.counts.data(), 0, nullptr,
                                   &slot.counted),
          "clEnqueueReadBuffer");
  } catch (...) {
    cl().clFinish(queue);
    throw;
  }
}

void* BlockBatch::own_buffer(size_t bytes, void* queue) {
  return grown(impl_->own_d, static_cast<cl_command_queue>(queue), bytes, "the coefficients of the tiles gathered", max_alloc_);
}

void BlockBatch::copy(const Plane& from, const Plane& to, size_t bytes, void* queue) {
  if (bytes == 0) return;
  check(cl().clEnqueueCopyBuffer(static_cast<cl_command_queue>(queue), static_cast<cl_mem>(from.base),
                                 static_cast<cl_mem>(to.base), from.offset, to.offset, bytes, 0, nullptr, nullptr),
        "clEnqueueCopyBuffer");
}

std::map<int64_t, int> BlockBatch::segmark_errors() {
  Impl& m = *impl_;
  for (Impl::Slot& s : m.slots) m.harvest(s);
  std::map<int64_t, int> out;
  out.swap(m.errors);
  return out;
}

std::map<int64_t, int> BlockBatch::corrupt_blocks() {
  Impl& m = *impl_;
  for (Impl::Slot& s : m.slots) m.harvest(s);
  std::map<int64_t, int> out;
  out.swap(m.corrupt);
  return out;
}

}  // namespace j2k::codec::opencl
