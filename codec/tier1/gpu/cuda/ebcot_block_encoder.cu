// SPDX-License-Identifier: BSD-2-Clause
// One thread codes one code-block's EBCOT passes (ebcot/encode_passes.hpp, the code the host
// emulation runs), the block's coefficients read where they are, on device copies of the
// coder's tables. The blocks are sorted by their samples, most first, so that a warp's
// threads code blocks of about the same work and the largest start first (as the decoder's
// kernel sorts by bytes: cuda/block_decoder.cu).
//
// Device memory, each grown to the largest batch and kept (no allocation once the geometry has
// been seen): the blocks' records; a slot arena (encode_slot_bytes() a block, its worst case
// but for noise of 31 bit planes, which the CPU codes instead: gpu_ebcot_encode_batch.hpp);
// a flag-word arena (encode_words() a block); the passes (kMaxEncodedPasses a block) and the
// results. Then the segments and the passes are packed end to end (each block's offset the
// sum of the sizes before it, CUB's scan), and only the results and the packed bytes and
// passes come back, into page-locked memory.
#include "codec/tier1/gpu/cuda/batch_fence.hpp"
#include "codec/tier1/gpu/cuda/ebcot_block_encoder.hpp"

#include <cuda_runtime_api.h>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier1/ebcot/encode_passes.hpp"
#include "common/error.hpp"
#include "device/cuda/buffers.hpp"
#include "device/cuda/cuda_check.hpp"

namespace j2k::codec::cuda {
namespace {

// Table C.2 as one constant object, so that the device holds a copy.
struct QeTable {
  mq_detail::QeState state[47];
  constexpr QeTable() : state() {
    for (int k = 0; k < 47; ++k) state[k] = mq_detail::kStates[k];
  }
};

__device__ const QeTable kDeviceQeTable = QeTable();
__device__ const t1::WindowZeroContexts kDeviceZeroContexts = t1::WindowZeroContexts();
__device__ const t1::SignTable kDeviceSignTable = t1::SignTable();

struct DeviceEncodeTables {
  __device__ static const mq_detail::QeState& qe_state(int index) { return kDeviceQeTable.state[index]; }
  __device__ static const uint8_t* zero_contexts(j2k_band_type band) {
    return band == J2K_BAND_HH ? kDeviceZeroContexts.hh : band == J2K_BAND_HL ? kDeviceZeroContexts.hl : kDeviceZeroContexts.ll_lh;
  }
  __device__ static unsigned sign_entry(unsigned index) { return kDeviceSignTable.entry[index]; }
};

// A block as the kernels read it.
struct DeviceEbcotBlock {
  const int32_t* data;  // its first coefficient; rows `stride` values apart
  int64_t stride;
  uint64_t slot;        // its slot: the slot arena's bytes from here
  uint64_t words;       // its flag words: the word arena's words from here
  uint32_t capacity;    // its slot's bytes
  uint32_t index;       // its add() order: where its passes and results go
  int16_t width, height;
  uint8_t band, fraction_bits, modes, flags;  // flags: kReversible, kEstimate
};
constexpr uint8_t kReversible = 1, kEstimate = 2;

__global__ void encode_blocks_kernel(const DeviceEbcotBlock* blocks, int count, uint8_t* slots, uint32_t* words,
                                     t1::EncodedPass* passes, t1::EncodeResult* results, uint64_t* sizes, uint64_t* pass_counts) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= count) return;
  const DeviceEbcotBlock b = blocks[i];
  BlockView v;
  v.data = b.data;
  v.stride = b.stride;
  v.width = b.width;
  v.height = b.height;
  v.band = static_cast<j2k_band_type>(b.band);
  v.fraction_bits = b.fraction_bits;
  v.modes = b.modes;
  v.reversible = (b.flags & kReversible) != 0;
  v.estimate_distortion = (b.flags & kEstimate) != 0;
  const t1::EncodeResult r = t1::BlockEncodePasses<DeviceEncodeTables>(v, slots + b.slot, b.capacity, words + b.words,
                                                                       passes + static_cast<size_t>(b.index) * t1::kMaxEncodedPasses)
                                 .run();
  results[b.index] = r;
  const bool coded = r.status == t1::kEncodeCoded;  // a block out of room brings back nothing
  sizes[b.index] = coded ? r.bytes : 0;
  pass_counts[b.index] = coded ? r.passes : 0;
}

