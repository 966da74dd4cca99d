// SPDX-License-Identifier: BSD-2-Clause
// One warp codes one code-block's HT cleanup pass (warp_cleanup.cuh: a line-pair's quads
// spread over the lanes, the CPU's own writers fed by one lane), the block's coefficients
// read where they are, on device copies of the CPU coder's tables (uploaded once); the bytes
// are the CPU coder's (ht/cleanup_encoder.hpp).
//
// Device memory, each grown to the largest batch and kept (no allocation once the geometry
// has been seen): the blocks' records; an output arena, a slot of each block's worst case
// (cleanup_output_capacity) from a 16-byte boundary, MagSgn written straight into it and MEL
// and VLC after it; a scratch arena (cleanup_scratch_bytes a block: MEL and VLC before
// assembly); the results (CleanupResult a block). Then the segments are packed end to end
// (each block's offset the sum of the sizes before it, CUB's scan), and only the results and
// the packed bytes come back, into page-locked memory: the worst-case slots are many times the
// coded bytes (5 bytes a sample against about half a byte for 8-bit lossless).
//
// A block added as a set (add_set, for rate control) has room in its slot and its scratch for
// SigProp and MagRef too (refinement_encoder.hpp): after the warp's cleanup pass, the warp
// copies the block's indices into shared memory and works out the figures from there, its
// lanes making 32 terms at once and adding them in the CPU's order (the same doubles), then
// its lane 0 codes the refinement passes (each visit depends on those before) and appends them
// to the segment; its figures (HtSetFigures) come back with the results.
#include "codec/tier1/gpu/cuda/batch_fence.hpp"
#include "codec/tier1/gpu/cuda/ht_block_encoder.hpp"

#include <cuda_runtime_api.h>

#include <cub/device/device_scan.cuh>

#include <string>
#include <vector>

#include "codec/tier1/gpu/cuda/warp_cleanup.cuh"
#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "codec/tier1/ht/refinement_encoder.hpp"
#include "codec/tier1/ht/vlc_tables.hpp"
#include "common/error.hpp"
#include "device/cuda/buffers.hpp"
#include "device/cuda/cuda_check.hpp"

