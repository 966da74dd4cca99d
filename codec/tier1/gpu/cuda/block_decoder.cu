// SPDX-License-Identifier: BSD-2-Clause
// One thread decodes one code-block: block_passes.hpp's passes on device-memory copies of
// their tables, or for an HT block (kModeHt) ht/device_block_decoder.hpp's on a copy of the
// CPU's HT tables uploaded with the blocks, then the ROI shift undone and the dequantisation,
// as dequantiser.cpp does them. The code-blocks are sorted by their bytes, most first, so
// that a warp's threads decode blocks of about the same work and the longest start first. A
// CUDA block is one warp with lanes_for() of its 32 lanes busy (see there).
#include "codec/tier1/gpu/cuda/block_decoder.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "codec/tier1/ebcot/block_passes.hpp"
#include "codec/tier1/gpu/gpu_block_records.hpp"
#include "codec/tier1/ht/cleanup_pass.hpp"
#include "codec/tier1/ht/device_block_decoder.hpp"
#include "common/error.hpp"
#include "device/cuda/buffers.hpp"
#include "device/cuda/cuda_check.hpp"

namespace j2k::codec::cuda {
namespace {

__device__ const mq_detail::NextWords kDeviceNextWords = mq_detail::NextWords();
__device__ const t1::WindowZeroContexts kDeviceZeroContexts = t1::WindowZeroContexts();
__device__ const t1::SignTable kDeviceSignTable = t1::SignTable();

struct DeviceTables {
  __device__ static uint32_t next_word(unsigned key, uint32_t lps) {
    return static_cast<uint32_t>(kDeviceNextWords.after[key] >> (32 * lps));
  }
  __device__ static const uint8_t* zero_contexts(j2k_band_type band) {
    return band == J2K_BAND_HH ? kDeviceZeroContexts.hh : band == J2K_BAND_HL ? kDeviceZeroContexts.hl : kDeviceZeroContexts.ll_lh;
  }
  __device__ static unsigned sign_entry(unsigned index) { return kDeviceSignTable.entry[index]; }
};

// A block as the kernel reads it (gpu_block_records.hpp).
using DeviceBlock = GpuBlockRecord;

// Where each part of the upload starts, bytes from its base. `counts`: each plane's SEGMARK
// failures, then each plane's corrupt HT blocks, zeros going up; `ht_tables`: the HT
// decoder's tables (cleanup::tables()), where the batch has HT blocks.
struct Layout {
  size_t blocks, planes, counts, segment_bytes, segment_passes, bytes, ht_tables, total;
};

// An HT block, out of line: inlined, its locals would take registers from EBCOT's passes
// (sm_90 ptxas: 4 bytes of spill loads became 48; out of line none, the stack frame 400
// bytes against 224; docs/maintainers/experiments.md).
__device__ __noinline__ bool decode_ht_block(const BlockCode& code, const ht::cleanup::Tables& tables, uint8_t* scratch,
                                             int32_t* out, ptrdiff_t stride) {
  return ht::device::decode_block(code, tables, scratch, out, stride).corrupt;
}

__global__ void __launch_bounds__(32) decode_blocks_kernel(const DeviceBlock* blocks, int count, void* const* planes,
                                                           const uint32_t* segment_bytes, const int* segment_passes,
                                                           const uint8_t* bytes, uint32_t* words, int* segmark_errors,
                                                           int* corrupt_blocks, const ht::cleanup::Tables* ht_tables) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= count) return;
  const DeviceBlock b = blocks[i];
  BlockCode code;
  code.bytes = bytes + b.bytes;
  code.size = b.size;
  code.segment_bytes = segment_bytes + b.segments_at;
  code.segment_passes = segment_passes + b.segments_at;
  code.segments = b.segments;
  code.width = b.width;
  code.height = b.height;
  code.band = static_cast<j2k_band_type>(b.band);
  code.modes = b.modes;
  code.bitplanes = b.bitplanes;
  int32_t* out = static_cast<int32_t*>(planes[b.plane]) + b.at;
  if (b.modes & kModeHt) {
    if (decode_ht_block(code, *ht_tables, reinterpret_cast<uint8_t*>(words + b.words), out, b.stride))
      atomicAdd(corrupt_blocks + b.plane, 1);
  } else if (t1::BlockPasses<DeviceTables>(code, words + b.words, out, b.stride).run().segmark_error) {
    atomicAdd(segmark_errors + b.plane, 1);
  }
  // undo_roi_shift and dequantise_reversible / _irreversible (dequantiser.cpp), in place.
  const int shift = b.roi;
  const float half = 0.5f * b.step;
  for (int y = 0; y < b.height; ++y) {
    int32_t* row = out + y * b.stride;
    for (int x = 0; x < b.width; ++x) {
      int32_t v = row[x];
      if (shift >= 31) {
        v = 0;
      } else if (shift > 0) {
        int32_t m = v < 0 ? -v : v;
        if (m >= (int32_t{1} << shift)) {
          m >>= shift;
          v = v < 0 ? -m : m;
        }
      }
      if (b.step == 0.0f) row[x] = v / 2;
      else reinterpret_cast<float*>(row)[x] = __fmul_rn(static_cast<float>(v), half);
    }
  }
}

