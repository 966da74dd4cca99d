// SPDX-License-Identifier: BSD-2-Clause
// One CUDA block (kQuantiseThreads threads) quantises one code-block of the 9/7 into the
// scratch, packed (rows `width` apart); then the HT batch codes every block on the same stream.
// HT rate control's plane model: one warp a block, a lane a plane, its figures into a fixed
// record a block.
#include "codec/tier1/gpu/cuda/ht_image_encoder.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <string>

#include "codec/tier1/gpu/cuda/ht_block_encoder.hpp"
#include "codec/tier1/gpu/cuda/own_stream.hpp"
#include "codec/tier1/gpu/cuda/quantise_blocks.cuh"
#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "codec/tier1/ht/plane_estimates.hpp"
#include "common/error.hpp"
#include "common/parallel/parallel_for.hpp"
#include "device/cuda/buffers.hpp"
#include "device/cuda/cuda_check.hpp"

namespace j2k::codec::cuda {
namespace {

// A block's indices for the plane model, and its figures.
struct ModelJob {
  const int32_t* data;
  int64_t stride;
  int32_t width, height, fraction_bits, reversible;
};
struct ModelFigures {
  ht::PlaneEstimate estimates[ht::kMaxEstimatedPlanes];
  double energy;
  int32_t planes;
};

// Warps of a CUDA block of the model kernel, each modelling one code-block: its lane p sums
// plane p's figures over the quads in the CPU's order (ht::estimate_plane), lane 0 also the
// energy, sample by sample.
constexpr int kModelWarps = 4;

__global__ void __launch_bounds__(kModelWarps * 32) model_kernel(const ModelJob* jobs, int count, ModelFigures* figures) {
  const int i = static_cast<int>(blockIdx.x) * kModelWarps + static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (i >= count) return;  // the whole warp
  const ModelJob j = jobs[i];
  uint32_t any = 0;
  for (int y = 0; y < j.height; ++y)
    for (int x = lane; x < j.width; x += 32) any |= ht::magnitude_of(j.data[static_cast<ptrdiff_t>(y) * j.stride + x]);
  for (int d = 16; d > 0; d >>= 1) any |= __shfl_xor_sync(0xFFFFFFFFu, any, d);
  const int planes = ht::bit_length(any >> j.fraction_bits);
  ModelFigures& f = figures[i];
  for (int p = lane; p < planes; p += 32)
    f.estimates[p] = ht::estimate_plane(j.data, j.stride, j.width, j.height, j.fraction_bits, j.reversible != 0, p);
  if (lane == 0) {
    f.planes = planes;
    f.energy = ht::block_energy(j.data, j.stride, j.width, j.height, j.fraction_bits);
  }
}

}  // namespace

struct HtImageEncoder::Impl {
  int device = 0, threads = 0;
  bool targets = false;
  OwnStream own;        // declared first: it goes after the buffers and the batch
  BlockQuantiser quantiser;  // the 9/7's blocks into int32 first
  HtEncodeBatch batch;  // goes first (it waits for its own copies)
  DeviceBuffer model_jobs_d, model_figures_d;
  PinnedBuffer model_figures_h;

