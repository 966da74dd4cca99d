// SPDX-License-Identifier: BSD-2-Clause
// The host side of ht_block_encoder.cl: the program and the CPU coder's tables once per OpenCL
// context, the blocks' records, the launches (a launch of the coder per source buffer, the
// scan, the packing; for sets, finish_sets after each coder launch), the reads of the results
// (and the sets' figures) and the packed bytes; the plane model's launches.
#include "codec/tier1/gpu/opencl/ht_block_encoder.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "codec/tier1/ht/plane_estimates.hpp"
#include "codec/tier1/ht/refinement_encoder.hpp"
#include "codec/tier1/ht/vlc_tables.hpp"
#include "codec/tier1/ht_block_encoder_cl_source.hpp"  // kHtBlockEncoderClSource, generated from ht_block_encoder.cl
#include "common/error.hpp"
#include "device/opencl/opencl_device.hpp"

namespace j2k::codec::opencl {
namespace {

using ocl::check;
using ocl::cl;

// A block as the kernel reads it (ht_block_encoder.cl's HtBlock).
struct DeviceHtBlock {
  uint64_t data;  // its first coefficient, in int32 values from its buffer's start
  int64_t stride;
  uint64_t slot;        // its output: the output buffer's bytes from here
  uint64_t scratch_at;  // its scratch: the scratch buffer's bytes from here
  int16_t width, height;
  uint8_t band, fraction_bits, cleanup_plane, source;
  uint8_t flags;  // kSet, kReversible, kCausal
  uint8_t unused[7];
};
static_assert(sizeof(DeviceHtBlock) == 48, "ht_block_encoder.cl's HtBlock");
constexpr uint8_t kSet = 1, kReversible = 2, kCausal = 4;  // its SET, REVERSIBLE, CAUSAL

// ht_block_encoder.cl's SetFigures (HtSetFigures), ModelJob and ModelFigures.
using SetFigures = HtSetFigures;
static_assert(sizeof(SetFigures) == 40, "ht_block_encoder.cl's SetFigures");
struct ModelJob {
  uint64_t data;
  int64_t stride;
  int32_t width, height, fraction_bits, reversible, source, unused;
};
static_assert(sizeof(ModelJob) == 40, "ht_block_encoder.cl's ModelJob");
struct ModelFigures {
  double bytes[32], removed[32];
  double energy;
  int32_t planes, unused;
};
static_assert(sizeof(ModelFigures) == 528, "ht_block_encoder.cl's ModelFigures");
static_assert(ht::kMaxEstimatedPlanes == 32, "ModelFigures's planes");

// A set's scratch beyond the cleanup pass's (finish_sets): the significance map, SigProp's
// and MagRef's buffers; its slot beyond the cleanup segment: SigProp and MagRef.
size_t set_scratch_bytes(int width, int height) {
  const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
  return ht::align16(ht::significance_bytes(width, height)) + ht::align16(ht::sigprop_capacity(n)) + ht::magref_capacity(n);
}
size_t set_output_bytes(int width, int height) {
  const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
  return ht::sigprop_capacity(n) + ht::magref_capacity(n);
}
static_assert(sizeof(ht::CxtVlcCodeword) == 4, "ht_block_encoder.cl's CxtVlcCodeword: codeword, length, e_k, e_1");
static_assert(sizeof(ht::Uvlc) == 24, "ht_block_encoder.cl's Uvlc: three uints, three ints");
static_assert(sizeof(ht::CleanupResult) == 8, "ht_block_encoder.cl's CleanupResult");
static_assert(sizeof(HtEncodeBatch::QuantiseJob) == 40, "ht_block_encoder.cl's QuantiseJob");

constexpr int kCxtVlcEntries = 8 * 16 * 17;
constexpr size_t kEncodeItems = 32;  // work-items (blocks) a group of encode_cleanup
constexpr size_t kScanItems = 256;  // ht_block_encoder.cl's SCAN_ITEMS
constexpr size_t kPackItems = 64;
constexpr size_t kQuantiseItems = 128;
constexpr size_t kSetItems = 32;    // work-items (blocks) a group of finish_sets and model_blocks

// The program and the tables of a context, built once per context for the process (never
// released, as the DWT's programs: transform/opencl/runner.cpp says why).
struct Program {
  cl_program program = nullptr;
  cl_mem cxt_vlc = nullptr, uvlc = nullptr;
  bool doubles = false;  // the device has cl_khr_fp64: quantise_blocks is built
};

bool has_doubles(cl_device_id device) {
  size_t n = 0;
  if (cl().clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, nullptr, &n) != CL_SUCCESS || n == 0) return false;
  std::string s(n, '\0');
  if (cl().clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, n, s.data(), nullptr) != CL_SUCCESS) return false;
  return s.find("cl_khr_fp64") != std::string::npos;
}