size_t align16(size_t n) { return (n + 15) / 16 * 16; }

}  // namespace

struct BlockBatch::Impl {
  std::vector<uint8_t> upload;  // what goes up, laid out as Layout says

  DeviceBuffer upload_d, words_d, planes_d;
  // SEGMARK failures and corrupt HT blocks: two counters per plane of each batch in flight,
  // read back into page-locked memory.
  static constexpr int kCounters = 64;
  PinnedBuffer counts_h[kCounters];
  cudaEvent_t done[kCounters] = {};
  std::vector<int64_t> tiles_of[kCounters];
  bool pending[kCounters] = {};
  int next = 0;
  std::map<int64_t, int> errors, corrupt;

  // The threads of a CUDA block (one warp): how many of a warp's lanes decode a code-block.
  // The threads of a warp take different branches, decision after decision, so a warp's
  // time is about the sum of its busy lanes' paths, and a warp waits on memory between most
  // of its instructions (Nsight Compute: 9 cycles an instruction, one warp a scheduler with
  // 32 lanes). Light blocks (under kLightBlockBytes on average) decode fastest one a warp,
  // as many warps as blocks; heavy ones (lossless) keep the schedulers issuing, and then
  // the fewest lanes that put every block's warp on the GPU at once are fastest. H200,
  // kernel times of 4096^2 streams for 32, 16, 8, 4, 2, 1 lanes: RGB lossless, 3.1 KB a block,
  // 55.8, 46.3, 42.1, 52.8, 62.2, 79.0 ms (this rule: 8); 16-bit grey lossless, 5.9 KB,
  // 68.8, 56.8, 45.5, 37.7, 34.0, 47.0 (2); RGB -I -r 20, 205 bytes, 47.8, 41.7, 32.3, 24.5,
  // 18.9, 15.9 (1); docs/maintainers/experiments.md.
  static constexpr uint64_t kLightBlockBytes = 1024;
  int resident_warps = 0;  // one-warp CUDA blocks of the kernel the device holds at once
  int lanes_for(int count, uint64_t bytes) {
    if (bytes < kLightBlockBytes * static_cast<uint64_t>(count)) return 1;
    if (resident_warps == 0) {
      int device = 0, sms = 0, per_sm = 0;
      cuda_check(cudaGetDevice(&device), "cudaGetDevice");
      cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
      cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, decode_blocks_kernel, 1, 0),
                 "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
      resident_warps = std::max(1, sms * per_sm);
    }
    int lanes = 1;
    while (lanes < 32 && count > lanes * resident_warps) lanes *= 2;
    return lanes;
  }

  ~Impl() {
    for (cudaEvent_t e : done)
      if (e) cudaEventDestroy(e);
  }

  void harvest(int slot) {
    if (!pending[slot]) return;
    cuda_check(cudaEventSynchronize(done[slot]), "cudaEventSynchronize");
    pending[slot] = false;
    const int* n = static_cast<const int*>(counts_h[slot].data());
    const size_t planes = tiles_of[slot].size();
    for (size_t p = 0; p < planes; ++p) {
      if (n[p] > 0) errors[tiles_of[slot][p]] += n[p];
      if (n[planes + p] > 0) corrupt[tiles_of[slot][p]] += n[planes + p];
    }
  }
};

BlockBatch::BlockBatch() : impl_(std::make_unique<Impl>()) {}
BlockBatch::~BlockBatch() = default;