  cudaStream_t stream() {
    cuda_check(cudaSetDevice(device), "cudaSetDevice");
    if (!own.stream) cuda_check(cudaStreamCreateWithFlags(&own.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    return own.stream;
  }
  // Calls add(block, its int32 indices, their row stride) for each block, in order: the
  // 5/3's in place, the 9/7's once quantised on `stream`.
  template <class Add>
  void indices(const std::vector<BatchBlock>& blocks, bool reversible, cudaStream_t s, Add add) {
    if (reversible) {
      for (const BatchBlock& b : blocks) add(b, static_cast<const int32_t*>(b.coefficients), b.stride);
    } else {
      quantiser.enqueue(blocks, s, add);
    }
  }
};

HtImageEncoder::HtImageEncoder(int device, int threads, bool targets) : impl_(std::make_unique<Impl>()) {
  impl_->device = device < 0 ? 0 : device;
  impl_->threads = threads;
  impl_->targets = targets;
}
HtImageEncoder::~HtImageEncoder() = default;

bool HtImageEncoder::estimates_distortion() const { return impl_->targets; }

uint64_t HtImageEncoder::host_bytes(const std::vector<BatchBlock>& blocks) const {
  uint64_t bytes = 0;
  for (const BatchBlock& b : blocks)
    bytes += ht::align16(ht::cleanup_output_capacity(b.width, b.height)) + sizeof(ht::CleanupResult);
  return bytes;
}

std::vector<CodedBlock> HtImageEncoder::encode(const std::vector<BatchBlock>& blocks, bool reversible) {
  Impl& m = *impl_;
  const cudaStream_t stream = m.stream();
  m.batch.clear();
  std::vector<CodedBlock> coded(blocks.size());
  if (blocks.empty()) return coded;
  // With targets, each block as a set at plane 0: the same cleanup pass with its distortion.
  m.indices(blocks, reversible, stream, [&](const BatchBlock& b, const int32_t* data, ptrdiff_t stride) {
    const int fraction_bits = reversible ? 0 : b.fraction_bits;
    if (m.targets) m.batch.add_set(data, stride, b.width, b.height, b.band, fraction_bits, 0, reversible, (b.modes & kModeCausal) != 0);
    else m.batch.add(data, stride, b.width, b.height, b.band, fraction_bits, 0);
  });
  m.batch.encode(stream);
  cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (!reversible) m.quantiser.check();  // the CPU path's message, before the coder's own
  m.batch.wait();
  // Each block's record, its bytes left in the batch's page-locked copy (valid until the next
  // encode: the encoder's Tier-2 reads them before), on the CPU's threads.
  parallel_for(static_cast<ptrdiff_t>(blocks.size()), m.threads,
               [&](ptrdiff_t i) { coded[static_cast<size_t>(i)] = m.batch.coded_in_place(static_cast<size_t>(i)); });
  return coded;
}

std::vector<BlockEncodeBatch::HtModel> HtImageEncoder::model_ht_planes(const std::vector<BatchBlock>& blocks, bool reversible) {
  Impl& m = *impl_;
  const cudaStream_t stream = m.stream();
  std::vector<HtModel> out(blocks.size());
  if (blocks.empty()) return out;
  std::vector<ModelJob> jobs;
  jobs.reserve(blocks.size());
  m.indices(blocks, reversible, stream, [&](const BatchBlock& b, const int32_t* data, ptrdiff_t stride) {
    jobs.push_back(ModelJob{data, stride, b.width, b.height, reversible ? 0 : b.fraction_bits, reversible ? 1 : 0});
  });
  const size_t count = jobs.size();
  auto* jobs_d = static_cast<ModelJob*>(m.model_jobs_d.get(count * sizeof(ModelJob)));
  auto* figures_d = static_cast<ModelFigures*>(m.model_figures_d.get(count * sizeof(ModelFigures)));
  auto* figures_h = static_cast<ModelFigures*>(m.model_figures_h.get(count * sizeof(ModelFigures)));
  // From pageable memory: staged before the call returns.
  cuda_check(cudaMemcpyAsync(jobs_d, jobs.data(), count * sizeof(ModelJob), cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  const int n = static_cast<int>(count);
  model_kernel<<<(n + kModelWarps - 1) / kModelWarps, kModelWarps * 32, 0, stream>>>(jobs_d, n, figures_d);
  cuda_check(cudaGetLastError(), "model_kernel");
  cuda_check(cudaMemcpyAsync(figures_h, figures_d, count * sizeof(ModelFigures), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (!reversible) m.quantiser.check();
  for (size_t i = 0; i < count; ++i) {
    const ModelFigures& f = figures_h[i];
    out[i].estimates.assign(f.estimates, f.estimates + f.planes);
    out[i].energy = f.energy;
  }
  return out;
}

std::vector<CodedBlock> HtImageEncoder::encode_ht_sets(const std::vector<BatchBlock>& blocks,
                                                       const std::vector<std::pair<size_t, int>>& jobs, bool reversible) {
  Impl& m = *impl_;
  const cudaStream_t stream = m.stream();
  m.batch.clear();
  std::vector<CodedBlock> coded(jobs.size());
  if (jobs.empty()) return coded;
  // The blocks the jobs name, each quantised once; then a set a job.
  std::vector<size_t> slot(blocks.size(), SIZE_MAX);
  std::vector<BatchBlock> named;
  for (const auto& [block, plane] : jobs) {
    (void)plane;
    if (block >= blocks.size()) throw Error(ErrorCode::Internal, "HT sets: job of block " + std::to_string(block));
    if (slot[block] == SIZE_MAX) slot[block] = named.size(), named.push_back(blocks[block]);
  }
  std::vector<std::pair<const int32_t*, ptrdiff_t>> where;
  where.reserve(named.size());
  m.indices(named, reversible, stream, [&](const BatchBlock&, const int32_t* data, ptrdiff_t stride) { where.emplace_back(data, stride); });
  for (const auto& [block, plane] : jobs) {
    const BatchBlock& b = blocks[block];
    const auto& [data, stride] = where[slot[block]];
    m.batch.add_set(data, stride, b.width, b.height, b.band, reversible ? 0 : b.fraction_bits, plane, reversible,
                    (b.modes & kModeCausal) != 0);
  }
  m.batch.encode(stream);
  cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (!reversible) m.quantiser.check();
  m.batch.wait();
  parallel_for(static_cast<ptrdiff_t>(jobs.size()), m.threads,
               [&](ptrdiff_t i) { coded[static_cast<size_t>(i)] = m.batch.coded(static_cast<size_t>(i)); });
  return coded;
}

}  // namespace j2k::codec::cuda