const Program& program_for(cl_context ctx, cl_device_id device) {
  static std::mutex mutex;
  static std::map<cl_context, Program> programs;
  std::lock_guard<std::mutex> lock(mutex);
  Program& p = programs[ctx];
  if (p.program) return p;
  const bool doubles = has_doubles(device);
  cl_int err = CL_SUCCESS;
  const char* src = kHtBlockEncoderClSource;
  cl_program prog = cl().clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  const std::string options = std::string("-cl-std=CL1.2") + (doubles ? " -DJ2K_FP64=1" : "");
  err = cl().clBuildProgram(prog, 1, &device, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::string log;
    size_t n = 0;
    if (cl().clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) == CL_SUCCESS && n > 0) {
      log.resize(n);
      cl().clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    }
    cl().clReleaseProgram(prog);
    throw Error(ErrorCode::BackendFailure, "clBuildProgram (HT block encoder): " + ocl::error_name(err) + "; build log:\n" + log);
  }
  // The CPU coder's own tables, so that both code with the same ones.
  const ht::CleanupTables t = ht::host_cleanup_tables();
  std::vector<ht::CxtVlcCodeword> cxt(2 * kCxtVlcEntries);
  std::copy(t.cxt_vlc[0], t.cxt_vlc[0] + kCxtVlcEntries, cxt.begin());
  std::copy(t.cxt_vlc[1], t.cxt_vlc[1] + kCxtVlcEntries, cxt.begin() + kCxtVlcEntries);
  p.cxt_vlc = cl().clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, cxt.size() * sizeof(ht::CxtVlcCodeword), cxt.data(), &err);
  check(err, "clCreateBuffer");
  p.uvlc = cl().clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(ht::Uvlc) * ht::UvlcTable::kSize,
                               const_cast<ht::Uvlc*>(t.uvlc), &err);
  check(err, "clCreateBuffer");
  p.doubles = doubles;
  p.program = prog;
  return p;
}

template <class T>
T queue_info(cl_command_queue q, cl_command_queue_info what) {
  T v{};
  check(cl().clGetCommandQueueInfo(q, what, sizeof v, &v, nullptr), "clGetCommandQueueInfo");
  return v;
}

// `buffer` at least `bytes` (at least 16) in `ctx`: a new buffer where it is smaller (the old
// one released once the work queued on it is done, as OpenCL defers it).
cl_mem grown(ocl::Buffer& buffer, cl_context ctx, size_t bytes) {
  bytes = std::max<size_t>(bytes, 16);
  if (buffer.bytes() < bytes) buffer = ocl::Buffer(ctx, bytes);
  return buffer.get();
}

struct Kernel {
  cl_kernel k = nullptr;
  ~Kernel() {
    if (k) cl().clReleaseKernel(k);
  }
  void make(cl_program program, const char* name) {
    if (k) cl().clReleaseKernel(k);
    k = nullptr;
    cl_int err = CL_SUCCESS;
    k = cl().clCreateKernel(program, name, &err);
    check(err, "clCreateKernel");
  }
  template <class... A>
  void args(const A&... a) {
    cl_uint i = 0;
    (check(cl().clSetKernelArg(k, i++, sizeof(A), &a), "clSetKernelArg"), ...);
  }
};

}  // namespace