void BlockBatch::decode(const std::vector<Plane>& plane_list, const std::vector<size_t>& bytes, void* stream_handle,
                        const std::vector<int64_t>& tiles) {
  Impl& m = *impl_;
  GpuBlockRecords& r = records();
  if (r.blocks.empty()) return;
  if (tiles.size() != plane_list.size() || bytes.size() != plane_list.size() || plane_list.size() > kMaxPlanes)
    throw Error(ErrorCode::Internal, "BlockBatch::decode: bytes and a tile for each plane, at most kMaxPlanes");
  std::vector<void*> planes(plane_list.size());
  for (size_t p = 0; p < planes.size(); ++p) planes[p] = static_cast<char*>(plane_list[p].base) + plane_list[p].offset;
  auto stream = static_cast<cudaStream_t>(stream_handle);
  r.sort_by_bytes();
  Layout l{};
  l.blocks = 0;
  l.planes = align16(l.blocks + r.blocks.size() * sizeof(DeviceBlock));
  l.counts = align16(l.planes + planes.size() * sizeof(void*));
  const size_t counts = 2 * planes.size();  // SEGMARK failures, then corrupt HT blocks
  l.segment_bytes = align16(l.counts + counts * sizeof(int));
  l.segment_passes = align16(l.segment_bytes + r.segment_bytes.size() * sizeof(uint32_t));
  l.bytes = align16(l.segment_passes + r.segment_passes.size() * sizeof(int));
  l.ht_tables = align16(l.bytes + r.bytes.size() + 1);
  l.total = align16(l.ht_tables + (r.ht ? sizeof(ht::cleanup::Tables) : 0));
  m.upload.resize(l.total);
  uint8_t* u = m.upload.data();
  std::memcpy(u + l.blocks, r.blocks.data(), r.blocks.size() * sizeof(DeviceBlock));
  std::memcpy(u + l.planes, planes.data(), planes.size() * sizeof(void*));
  std::memset(u + l.counts, 0, counts * sizeof(int));
  // 11 KiB, with the blocks: no state per device to keep.
  if (r.ht) std::memcpy(u + l.ht_tables, &ht::cleanup::tables(), sizeof(ht::cleanup::Tables));
  std::memcpy(u + l.segment_bytes, r.segment_bytes.data(), r.segment_bytes.size() * sizeof(uint32_t));
  std::memcpy(u + l.segment_passes, r.segment_passes.data(), r.segment_passes.size() * sizeof(int));
  if (!r.bytes.empty()) std::memcpy(u + l.bytes, r.bytes.data(), r.bytes.size());

  // The device buffers are reused by the next batch on the same stream, after this one's work.
  auto* up = static_cast<uint8_t*>(m.upload_d.get(l.total));
  auto* words = static_cast<uint32_t*>(m.words_d.get(std::max<uint64_t>(r.words, 1) * sizeof(uint32_t)));
  if (!m.done[0])
    for (cudaEvent_t& e : m.done) cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  const int slot = m.next;
  m.next = (m.next + 1) % Impl::kCounters;
  m.harvest(slot);  // its counters' last batch, long done
  void* counts_h = m.counts_h[slot].get(counts * sizeof(int));
  int* counts_d = reinterpret_cast<int*>(up + l.counts);
  // From pageable memory: the copy is staged before it returns, so `upload` may be reused.
  cuda_check(cudaMemcpyAsync(up, u, l.total, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  const int count = static_cast<int>(r.blocks.size());
  const int lanes = m.lanes_for(count, r.bytes.size());
  decode_blocks_kernel<<<(count + lanes - 1) / lanes, lanes, 0, stream>>>(
      reinterpret_cast<const DeviceBlock*>(up + l.blocks), count, reinterpret_cast<void* const*>(up + l.planes),
      reinterpret_cast<const uint32_t*>(up + l.segment_bytes), reinterpret_cast<const int*>(up + l.segment_passes),
      up + l.bytes, words, counts_d, counts_d + planes.size(), reinterpret_cast<const ht::cleanup::Tables*>(up + l.ht_tables));
  cuda_check(cudaGetLastError(), "decode_blocks_kernel");
  cuda_check(cudaMemcpyAsync(counts_h, counts_d, counts * sizeof(int), cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync");
  cuda_check(cudaEventRecord(m.done[slot], stream), "cudaEventRecord");
  m.tiles_of[slot] = tiles;
  m.pending[slot] = true;
}

void* BlockBatch::own_buffer(size_t bytes, void*) { return impl_->planes_d.get(bytes); }

void BlockBatch::copy(const Plane& from, const Plane& to, size_t bytes, void* stream) {
  cuda_check(cudaMemcpyAsync(static_cast<char*>(to.base) + to.offset, static_cast<const char*>(from.base) + from.offset, bytes,
                             cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream)),
             "cudaMemcpyAsync");
}

std::map<int64_t, int> BlockBatch::segmark_errors() {
  Impl& m = *impl_;
  for (int s = 0; s < Impl::kCounters; ++s) m.harvest(s);
  std::map<int64_t, int> out;
  out.swap(m.errors);
  return out;
}

std::map<int64_t, int> BlockBatch::corrupt_blocks() {
  Impl& m = *impl_;
  for (int s = 0; s < Impl::kCounters; ++s) m.harvest(s);
  std::map<int64_t, int> out;
  out.swap(m.corrupt);
  return out;
}

}  // namespace j2k::codec::cuda
