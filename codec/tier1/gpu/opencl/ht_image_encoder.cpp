// SPDX-License-Identifier: BSD-2-Clause
// The 9/7's blocks quantised into the scratch, packed (rows `width` apart), by the batch's
// quantise_blocks kernel; then the batch codes every block (or models them, or codes the sets
// of HT rate control) on the same queue.
#include "codec/tier1/gpu/opencl/ht_image_encoder.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "codec/tier1/gpu/opencl/ht_block_encoder.hpp"
#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "common/error.hpp"
#include "common/parallel/parallel_for.hpp"
#include "device/opencl/opencl_device.hpp"

namespace j2k::codec::opencl {

using ocl::check;
using ocl::cl;

namespace {

// The encoder's command queue, made on first use; its work waited for before it goes.
struct OwnQueue {
  cl_command_queue queue = nullptr;
  OwnQueue() = default;
  OwnQueue(const OwnQueue&) = delete;
  OwnQueue& operator=(const OwnQueue&) = delete;
  ~OwnQueue() {
    if (queue) {
      cl().clFinish(queue);
      cl().clReleaseCommandQueue(queue);
    }
  }
};

// Where a block's int32 indices lie for the batch.
struct Placed {
  const void* base;
  size_t offset;  // bytes
  ptrdiff_t stride;
};

}  // namespace

struct HtImageEncoder::Impl {
  int device = -1, threads = 0;
  bool targets = false;
  OwnQueue own;                    // declared first: it goes after the buffers and the batch
  cl_context context = nullptr;    // the device's (ocl::context_for)
  uint64_t max_alloc = 0;          // the device's largest buffer
  ocl::Buffer scratch, flag;
  HtEncodeBatch batch;             // goes first (it waits for its own reads)
  std::vector<HtEncodeBatch::QuantiseJob> jobs;

  // The 5/3's blocks where the plan left them; the 9/7's in the scratch once quantise_blocks
  // has run (enqueued here on `queue`, the flag cleared first).
  std::vector<Placed> place(const std::vector<BatchBlock>& blocks, bool reversible, cl_command_queue queue);
  // After place() of the 9/7 and the work that follows it on the (in-order) queue: the CPU
  // path's message (encoder.cpp) where a coefficient was too large for its step.
  void check_quantised(bool reversible, cl_command_queue queue);