namespace j2k::codec::cuda {
namespace {

// A block as the kernel reads it.
struct DeviceHtBlock {
  const int32_t* data;  // its first coefficient; rows `stride` values apart
  int64_t stride;
  uint64_t output;      // its slot: the output arena's bytes from here
  uint64_t scratch;     // its scratch: the scratch arena's bytes from here
  int16_t width, height;
  uint8_t band, fraction_bits, cleanup_plane, flags;  // flags: kSet, kReversible, kCausal
};
constexpr uint8_t kSet = 1, kReversible = 2, kCausal = 4;

// A set's room beyond the cleanup pass's: in its slot, SigProp and MagRef; in its scratch,
// the significance map and the two passes' buffers.
size_t set_output_bytes(int width, int height) {
  const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
  return ht::sigprop_capacity(n) + ht::magref_capacity(n);
}
size_t set_scratch_bytes(int width, int height) {
  const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
  return ht::align16(ht::sigprop_capacity(n)) + ht::magref_capacity(n);
}

// A warp's shared memory for a set: the block's indices, packed, and the refinement passes'
// significance map (at most (1024 + 2) x (4 + 2) bytes: significance_bytes of 4096 samples).
constexpr size_t kSetIndexBytes = 4096 * sizeof(int32_t);
constexpr size_t kSetSharedBytes = kSetIndexBytes + 4096 + 2 * (1024 + 4) + 4 + 12;

constexpr unsigned kAllLanes = 0xFFFFFFFFu;

// Adds term(k, t) for k = 0 .. n-1 into sums[], in k's order, as one thread adding them
// would (the same doubles, bit for bit): the lanes make 32 terms at once, then every lane adds
// them in order; a term whose term() returns false adds nothing (the CPU's `continue`). Every
// lane ends with the same sums.
template <int kSums, class Term>
__device__ void ordered_sums(int n, double (&sums)[kSums], Term term) {
  const int lane = static_cast<int>(ht::warp::lane_id());
  for (int k0 = 0; k0 < n; k0 += 32) {
    double t[kSums];
    for (int s = 0; s < kSums; ++s) t[s] = 0;
    const bool has = k0 + lane < n && term(k0 + lane, t);
    for (unsigned m = __ballot_sync(kAllLanes, has); m != 0; m &= m - 1) {
      const int j = __ffs(static_cast<int>(m)) - 1;
      for (int s = 0; s < kSums; ++s) sums[s] += __shfl_sync(kAllLanes, t[s], j);
    }
  }
}

// The sum of v over the lanes, in integers (exact, so in any order).
__device__ uint64_t lanes_sum(uint64_t v) {
  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(kAllLanes, v, d);
  return v;
}

// The warp's part of a set (see the file's comment): the figures, the significance map and,
// on lane 0, the refinement passes after the cleanup pass `r` (its bytes at `out`), their bytes
// appended to the segment; the block's indices at `staged` (packed), `sig` for the map. The
// figures are refinement_encoder.hpp's, their sums in the CPU's order (ordered_sums).
__device__ void finish_set(const DeviceHtBlock& b, const ht::CleanupPlan& plan, const ht::CleanupResult& r, const int32_t* staged,
                           uint8_t* sig, uint8_t* out, uint8_t* scratch, HtSetFigures& f) {
  const int lane = static_cast<int>(ht::warp::lane_id());
  const int w = b.width, n = b.width * b.height, fb = b.fraction_bits;
  const auto unit = static_cast<double>(uint64_t{1} << fb);  // steps(): m / 2^fraction_bits
  const bool reversible = (b.flags & kReversible) != 0;
  const int plane = b.cleanup_plane;
  const bool refine = plane > 0 && plan.bitplanes != 0;
  if (refine) {  // index_energy
    double energy[1] = {0};
    ordered_sums(n, energy, [&](int k, double* t) {
      const auto m = static_cast<double>(ht::magnitude_of(staged[k]));
      t[0] = m * m;
      return true;
    });
    f.energy = energy[0] / static_cast<double>(uint64_t{1} << (2 * fb));
  } else {
    ht::Plane0Estimate e;
    bool exact = false;
    if (plane == 0) {  // the CPU coder's integer sums where they are exact
      ht::Plane0Sums sums;
      for (int k = lane; k < n; k += 32) ht::add_plane0_sample(sums, ht::magnitude_of(staged[k]), fb, reversible);
      for (int d = 16; d > 0; d >>= 1) sums.any |= __shfl_xor_sync(kAllLanes, sums.any, d);
      sums.energy = lanes_sum(sums.energy);
      sums.removed = lanes_sum(sums.removed);
      exact = ht::exact_plane0(sums, fb, e);
    }
    if (!exact) {  // plane0_estimate
      const double middle = reversible ? 0.0 : 0.5;
      double two[2] = {0, 0};
      ordered_sums(n, two, [&](int k, double* t) {
        const uint32_t m = ht::magnitude_of(staged[k]);
        const double a = static_cast<double>(m) / unit;
        const uint32_t mu = m >> fb;
        const double left = a - (static_cast<double>(mu) + middle);
        t[0] = a * a;
        t[1] = mu != 0 ? a * a - left * left : 0.0;
        return true;
      });
      e.energy = two[0];
      e.distortion = two[1];
    }
    f.energy = e.energy;
    f.removed[0] = e.distortion;
  }
  if (!refine || r.status != ht::kCleanupCoded) return;
  double removed[1] = {0};  // cleanup_removed
  ordered_sums(n, removed, [&](int k, double* t) {
    const uint32_t m = ht::magnitude_of(staged[k]);
    const uint32_t mu = (m >> fb) >> plane;
    if (mu == 0) return false;
    const double a = static_cast<double>(m) / unit, left = a - ht::reconstruction(mu, plane, reversible);
    t[0] = a * a - left * left;
    return true;
  });
  f.removed[0] = removed[0];
  // The map side by side, then the passes on lane 0 (each visit depends on the ones before).
  const int row = w + 2;
  for (int k = lane; k < static_cast<int>(ht::significance_bytes(w, b.height)); k += 32) sig[k] = 0;
  __syncwarp();
  for (int k = lane; k < n; k += 32)
    sig[(k / w + 1) * row + k % w + 1] = ((ht::magnitude_of(staged[k]) >> fb) >> plane) != 0 ? 1 : 0;
  __syncwarp();
  if (lane != 0) return;
  const ht::IndexBlock ib = ht::index_block(staged, w, w, b.height, fb);
  uint8_t* sigprop = scratch;
  uint8_t* magref = sigprop + ht::align16(ht::sigprop_capacity(static_cast<size_t>(n)));
  const ht::Refinement x = ht::encode_refinement(ib, plane, reversible, (b.flags & kCausal) != 0, true, sig, sigprop, magref, true);
  f.removed[1] = x.sigprop_removed;
  f.removed[2] = x.magref_removed;
  f.sigprop_bytes = static_cast<uint32_t>(x.sigprop_bytes);
  f.magref_bytes = static_cast<uint32_t>(x.magref_bytes);
  // One segment: SigProp forward, then MagRef reversed.
  uint8_t* to = out + r.bytes;
  for (size_t k = 0; k < x.sigprop_bytes; ++k) to[k] = sigprop[k];
  to += x.sigprop_bytes;
  for (size_t k = 0; k < x.magref_bytes; ++k) to[k] = magref[x.magref_bytes - 1 - k];
}

// The coder's tables as the device holds them: cleanup_encoder.hpp's CleanupTables point here.
constexpr int kCxtVlcEntries = 8 * 16 * 17;  // [(context * 16 + rho) * 17 + (u_off ? 1 + top : 0)]
struct DeviceTables {
  ht::CxtVlcCodeword cxt_vlc[2][kCxtVlcEntries];  // [1]: the initial line-pair's
  ht::Uvlc uvlc[ht::UvlcTable::kSize];
};

// Warps of a CUDA block, each coding one code-block.
constexpr int kWarps = 4;

__global__ void __launch_bounds__(kWarps * 32) encode_cleanup_kernel(const DeviceHtBlock* blocks, int count, const DeviceTables* tables,
                                                                    uint8_t* output, uint8_t* scratch, ht::CleanupResult* results,
                                                                    HtSetFigures* figures, uint64_t* sizes) {
  __shared__ ht::warp::Shared shared[kWarps];
  extern __shared__ __align__(16) uint8_t set_shared[];  // kSetSharedBytes a warp, where the launch has sets
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(ht::warp::lane_id());
  const int i = static_cast<int>(blockIdx.x) * kWarps + warp;
  if (i >= count) return;  // the whole warp
  const DeviceHtBlock b = blocks[i];
  uint32_t any = 0;
  for (int y = 0; y < b.height; ++y) {
    const int32_t* row = b.data + static_cast<ptrdiff_t>(y) * b.stride;
    for (int x = lane; x < b.width; x += 32) any |= ht::magnitude_of(row[x]);
  }
  for (int d = 16; d > 0; d >>= 1) any |= __shfl_xor_sync(0xFFFFFFFFu, any, d);
  const ht::CleanupPlan plan = ht::plan_cleanup(any >> b.fraction_bits, b.cleanup_plane);
  ht::CleanupResult r;
  r.bitplanes = static_cast<uint8_t>(plan.bitplanes);
  r.magnitude_bitplanes = static_cast<uint8_t>(plan.magnitude_bitplanes);
  if (plan.bitplanes != 0 && plan.too_large) r.status = ht::kCleanupTooLarge;
  if (plan.bitplanes != 0 && !plan.too_large) {  // else no pass (nothing significant at that plane), or none possible
    ht::CleanupTables t;
    t.cxt_vlc[0] = tables->cxt_vlc[0];
    t.cxt_vlc[1] = tables->cxt_vlc[1];
    t.uvlc = tables->uvlc;
    const size_t n = static_cast<size_t>(b.width) * static_cast<size_t>(b.height);
    uint8_t* mel = scratch + b.scratch + ht::align16(ht::CleanupRows::bytes(b.width));
    uint8_t* vlc = mel + ht::align16(ht::mel_capacity(n));
    const size_t bytes = ht::warp::encode_cleanup(b.data, b.stride, b.width, b.height, b.fraction_bits + b.cleanup_plane, t,
                                                  output + b.output, mel, vlc, shared[warp]);
    if (bytes == 0) r.status = ht::kCleanupScupOverflow;
    r.bytes = static_cast<uint32_t>(bytes);
  }
  __syncwarp();  // the cleanup segment written
  // warp::encode_cleanup's outcome is lane 0's: every lane takes it, for the set's part.
  r.bytes = __shfl_sync(kAllLanes, r.bytes, 0);
  r.status = static_cast<uint8_t>(__shfl_sync(kAllLanes, static_cast<unsigned>(r.status), 0));
  uint64_t size = r.bytes;  // 0 where the block has no pass or could not be coded
  if (b.flags & kSet) {
    auto* staged = reinterpret_cast<int32_t*>(set_shared + static_cast<size_t>(warp) * kSetSharedBytes);
    uint8_t* sig = set_shared + static_cast<size_t>(warp) * kSetSharedBytes + kSetIndexBytes;
    const int n = b.width * b.height;
    for (int k = lane; k < n; k += 32) staged[k] = b.data[static_cast<ptrdiff_t>(k / b.width) * b.stride + k % b.width];
    __syncwarp();
    HtSetFigures f;
    finish_set(b, plan, r, staged, sig, output + b.output, scratch + b.scratch + ht::align16(ht::cleanup_scratch_bytes(b.width, b.height)),
               f);
    if (lane == 0) {
      figures[i] = f;
      size += f.sigprop_bytes + f.magref_bytes;
    }
  }
  if (lane == 0) {
    results[i] = r;
    sizes[i] = size;
  }
}

// Threads of a CUDA block of the packing kernel: one CUDA block moves one code-block's bytes.
constexpr int kPackThreads = 128;

// Block i's segment from its slot to `packed` + offsets[i]; words where the segment is long,
// the destination being aligned to no more than a byte.
__global__ void __launch_bounds__(kPackThreads) pack_segments_kernel(const DeviceHtBlock* blocks, const uint8_t* output,
                                                                     const uint64_t* sizes, const uint64_t* offsets,
                                                                     uint8_t* packed) {
  const int i = static_cast<int>(blockIdx.x);
  const uint8_t* from = output + blocks[i].output;
  uint8_t* to = packed + offsets[i];
  const uint64_t n = sizes[i];
  for (uint64_t k = threadIdx.x; k < n; k += kPackThreads) to[k] = from[k];
}

}  // namespace

struct HtEncodeBatch::Impl {
  std::vector<DeviceHtBlock> blocks;
  uint64_t output_bytes = 0, scratch_bytes = 0;  // the arenas the blocks added need
  bool sets = false;  // whether a block was added by add_set (then the figures come back)
  bool set_shared_allowed = false;  // the kernel's dynamic shared memory raised for sets

