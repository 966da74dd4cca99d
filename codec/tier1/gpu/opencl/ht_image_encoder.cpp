// SPDX-License-Identifier: BSD-2-Clause
// The 9/7's blocks quantised into the scratch, packed (rows `width` apart), by the batch's
// quantise_blocks kernel; then the batch codes every block on the same queue.
#include "codec/tier1/gpu/opencl/ht_image_encoder.hpp"

#include <cmath>
#include <string>

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

}  // namespace

struct HtImageEncoder::Impl {
  int device = -1, threads = 0;
  OwnQueue own;                    // declared first: it goes after the buffers and the batch
  cl_context context = nullptr;    // the device's (ocl::context_for)
  uint64_t max_alloc = 0;          // the device's largest buffer
  ocl::Buffer scratch, flag;
  HtEncodeBatch batch;             // goes first (it waits for its own reads)
  std::vector<HtEncodeBatch::QuantiseJob> jobs;

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

HtImageEncoder::HtImageEncoder(int device, int threads) : impl_(std::make_unique<Impl>()) {
  impl_->device = device;
  impl_->threads = threads;
}
HtImageEncoder::~HtImageEncoder() = default;

uint64_t HtImageEncoder::host_bytes(const std::vector<BatchBlock>& blocks) const {
  // The results and, at most, every slot's bytes (the packed segments come back exactly).
  uint64_t bytes = 0;
  for (const BatchBlock& b : blocks)
    bytes += ht::align16(ht::cleanup_output_capacity(b.width, b.height)) + sizeof(ht::CleanupResult);
  return bytes;
}

std::vector<CodedBlock> HtImageEncoder::encode(const std::vector<BatchBlock>& blocks, bool reversible) {
  Impl& m = *impl_;
  cl_command_queue queue = m.queue();
  const cl_context ctx = m.context;
  m.batch.clear();
  std::vector<CodedBlock> coded(blocks.size());
  if (blocks.empty()) return coded;
  uint32_t too_large = 0;
  if (reversible) {
    for (const BatchBlock& b : blocks) m.batch.add_at(b.base, b.offset, b.stride, b.width, b.height, b.band, 0, 0);
    m.batch.encode(queue);
  } else {
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
      m.batch.add_at(m.scratch.get(), at * 4, b.width, b.width, b.height, b.band, b.fraction_bits, 0);
      at += static_cast<uint64_t>(b.width) * static_cast<uint64_t>(b.height);
    }
    static constexpr uint32_t kZero = 0;
    check(cl().clEnqueueWriteBuffer(queue, m.flag.get(), CL_FALSE, 0, sizeof kZero, &kZero, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
    m.batch.quantise(m.jobs, source, m.scratch.get(), m.flag.get(), queue);
    m.batch.encode(queue);
    // The queue is in order: the flag's read waits for the quantisation (and the coding).
    check(cl().clEnqueueReadBuffer(queue, m.flag.get(), CL_TRUE, 0, sizeof too_large, &too_large, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
  }
  if (too_large != 0)  // the CPU path's message (encoder.cpp), before the coder's own
    throw Error(ErrorCode::InvalidArgument, "a 9/7 coefficient is too large for its quantisation step; use a larger step");
  m.batch.wait();
  // Each block's record, its bytes left in the batch's host copy (valid until the next encode:
  // the encoder's Tier-2 reads them before), on the CPU's threads.
  parallel_for(static_cast<ptrdiff_t>(blocks.size()), m.threads,
               [&](ptrdiff_t i) { coded[static_cast<size_t>(i)] = m.batch.coded_in_place(static_cast<size_t>(i)); });
  return coded;
}

}  // namespace j2k::codec::opencl