  cl_command_queue queue() {
    if (own.queue) return own.queue;
    const ocl::DeviceInfo d = ocl::list_devices()[static_cast<size_t>(ocl::select_device(device))];
    max_alloc = d.max_alloc;
    context = ocl::context_for(d);
    cl_int err = CL_SUCCESS;
    own.queue = cl().clCreateCommandQueue(context, d.id, 0, &err);
    check(err, "clCreateCommandQueue");
    return own.queue;
  }
};

HtImageEncoder::HtImageEncoder(int device, int threads, bool targets) : impl_(std::make_unique<Impl>()) {
  impl_->device = device;
  impl_->threads = threads;
  impl_->targets = targets;
}
HtImageEncoder::~HtImageEncoder() = default;

bool HtImageEncoder::estimates_distortion() const { return impl_->targets; }

uint64_t HtImageEncoder::host_bytes(const std::vector<BatchBlock>& blocks) const {
  // The results and, at most, every slot's bytes (the packed segments come back exactly).
  uint64_t bytes = 0;
  for (const BatchBlock& b : blocks)
    bytes += ht::align16(ht::cleanup_output_capacity(b.width, b.height)) + sizeof(ht::CleanupResult);
  return bytes;
}

std::vector<Placed> HtImageEncoder::Impl::place(const std::vector<BatchBlock>& blocks, bool reversible, cl_command_queue queue) {
  Impl& m = *this;
  std::vector<Placed> out;
  out.reserve(blocks.size());
  if (reversible) {
    for (const BatchBlock& b : blocks) out.push_back({b.base, b.offset, b.stride});
    return out;
  }
  const cl_context ctx = m.context;
  uint64_t total = 0;
  for (const BatchBlock& b : blocks) total += static_cast<uint64_t>(b.width) * static_cast<uint64_t>(b.height);
  const uint64_t bytes = std::max<uint64_t>(total * sizeof(int32_t), 16);
  if (m.max_alloc > 0 && bytes > m.max_alloc)
    throw Error(ErrorCode::OutOfMemory, "OpenCL: the 9/7's quantised coefficients need a buffer of " + std::to_string(bytes) +
                                            " bytes; the device allows at most " + std::to_string(m.max_alloc) +
                                            " (choose smaller tiles, or the cpu backend)");
  if (m.scratch.bytes() < bytes) m.scratch = ocl::Buffer(ctx, bytes);
  if (!m.flag.get()) m.flag = ocl::Buffer(ctx, sizeof(uint32_t));
  m.jobs.clear();
  uint64_t at = 0;
  const void* source = nullptr;
  for (const BatchBlock& b : blocks) {
    if (source == nullptr) source = b.base;
    if (b.base != source || b.offset % 4 != 0)
      throw Error(ErrorCode::Internal, "OpenCL HT image encoder: the 9/7's blocks in one buffer, at whole floats");
    HtEncodeBatch::QuantiseJob j{};
    j.src = b.offset / 4;
    j.stride = b.stride;
    j.dst = at;
    j.scale = std::ldexp(1.0, b.fraction_bits) / b.delta;  // as quantise_block computes it
    j.width = b.width;
    j.height = b.height;
    m.jobs.push_back(j);
    out.push_back({m.scratch.get(), static_cast<size_t>(at * 4), b.width});
    at += static_cast<uint64_t>(b.width) * static_cast<uint64_t>(b.height);
  }
  static constexpr uint32_t kZero = 0;
  check(cl().clEnqueueWriteBuffer(queue, m.flag.get(), CL_FALSE, 0, sizeof kZero, &kZero, 0, nullptr, nullptr), "clEnqueueWriteBuffer");
  m.batch.quantise(m.jobs, source, m.scratch.get(), m.flag.get(), queue);
  return out;
}

void HtImageEncoder::Impl::check_quantised(bool reversible, cl_command_queue queue) {
  Impl& m = *this;
  if (reversible) return;
  uint32_t too_large = 0;
  check(cl().clEnqueueReadBuffer(queue, m.flag.get(), CL_TRUE, 0, sizeof too_large, &too_large, 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
  if (too_large != 0) throw Error(ErrorCode::InvalidArgument, "a 9/7 coefficient is too large for its quantisation step; use a larger step");
}

std::vector<CodedBlock> HtImageEncoder::encode(const std::vector<BatchBlock>& blocks, bool reversible) {
  Impl& m = *impl_;
  cl_command_queue queue = m.queue();
  m.batch.clear();
  std::vector<CodedBlock> coded(blocks.size());
  if (blocks.empty()) return coded;
  const std::vector<Placed> at = m.place(blocks, reversible, queue);
  for (size_t i = 0; i < blocks.size(); ++i) {
    const BatchBlock& b = blocks[i];
    const int fraction_bits = reversible ? 0 : b.fraction_bits;
    // With targets, each block as a set at plane 0: the same cleanup pass with its distortion.
    if (m.targets)
      m.batch.add_set_at(at[i].base, at[i].offset, at[i].stride, b.width, b.height, b.band, fraction_bits, 0, reversible,
                         (b.modes & kModeCausal) != 0);
    else
      m.batch.add_at(at[i].base, at[i].offset, at[i].stride, b.width, b.height, b.band, fraction_bits, 0);
  }
  m.batch.encode(queue);
  m.check_quantised(reversible, queue);  // before the coder's own errors
  m.batch.wait();
  // Each block's record, its bytes left in the batch's host copy (valid until the next encode:
  // the encoder's Tier-2 reads them before), on the CPU's threads.
  parallel_for(static_cast<ptrdiff_t>(blocks.size()), m.threads,
               [&](ptrdiff_t i) { coded[static_cast<size_t>(i)] = m.batch.coded_in_place(static_cast<size_t>(i)); });
  return coded;
}

std::vector<BlockEncodeBatch::HtModel> HtImageEncoder::model_ht_planes(const std::vector<BatchBlock>& blocks, bool reversible) {
  Impl& m = *impl_;
  cl_command_queue queue = m.queue();
  if (blocks.empty()) return {};
  m.batch.clear();
  const std::vector<Placed> at = m.place(blocks, reversible, queue);
  std::vector<HtEncodeBatch::ModelBlock> model(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    HtEncodeBatch::ModelBlock& k = model[i];
    k.base = at[i].base;
    k.offset = at[i].offset;
    k.stride = at[i].stride;
    k.width = blocks[i].width;
    k.height = blocks[i].height;
    k.fraction_bits = reversible ? 0 : blocks[i].fraction_bits;
    k.reversible = reversible;
  }
  std::vector<HtModel> out = m.batch.model(model, queue);
  m.check_quantised(reversible, queue);
  return out;
}

std::vector<CodedBlock> HtImageEncoder::encode_ht_sets(const std::vector<BatchBlock>& blocks,
                                                       const std::vector<std::pair<size_t, int>>& jobs, bool reversible) {
  Impl& m = *impl_;
  cl_command_queue queue = m.queue();
  m.batch.clear();
  std::vector<CodedBlock> coded(jobs.size());
  if (jobs.empty()) return coded;
  // The blocks the jobs name, each quantised once; then a set a job.
  std::vector<size_t> slot(blocks.size(), SIZE_MAX);
  std::vector<BatchBlock> named;
  for (const auto& job : jobs) {
    if (job.first >= blocks.size()) throw Error(ErrorCode::Internal, "HT sets: job of block " + std::to_string(job.first));
    if (slot[job.first] == SIZE_MAX) slot[job.first] = named.size(), named.push_back(blocks[job.first]);
  }
  const std::vector<Placed> at = m.place(named, reversible, queue);
  for (const auto& [block, plane] : jobs) {
    const BatchBlock& b = blocks[block];
    const Placed& p = at[slot[block]];
    m.batch.add_set_at(p.base, p.offset, p.stride, b.width, b.height, b.band, reversible ? 0 : b.fraction_bits, plane, reversible,
                       (b.modes & kModeCausal) != 0);
  }
  m.batch.encode(queue);
  m.check_quantised(reversible, queue);
  m.batch.wait();
  parallel_for(static_cast<ptrdiff_t>(jobs.size()), m.threads,
               [&](ptrdiff_t i) { coded[static_cast<size_t>(i)] = m.batch.coded(static_cast<size_t>(i)); });
  return coded;
}

}  // namespace j2k::codec::opencl