// Threads of a CUDA block of the packing kernel: one CUDA block moves one code-block's output.
constexpr int kPackThreads = 128;

__global__ void __launch_bounds__(kPackThreads) pack_kernel(const DeviceEbcotBlock* blocks, const uint8_t* slots,
                                                            const t1::EncodedPass* passes, const uint64_t* sizes,
                                                            const uint64_t* offsets, const uint64_t* pass_counts,
                                                            const uint64_t* pass_offsets, uint8_t* packed,
                                                            t1::EncodedPass* packed_passes) {
  const DeviceEbcotBlock b = blocks[blockIdx.x];
  const uint8_t* from = slots + b.slot + 1;  // the slot's first byte is the MQ coder's (encode_passes.hpp)
  uint8_t* to = packed + offsets[b.index];
  const uint64_t n = sizes[b.index];
  for (uint64_t k = threadIdx.x; k < n; k += kPackThreads) to[k] = from[k];
  const t1::EncodedPass* pass_from = passes + static_cast<size_t>(b.index) * t1::kMaxEncodedPasses;
  t1::EncodedPass* pass_to = packed_passes + pass_offsets[b.index];
  for (uint64_t k = threadIdx.x; k < pass_counts[b.index]; k += kPackThreads) pass_to[k] = pass_from[k];
}

}  // namespace

struct EbcotEncodeBatch::Impl {
  std::vector<DeviceEbcotBlock> blocks;  // in add() order
  std::vector<DeviceEbcotBlock> sorted;  // what goes up: by samples, most first
  uint64_t slot_bytes = 0, word_count = 0;  // the arenas the blocks added need

  DeviceBuffer blocks_d, slots_d, words_d, passes_d, results_d, sizes_d, offsets_d, pass_counts_d, pass_offsets_d, scan_d,
      packed_d, packed_passes_d;
  PinnedBuffer output_h, passes_h, results_h;
  std::vector<uint64_t> offsets, pass_offsets;  // block i's at output_h + offsets[i], passes_h + pass_offsets[i]
  std::map<size_t, CodedBlock> on_host;        // the blocks that outgrew their slots, coded on the CPU
  void* stream = nullptr;
  BatchFence fence;  // the last encode()'s work; pending: wait() has not run since
  bool ready = false;    // wait() returned for the blocks of the last encode()
  size_t encoded = 0;

  // One-thread CUDA blocks the device holds at once (0: not asked yet).
  int resident = 0;
  // Threads of a CUDA block: the fewest that put every code-block's thread on the GPU at once
  // (a warp's time is about the sum of its busy lanes' paths, which diverge decision after
  // decision; cuda/block_decoder.cu's measurements), up to a warp.
  int threads_for(int count) {
    if (resident == 0) {
      int device = 0, sms = 0, per_sm = 0;
      cuda_check(cudaGetDevice(&device), "cudaGetDevice");
      cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
      cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, encode_blocks_kernel, 1, 0),
                 "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
      resident = std::max(1, sms * per_sm);
    }
    int threads = 1;
    while (threads < 32 && count > threads * resident) threads *= 2;
    return threads;
  }

  const t1::EncodeResult& result(size_t i) const { return static_cast<const t1::EncodeResult*>(results_h.data())[i]; }
  void check_ready(size_t i, const char* call) const {
    if (!ready || i >= encoded)
      throw Error(ErrorCode::Internal, std::string("GpuEbcotEncodeBatch::") + call + ": block " + std::to_string(i) + " of " +
                                           std::to_string(ready ? encoded : 0) + " coded and waited for");
  }
};

EbcotEncodeBatch::EbcotEncodeBatch() : impl_(std::make_unique<Impl>()) {}
EbcotEncodeBatch::~EbcotEncodeBatch() = default;

void EbcotEncodeBatch::clear() {
  impl_->fence.wait();  // its records name the blocks in flight
  impl_->blocks.clear();
  impl_->slot_bytes = 0;
  impl_->word_count = 0;
  impl_->ready = false;
  impl_->on_host.clear();
}