bool device_has_doubles(int device) {
  try {
    const std::vector<ocl::DeviceInfo> devices = ocl::list_devices();
    if (devices.empty()) return false;
    return has_doubles(devices[static_cast<size_t>(ocl::select_device(device))].id);
  } catch (const std::exception&) {
    return false;
  }
}

struct HtEncodeBatch::Impl {
  std::vector<DeviceHtBlock> blocks;
  std::vector<cl_mem> sources;                   // the buffers the blocks lie in
  uint64_t output_bytes = 0, scratch_bytes = 0;  // what the blocks added need
  bool sets = false;                             // a block was added by add_set_at

  cl_context context = nullptr;  // the kernels' and buffers' (the last queue's)
  cl_device_id device = nullptr;  // that queue's
  const Program* program = nullptr;
  Kernel encode_k, scan_k, pack_k, quantise_k, finish_k, model_k;
  ocl::Buffer blocks_d, output_d, scratch_d, results_d, sizes_d, offsets_d, packed_d, jobs_d, figures_d, model_d;

  // encode()'s upload and what comes back, kept until the work that uses them is done.
  std::vector<DeviceHtBlock> upload;
  std::vector<ht::CleanupResult> results;
  std::vector<SetFigures> figures;  // the sets' (where `sets`)
  ocl::PinnedHost output;          // the packed bytes, read at the link's speed
  std::vector<uint64_t> offsets;  // block i's bytes at output + offsets[i] (after wait())
  cl_command_queue queue = nullptr;  // the last encode()'s
  cl_event done = nullptr;           // its results' read
  bool pending = false;  // encode() ran and wait() has not
  bool ready = false;    // wait() returned for the blocks of the last encode()
  size_t encoded = 0;    // how many blocks the last encode() coded

  ~Impl() {
    if (queue) cl().clFinish(queue);  // nothing may still read the host vectors
    if (done) cl().clReleaseEvent(done);
  }

  // The kernels of `queue`'s context, made again where it changed.
  void use(cl_command_queue q) {
    const auto ctx = queue_info<cl_context>(q, CL_QUEUE_CONTEXT);
    if (ctx == context && program) return;
    device = queue_info<cl_device_id>(q, CL_QUEUE_DEVICE);
    program = &program_for(ctx, device);
    encode_k.make(program->program, "encode_cleanup");
    scan_k.make(program->program, "scan_sizes");
    pack_k.make(program->program, "pack_segments");
    if (program->doubles) {
      quantise_k.make(program->program, "quantise_blocks");
      finish_k.make(program->program, "finish_sets");
      model_k.make(program->program, "model_blocks");
    }
    // Buffers of another context cannot serve this one.
    blocks_d = {}, output_d = {}, scratch_d = {}, results_d = {}, sizes_d = {}, offsets_d = {}, packed_d = {}, jobs_d = {};
    figures_d = {}, model_d = {};
    output = {};
    context = ctx;
  }

  void finish_pending() {
    if (!pending) return;
    pending = false;
    const cl_int err = cl().clWaitForEvents(1, &done);
    cl().clReleaseEvent(done);
    done = nullptr;
    check(err, "clWaitForEvents");
  }

  bool is_set(size_t i) const { return (upload[i].flags & kSet) != 0; }
  // Block i's bytes: its cleanup segment and, for a set, its refinement passes'.
  uint64_t segment_bytes(size_t i) const {
    return results[i].bytes + (is_set(i) ? uint64_t{figures[i].sigprop_bytes} + figures[i].magref_bytes : 0);
  }
  void need_doubles(const char* what) const {
    if (!program->doubles)
      throw Error(ErrorCode::BackendUnavailable, std::string("OpenCL: ") + what +
                                                     " needs doubles (cl_khr_fp64), which this device lacks; use the cpu backend");
  }