  DeviceTables host_tables{};  // what goes up, once
  int tables_device = -1;      // the device they went to (-1: not yet)
  DeviceBuffer tables_d, blocks_d, output_d, scratch_d, results_d, figures_d, sizes_d, offsets_d, scan_d, packed_d;
  PinnedBuffer output_h, results_h, figures_h;
  std::vector<uint64_t> offsets;  // block i's bytes at output_h + offsets[i] (after wait())
  void* stream = nullptr;         // the last encode()'s, where wait() copies the packed bytes
  BatchFence fence;  // the last encode()'s work; pending: wait() has not run since
  bool ready = false;    // wait() returned for the blocks of the last encode()
  size_t encoded = 0;    // how many blocks the last encode() coded

  Impl() {
    const ht::CleanupTables t = ht::host_cleanup_tables();
    for (int row = 0; row < 2; ++row)
      for (int k = 0; k < kCxtVlcEntries; ++k) host_tables.cxt_vlc[row][k] = t.cxt_vlc[row][k];
    for (int u = 0; u < ht::UvlcTable::kSize; ++u) host_tables.uvlc[u] = t.uvlc[u];
  }

  const ht::CleanupResult& result(size_t i) const { return static_cast<const ht::CleanupResult*>(results_h.data())[i]; }
  const HtSetFigures& figures(size_t i) const { return static_cast<const HtSetFigures*>(figures_h.data())[i]; }
  bool is_set(size_t i) const { return (blocks[i].flags & kSet) != 0; }
  // Block i's bytes: its cleanup segment and, for a set, its refinement passes'.
  uint64_t segment_bytes(size_t i) const {
    return result(i).bytes + (is_set(i) ? uint64_t{figures(i).sigprop_bytes} + figures(i).magref_bytes : 0);
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
  impl_->fence.wait();  // its records name the blocks in flight
  impl_->blocks.clear();
  impl_->output_bytes = 0;
  impl_->scratch_bytes = 0;
  impl_->sets = false;
  impl_->ready = false;
}

size_t HtEncodeBatch::add(const int32_t* d_data, ptrdiff_t stride, int width, int height, j2k_band_type band, int fraction_bits,
                          int cleanup_plane) {
  check_gpu_ht_block(d_data, stride, width, height, fraction_bits, cleanup_plane);
  Impl& m = *impl_;
  DeviceHtBlock b{};
  b.data = d_data;
  b.stride = stride;
  b.output = m.output_bytes;
  b.scratch = m.scratch_bytes;
  b.width = static_cast<int16_t>(width);
  b.height = static_cast<int16_t>(height);
  b.band = static_cast<uint8_t>(band);
  b.fraction_bits = static_cast<uint8_t>(fraction_bits);
  b.cleanup_plane = static_cast<uint8_t>(cleanup_plane);
  m.output_bytes += ht::align16(ht::cleanup_output_capacity(width, height));
  m.scratch_bytes += ht::align16(ht::cleanup_scratch_bytes(width, height));
  m.blocks.push_back(b);
  return m.blocks.size() - 1;
}

size_t HtEncodeBatch::add_set(const int32_t* d_data, ptrdiff_t stride, int width, int height, j2k_band_type band,
                              int fraction_bits, int cleanup_plane, bool reversible, bool causal) {
  const size_t i = add(d_data, stride, width, height, band, fraction_bits, cleanup_plane);
  Impl& m = *impl_;
  m.blocks[i].flags = static_cast<uint8_t>(kSet | (reversible ? kReversible : 0) | (causal ? kCausal : 0));
  m.output_bytes += ht::align16(set_output_bytes(width, height));
  m.scratch_bytes += ht::align16(set_scratch_bytes(width, height));
  m.sets = true;
  return i;
}

size_t HtEncodeBatch::size() const { return impl_->blocks.size(); }

void HtEncodeBatch::encode(void* stream_handle) {
  Impl& m = *impl_;
  auto stream = static_cast<cudaStream_t>(stream_handle);
  m.fence.wait();  // the last batch's copies into the page-locked buffers, which this one reuses
  m.ready = false;
  m.stream = stream_handle;
  m.encoded = m.blocks.size();
  if (m.blocks.empty()) {
    m.ready = true;
    return;
  }
  int device = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  if (m.tables_device < 0) {
    // From pageable memory: staged before the call returns; host_tables lives as long as the batch.
    void* tables = m.tables_d.get(sizeof(DeviceTables));
    cuda_check(cudaMemcpyAsync(tables, &m.host_tables, sizeof(DeviceTables), cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    m.tables_device = device;
  } else if (device != m.tables_device) {
    throw Error(ErrorCode::Internal, "GpuHtEncodeBatch::encode: on CUDA device " + std::to_string(device) + ", the batch's tables on " +
                                         std::to_string(m.tables_device));
  }

  const size_t count = m.blocks.size();
  auto* blocks = static_cast<DeviceHtBlock*>(m.blocks_d.get(count * sizeof(DeviceHtBlock)));
  auto* output = static_cast<uint8_t*>(m.output_d.get(m.output_bytes));
  auto* scratch = static_cast<uint8_t*>(m.scratch_d.get(m.scratch_bytes));
  auto* results = static_cast<ht::CleanupResult*>(m.results_d.get(count * sizeof(ht::CleanupResult)));
  auto* sizes = static_cast<uint64_t*>(m.sizes_d.get(count * sizeof(uint64_t)));
  auto* offsets = static_cast<uint64_t*>(m.offsets_d.get(count * sizeof(uint64_t)));
  // At most the slots' bytes: the packed segments are no longer than the slots they come from.
  auto* packed = static_cast<uint8_t*>(m.packed_d.get(m.output_bytes));
  void* results_h = m.results_h.get(count * sizeof(ht::CleanupResult));
  auto* figures = m.sets ? static_cast<HtSetFigures*>(m.figures_d.get(count * sizeof(HtSetFigures))) : nullptr;
  const int n = static_cast<int>(count);
  size_t scan_bytes = 0;
  cuda_check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, sizes, offsets, n, stream), "cub::DeviceScan::ExclusiveSum");
  // From pageable memory: staged before the call returns, so `blocks` may change after it.
  cuda_check(cudaMemcpyAsync(blocks, m.blocks.data(), count * sizeof(DeviceHtBlock), cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  const size_t set_shared = m.sets ? kWarps * kSetSharedBytes : 0;
  if (m.sets && !m.set_shared_allowed) {  // above the 48 KiB a launch gets unasked
    cuda_check(cudaFuncSetAttribute(encode_cleanup_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(set_shared)),
               "cudaFuncSetAttribute");
    m.set_shared_allowed = true;
  }
  encode_cleanup_kernel<<<(n + kWarps - 1) / kWarps, kWarps * 32, set_shared, stream>>>(
      blocks, n, static_cast<const DeviceTables*>(m.tables_d.data()), output, scratch, results, figures, sizes);
  cuda_check(cudaGetLastError(), "encode_cleanup_kernel");
  void* scan = m.scan_d.get(scan_bytes);
  cuda_check(cub::DeviceScan::ExclusiveSum(scan, scan_bytes, sizes, offsets, n, stream), "cub::DeviceScan::ExclusiveSum");
  pack_segments_kernel<<<static_cast<unsigned>(n), kPackThreads, 0, stream>>>(blocks, output, sizes, offsets, packed);
  cuda_check(cudaGetLastError(), "pack_segments_kernel");
  cuda_check(cudaMemcpyAsync(results_h, results, count * sizeof(ht::CleanupResult), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  if (m.sets)
    cuda_check(cudaMemcpyAsync(m.figures_h.get(count * sizeof(HtSetFigures)), figures, count * sizeof(HtSetFigures),
                               cudaMemcpyDeviceToHost, stream),
               "cudaMemcpyAsync");
  m.fence.record(stream);
}

void HtEncodeBatch::wait() {
  Impl& m = *impl_;
  if (m.fence.wait()) {
    // The offsets the scan gave, again on the host (the same sums in the same order), and the
    // packed bytes, now that their total is known.
    m.offsets.resize(m.encoded);
    uint64_t total = 0;
    for (size_t i = 0; i < m.encoded; ++i) {
      m.offsets[i] = total;
      total += m.segment_bytes(i);
    }
    if (total > 0) {
      auto stream = static_cast<cudaStream_t>(m.stream);
      void* output_h = m.output_h.get(total);
      cuda_check(cudaMemcpyAsync(output_h, m.packed_d.data(), total, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
      cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
    m.ready = true;
  }
  if (!m.ready) return;
  for (size_t i = 0; i < m.encoded; ++i) {
    const ht::CleanupResult& r = m.result(i);
    if (r.status == ht::kCleanupCoded) continue;
    const DeviceHtBlock& b = m.blocks[i];
    const std::string what = "GPU HT encoder: block " + std::to_string(i) + " (" + std::to_string(b.width) + " x " +
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
  return static_cast<const uint8_t*>(m.output_h.data()) + m.offsets[i];
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
  const ht::CleanupResult& r = m.result(i);
  CodedBlock c;
  c.bitplanes = r.bitplanes;
  c.magnitude_bitplanes = r.magnitude_bitplanes;
  const HtSetFigures* set = m.is_set(i) ? &m.figures(i) : nullptr;
  if (set) c.energy = set->energy;
  if (r.bitplanes == 0) return c;  // no pass
  size_t size = 0;
  c.external = bytes(i, size);
  push_ht_passes(c, r.bytes, set, m.blocks[i].cleanup_plane > 0);
  return c;
}

}  // namespace j2k::codec::cuda