size_t EbcotEncodeBatch::add(const BlockView& v) {
  check_gpu_ebcot_block(v);
  Impl& m = *impl_;
  DeviceEbcotBlock b{};
  b.data = v.data;
  b.stride = v.stride;
  b.slot = m.slot_bytes;
  b.words = m.word_count;
  b.capacity = static_cast<uint32_t>(t1::encode_slot_bytes(v.width, v.height));
  b.index = static_cast<uint32_t>(m.blocks.size());
  b.width = static_cast<int16_t>(v.width);
  b.height = static_cast<int16_t>(v.height);
  b.band = static_cast<uint8_t>(v.band);
  b.fraction_bits = static_cast<uint8_t>(v.fraction_bits);
  b.modes = v.modes;
  b.flags = static_cast<uint8_t>((v.reversible ? kReversible : 0) | (v.estimate_distortion ? kEstimate : 0));
  m.slot_bytes += b.capacity;  // a multiple of 16
  m.word_count += (t1::encode_words(v.width, v.height) + 3) / 4 * 4;
  m.blocks.push_back(b);
  return m.blocks.size() - 1;
}

size_t EbcotEncodeBatch::size() const { return impl_->blocks.size(); }

void EbcotEncodeBatch::encode(void* stream_handle) {
  Impl& m = *impl_;
  auto stream = static_cast<cudaStream_t>(stream_handle);
  m.fence.wait();  // the last batch's copies into the page-locked buffers, which this one reuses
  m.ready = false;
  m.on_host.clear();
  m.stream = stream_handle;
  m.encoded = m.blocks.size();
  if (m.blocks.empty()) {
    m.ready = true;
    return;
  }

  const size_t count = m.blocks.size();
  m.sorted = m.blocks;
  std::stable_sort(m.sorted.begin(), m.sorted.end(), [](const DeviceEbcotBlock& a, const DeviceEbcotBlock& b) {
    return int{a.width} * a.height > int{b.width} * b.height;
  });
  const size_t pass_slots = count * t1::kMaxEncodedPasses;
  auto* blocks = static_cast<DeviceEbcotBlock*>(m.blocks_d.get(count * sizeof(DeviceEbcotBlock)));
  auto* slots = static_cast<uint8_t*>(m.slots_d.get(m.slot_bytes));
  auto* words = static_cast<uint32_t*>(m.words_d.get(m.word_count * sizeof(uint32_t)));
  auto* passes = static_cast<t1::EncodedPass*>(m.passes_d.get(pass_slots * sizeof(t1::EncodedPass)));
  auto* results = static_cast<t1::EncodeResult*>(m.results_d.get(count * sizeof(t1::EncodeResult)));
  auto* sizes = static_cast<uint64_t*>(m.sizes_d.get(count * sizeof(uint64_t)));
  auto* offsets = static_cast<uint64_t*>(m.offsets_d.get(count * sizeof(uint64_t)));
  auto* pass_counts = static_cast<uint64_t*>(m.pass_counts_d.get(count * sizeof(uint64_t)));
  auto* pass_offsets = static_cast<uint64_t*>(m.pass_offsets_d.get(count * sizeof(uint64_t)));
  // At most the slots' bytes and passes: the packed ones are no more than those they come from.
  auto* packed = static_cast<uint8_t*>(m.packed_d.get(m.slot_bytes));
  auto* packed_passes = static_cast<t1::EncodedPass*>(m.packed_passes_d.get(pass_slots * sizeof(t1::EncodedPass)));
  void* results_h = m.results_h.get(count * sizeof(t1::EncodeResult));
  const int n = static_cast<int>(count);
  size_t scan_bytes = 0;
  cuda_check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, sizes, offsets, n, stream), "cub::DeviceScan::ExclusiveSum");
  void* scan = m.scan_d.get(scan_bytes);
  // From pageable memory: staged before the call returns, so `sorted` may change after it.
  cuda_check(cudaMemcpyAsync(blocks, m.sorted.data(), count * sizeof(DeviceEbcotBlock), cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync");
  const int threads = m.threads_for(n);
  encode_blocks_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(blocks, n, slots, words, passes, results, sizes,
                                                                            pass_counts);
  cuda_check(cudaGetLastError(), "encode_blocks_kernel");
  cuda_check(cub::DeviceScan::ExclusiveSum(scan, scan_bytes, sizes, offsets, n, stream), "cub::DeviceScan::ExclusiveSum");
  cuda_check(cub::DeviceScan::ExclusiveSum(scan, scan_bytes, pass_counts, pass_offsets, n, stream), "cub::DeviceScan::ExclusiveSum");
  pack_kernel<<<static_cast<unsigned>(n), kPackThreads, 0, stream>>>(blocks, slots, passes, sizes, offsets, pass_counts,
                                                                     pass_offsets, packed, packed_passes);
  cuda_check(cudaGetLastError(), "pack_kernel");
  cuda_check(cudaMemcpyAsync(results_h, results, count * sizeof(t1::EncodeResult), cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync");
  m.fence.record(stream);
}

void EbcotEncodeBatch::wait() {
  Impl& m = *impl_;
  if (!m.fence.wait()) return;
  // The offsets the scans gave, again on the host (the same sums in the same order), and the
  // packed bytes and passes, now that their totals are known.
  m.offsets.resize(m.encoded);
  m.pass_offsets.resize(m.encoded);
  uint64_t total = 0, total_passes = 0;
  std::vector<size_t> out_of_room;
  for (size_t i = 0; i < m.encoded; ++i) {
    const t1::EncodeResult& r = m.result(i);
    m.offsets[i] = total;
    m.pass_offsets[i] = total_passes;
    if (r.status == t1::kEncodeOutOfRoom) {
      out_of_room.push_back(i);
      continue;
    }
    if (r.status != t1::kEncodeCoded)
      throw Error(ErrorCode::Internal, "GPU EBCOT encoder: block " + std::to_string(i) + ": status " + std::to_string(r.status) +
                                           " from the kernel");
    total += r.bytes;
    total_passes += r.passes;
  }
  auto stream = static_cast<cudaStream_t>(m.stream);
  if (total > 0) {
    void* output_h = m.output_h.get(total);
    cuda_check(cudaMemcpyAsync(output_h, m.packed_d.data(), total, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  }
  if (total_passes > 0) {
    void* passes_h = m.passes_h.get(total_passes * sizeof(t1::EncodedPass));
    cuda_check(cudaMemcpyAsync(passes_h, m.packed_passes_d.data(), total_passes * sizeof(t1::EncodedPass), cudaMemcpyDeviceToHost,
                               stream),
               "cudaMemcpyAsync");
  }
  if (total > 0 || total_passes > 0) cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  // The blocks that outgrew their slots: encode_block() on a copy of their coefficients.
  std::vector<int32_t> copy;
  for (size_t i : out_of_room) {
    const DeviceEbcotBlock& b = m.blocks[i];
    copy.resize(static_cast<size_t>(b.width) * static_cast<size_t>(b.height));
    cuda_check(cudaMemcpy2D(copy.data(), static_cast<size_t>(b.width) * sizeof(int32_t), b.data,
                            static_cast<size_t>(b.stride) * sizeof(int32_t), static_cast<size_t>(b.width) * sizeof(int32_t),
                            static_cast<size_t>(b.height), cudaMemcpyDeviceToHost),
               "cudaMemcpy2D");
    BlockView v;
    v.data = copy.data();
    v.stride = b.width;
    v.width = b.width;
    v.height = b.height;
    v.band = static_cast<j2k_band_type>(b.band);
    v.fraction_bits = b.fraction_bits;
    v.modes = b.modes;
    v.reversible = (b.flags & kReversible) != 0;
    v.estimate_distortion = (b.flags & kEstimate) != 0;
    m.on_host[i] = encode_block(v);
  }
  m.ready = true;
}

CodedBlock EbcotEncodeBatch::coded(size_t i) const {
  CodedBlock c = coded_in_place(i);
  if (c.external) {
    c.bytes.assign(c.external, c.external + c.passes.back().end);
    c.external = nullptr;
  }
  return c;
}

CodedBlock EbcotEncodeBatch::coded_in_place(size_t i) const {
  const Impl& m = *impl_;
  m.check_ready(i, "coded");
  const auto host = m.on_host.find(i);
  if (host != m.on_host.end()) return host->second;
  const t1::EncodedPass* passes = static_cast<const t1::EncodedPass*>(m.passes_h.data()) + m.pass_offsets[i];
  const uint8_t* bytes = static_cast<const uint8_t*>(m.output_h.data()) + m.offsets[i];
  return coded_block_of(m.result(i), passes, bytes);
}

size_t EbcotEncodeBatch::coded_on_host() const { return impl_->on_host.size(); }

}  // namespace j2k::codec::cuda