  void check_ready(size_t i, const char* call) const {
    if (!ready || i >= encoded)
      throw Error(ErrorCode::Internal, std::string("GpuHtEncodeBatch::") + call + ": block " + std::to_string(i) + " of " +
                                           std::to_string(ready ? encoded : 0) + " coded and waited for");
  }
};

HtEncodeBatch::HtEncodeBatch() : impl_(std::make_unique<Impl>()) {}
HtEncodeBatch::~HtEncodeBatch() = default;

void HtEncodeBatch::clear() {
  impl_->finish_pending();  // its records name the blocks in flight
  impl_->blocks.clear();
  impl_->sources.clear();
  impl_->output_bytes = 0;
  impl_->scratch_bytes = 0;
  impl_->sets = false;
  impl_->ready = false;
}

size_t HtEncodeBatch::add(const int32_t*, ptrdiff_t, int, int, j2k_band_type, int, int) {
  throw Error(ErrorCode::InvalidArgument,
              "OpenCL HT encoder: blocks lie in cl_mem buffers and are added by add_at(buffer, offset), not by address");
}

size_t HtEncodeBatch::add_at(const void* d_base, size_t offset, ptrdiff_t stride, int width, int height, j2k_band_type band,
                             int fraction_bits, int cleanup_plane) {
  check_gpu_ht_block(d_base, stride, width, height, fraction_bits, cleanup_plane);
  Impl& m = *impl_;
  if (offset % 4 != 0)
    throw Error(ErrorCode::InvalidArgument, "OpenCL HT encoder: a block " + std::to_string(offset) +
                                                " bytes into its buffer (int32 coefficients: a multiple of 4)");
  const auto mem = static_cast<cl_mem>(const_cast<void*>(d_base));
  size_t source = std::find(m.sources.begin(), m.sources.end(), mem) - m.sources.begin();
  if (source == m.sources.size()) {
    if (source == 255) throw Error(ErrorCode::InvalidArgument, "OpenCL HT encoder: blocks in more than 255 buffers in one batch");
    m.sources.push_back(mem);
  }
  DeviceHtBlock b{};
  b.data = offset / 4;
  b.stride = stride;
  b.slot = m.output_bytes;
  b.scratch_at = m.scratch_bytes;
  b.width = static_cast<int16_t>(width);
  b.height = static_cast<int16_t>(height);
  b.band = static_cast<uint8_t>(band);
  b.fraction_bits = static_cast<uint8_t>(fraction_bits);
  b.cleanup_plane = static_cast<uint8_t>(cleanup_plane);
  b.source = static_cast<uint8_t>(source);
  m.output_bytes += ht::align16(ht::cleanup_output_capacity(width, height));
  m.scratch_bytes += ht::align16(ht::cleanup_scratch_bytes(width, height));
  m.blocks.push_back(b);
  return m.blocks.size() - 1;
}

size_t HtEncodeBatch::add_set_at(const void* d_base, size_t offset, ptrdiff_t stride, int width, int height, j2k_band_type band,
                                 int fraction_bits, int cleanup_plane, bool reversible, bool causal) {
  const size_t i = add_at(d_base, offset, stride, width, height, band, fraction_bits, cleanup_plane);
  Impl& m = *impl_;
  m.blocks[i].flags = static_cast<uint8_t>(kSet | (reversible ? kReversible : 0) | (causal ? kCausal : 0));
  m.output_bytes += ht::align16(set_output_bytes(width, height));
  m.scratch_bytes += ht::align16(set_scratch_bytes(width, height));
  m.sets = true;
  return i;
}

size_t HtEncodeBatch::size() const { return impl_->blocks.size(); }

void HtEncodeBatch::encode(void* queue_handle) {
  Impl& m = *impl_;
  auto queue = static_cast<cl_command_queue>(queue_handle);
  m.finish_pending();  // the last batch's reads into the host vectors, which this one reuses
  m.ready = false;
  m.encoded = m.blocks.size();
  if (m.blocks.empty()) {
    m.ready = true;
    return;
  }
  m.use(queue);
  if (m.sets) m.need_doubles("HT rate control's sets");
  m.queue = queue;
  const size_t count = m.blocks.size();
  m.upload = m.blocks;
  m.results.resize(count);
  m.figures.resize(m.sets ? count : 0);
  cl_mem figures = m.sets ? grown(m.figures_d, m.context, count * sizeof(SetFigures)) : nullptr;
  cl_mem blocks = grown(m.blocks_d, m.context, count * sizeof(DeviceHtBlock));
  cl_mem output = grown(m.output_d, m.context, m.output_bytes);
  cl_mem scratch = grown(m.scratch_d, m.context, m.scratch_bytes);
  cl_mem results = grown(m.results_d, m.context, count * sizeof(ht::CleanupResult));
  cl_mem sizes = grown(m.sizes_d, m.context, count * sizeof(uint64_t));
  cl_mem offsets = grown(m.offsets_d, m.context, count * sizeof(uint64_t));
  // At most the slots' bytes: the packed segments are no longer than the slots they come from.
  cl_mem packed = grown(m.packed_d, m.context, m.output_bytes);
  // Should an enqueue fail part way, the queue is drained before the error leaves, so that no
  // transfer outlives the host vectors it reads or writes.
  try {
    check(cl().clEnqueueWriteBuffer(queue, blocks, CL_FALSE, 0, count * sizeof(DeviceHtBlock), m.upload.data(), 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
    const cl_int n = static_cast<cl_int>(count);
    // Groups of kEncodeItems blocks (a work-item each; those past `count` return at once): left
    // to the runtime, a count with no good divisor may be run in groups of one.
    const size_t global = (count + kEncodeItems - 1) / kEncodeItems * kEncodeItems;
    for (size_t s = 0; s < m.sources.size(); ++s) {
      const cl_int source = static_cast<cl_int>(s);
      m.encode_k.args(blocks, n, source, m.sources[s], output, scratch, m.program->cxt_vlc, m.program->uvlc, results, sizes);
      check(cl().clEnqueueNDRangeKernel(queue, m.encode_k.k, 1, nullptr, &global, &kEncodeItems, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel (encode_cleanup)");
      if (m.sets) {
        const size_t sets_global = (count + kSetItems - 1) / kSetItems * kSetItems;
        m.finish_k.args(blocks, n, source, m.sources[s], output, scratch, results, figures, sizes);
        check(cl().clEnqueueNDRangeKernel(queue, m.finish_k.k, 1, nullptr, &sets_global, &kSetItems, 0, nullptr, nullptr),
              "clEnqueueNDRangeKernel (finish_sets)");
      }
    }
    m.scan_k.args(sizes, n, offsets);
    check(cl().clEnqueueNDRangeKernel(queue, m.scan_k.k, 1, nullptr, &kScanItems, &kScanItems, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel (scan_sizes)");
    m.pack_k.args(blocks, output, sizes, offsets, packed);
    const size_t pack_global = count * kPackItems;
    check(cl().clEnqueueNDRangeKernel(queue, m.pack_k.k, 1, nullptr, &pack_global, &kPackItems, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel (pack_segments)");
    if (m.sets)
      check(cl().clEnqueueReadBuffer(queue, figures, CL_FALSE, 0, count * sizeof(SetFigures), m.figures.data(), 0, nullptr, nullptr),
            "clEnqueueReadBuffer");
    check(cl().clEnqueueReadBuffer(queue, results, CL_FALSE, 0, count * sizeof(ht::CleanupResult), m.results.data(), 0, nullptr,
                                   &m.done),
          "clEnqueueReadBuffer");
  } catch (...) {
    cl().clFinish(queue);
    throw;
  }
  m.pending = true;
}

void HtEncodeBatch::wait() {
  Impl& m = *impl_;
  if (m.pending) {
    m.finish_pending();
    // The offsets the scan gave, again on the host (the same sums in the same order), and the
    // packed bytes, now that their total is known.
    m.offsets.resize(m.encoded);
    uint64_t total = 0;
    for (size_t i = 0; i < m.encoded; ++i) {
      m.offsets[i] = total;
      total += m.segment_bytes(i);
    }
    // Grown by a quarter beyond the need, so that frames of about one size reuse it.
    if (total > m.output.bytes()) m.output = ocl::PinnedHost(m.context, m.device, total + total / 4);
    if (total > 0)
      check(cl().clEnqueueReadBuffer(m.queue, m.packed_d.get(), CL_TRUE, 0, total, m.output.data(), 0, nullptr, nullptr),
            "clEnqueueReadBuffer");
    m.ready = true;
  }
  if (!m.ready) return;
  for (size_t i = 0; i < m.encoded; ++i) {
    const ht::CleanupResult& r = m.results[i];
    if (r.status == ht::kCleanupCoded) continue;
    const DeviceHtBlock& b = m.upload[i];
    const std::string what = "GPU HT encoder (OpenCL): block " + std::to_string(i) + " (" + std::to_string(b.width) + " x " +
                             std::to_string(b.height) + ", plane " + std::to_string(b.cleanup_plane) + ")";
    if (r.status == ht::kCleanupTooLarge)
      throw Error(ErrorCode::InvalidArgument, what + ": a coefficient of 2^31 steps (at most 2^31 - 1)");
    if (r.status == ht::kCleanupScupOverflow)
      throw Error(ErrorCode::Internal, what + ": MEL and VLC outgrow the cleanup segment's length field");
    throw Error(ErrorCode::Internal, what + ": status " + std::to_string(r.status) + " from the kernel");
  }
}

const uint8_t* HtEncodeBatch::bytes(size_t i, size_t& size) const {
  const Impl& m = *impl_;
  m.check_ready(i, "bytes");
  size = m.segment_bytes(i);
  return m.output.data() + m.offsets[i];
}

CodedBlock HtEncodeBatch::coded(size_t i) const {
  CodedBlock c = coded_in_place(i);
  if (c.external) {
    c.bytes.assign(c.external, c.external + c.passes.back().end);
    c.external = nullptr;
  }
  return c;
}

CodedBlock HtEncodeBatch::coded_in_place(size_t i) const {
  const Impl& m = *impl_;
  m.check_ready(i, "coded");
  const ht::CleanupResult& r = m.results[i];
  CodedBlock c;
  c.bitplanes = r.bitplanes;
  c.magnitude_bitplanes = r.magnitude_bitplanes;
  const HtSetFigures* set = m.is_set(i) ? &m.figures[i] : nullptr;
  if (set) c.energy = set->energy;
  if (r.bitplanes == 0) return c;  // no pass
  size_t size = 0;
  c.external = bytes(i, size);
  push_ht_passes(c, r.bytes, set, m.upload[i].cleanup_plane > 0);
  return c;
}

void HtEncodeBatch::quantise(const std::vector<QuantiseJob>& jobs, const void* in, const void* out, const void* too_large, void* queue_handle) {
  Impl& m = *impl_;
  if (jobs.empty()) return;
  auto queue = static_cast<cl_command_queue>(queue_handle);
  m.finish_pending();
  m.use(queue);
  if (!m.program->doubles)
    throw Error(ErrorCode::BackendUnavailable, "OpenCL: the 9/7's quantisation on the device needs doubles (cl_khr_fp64), which "
                                               "this device lacks; use the cpu backend (or the 5/3)");
  cl_mem jobs_d = grown(m.jobs_d, m.context, jobs.size() * sizeof(QuantiseJob));
  try {
    // Blocking: `jobs` is the caller's, free to change once this returns.
    check(cl().clEnqueueWriteBuffer(queue, jobs_d, CL_TRUE, 0, jobs.size() * sizeof(QuantiseJob), jobs.data(), 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
    const auto src = static_cast<cl_mem>(const_cast<void*>(in)), dst = static_cast<cl_mem>(const_cast<void*>(out));
    const auto flag = static_cast<cl_mem>(const_cast<void*>(too_large));
    m.quantise_k.args(jobs_d, src, dst, flag);
    const size_t global = jobs.size() * kQuantiseItems;
    check(cl().clEnqueueNDRangeKernel(queue, m.quantise_k.k, 1, nullptr, &global, &kQuantiseItems, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel (quantise_blocks)");
  } catch (...) {
    cl().clFinish(queue);
    throw;
  }
  m.queue = queue;
}

std::vector<BlockEncodeBatch::HtModel> HtEncodeBatch::model(const std::vector<ModelBlock>& blocks, void* queue_handle) {
  Impl& m = *impl_;
  std::vector<BlockEncodeBatch::HtModel> out(blocks.size());
  if (blocks.empty()) return out;
  auto queue = static_cast<cl_command_queue>(queue_handle);
  m.finish_pending();
  m.use(queue);
  m.need_doubles("HT rate control's plane model");
  std::vector<cl_mem> sources;
  std::vector<ModelJob> jobs(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    const ModelBlock& b = blocks[i];
    if (b.offset % 4 != 0) throw Error(ErrorCode::InvalidArgument, "OpenCL HT plane model: a block at a byte offset not of an int32");
    const auto mem = static_cast<cl_mem>(const_cast<void*>(b.base));
    size_t source = std::find(sources.begin(), sources.end(), mem) - sources.begin();
    if (source == sources.size()) sources.push_back(mem);
    jobs[i] = ModelJob{b.offset / 4, b.stride, b.width, b.height, b.fraction_bits, b.reversible ? 1 : 0, static_cast<int32_t>(source), 0};
  }
  std::vector<ModelFigures> figures(blocks.size());
  cl_mem jobs_d = grown(m.jobs_d, m.context, jobs.size() * sizeof(ModelJob));
  cl_mem figures_d = grown(m.model_d, m.context, figures.size() * sizeof(ModelFigures));
  try {
    check(cl().clEnqueueWriteBuffer(queue, jobs_d, CL_FALSE, 0, jobs.size() * sizeof(ModelJob), jobs.data(), 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
    const cl_int n = static_cast<cl_int>(jobs.size());
    const size_t global = (jobs.size() + kSetItems - 1) / kSetItems * kSetItems;
    for (size_t s = 0; s < sources.size(); ++s) {
      const cl_int source = static_cast<cl_int>(s);
      m.model_k.args(jobs_d, n, source, sources[s], figures_d);
      check(cl().clEnqueueNDRangeKernel(queue, m.model_k.k, 1, nullptr, &global, &kSetItems, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel (model_blocks)");
    }
    check(cl().clEnqueueReadBuffer(queue, figures_d, CL_TRUE, 0, figures.size() * sizeof(ModelFigures), figures.data(), 0, nullptr,
                                   nullptr),
          "clEnqueueReadBuffer");
  } catch (...) {
    cl().clFinish(queue);
    throw;
  }
  for (size_t i = 0; i < figures.size(); ++i) {
    const ModelFigures& f = figures[i];
    out[i].estimates.resize(static_cast<size_t>(f.planes));
    for (int p = 0; p < f.planes; ++p) out[i].estimates[static_cast<size_t>(p)] = ht::PlaneEstimate{f.bytes[p], f.removed[p]};
    out[i].energy = f.energy;
  }
  return out;
}

}  // namespace j2k::codec::opencl
