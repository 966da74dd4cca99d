// SPDX-License-Identifier: BSD-2-Clause
// Tier-1 decoding of many code-blocks on a GPU, straight into the coefficient planes of the
// GPU back stage, one code-block a GPU thread: what the CUDA batch (cuda/block_decoder) and
// the OpenCL batch (opencl/block_decoder) both offer the decoder. The coefficients are
// decode_block()'s and dequantiser.cpp's bit for bit (tests/gpu_block_batch_test.cpp); only
// the codestream's bytes cross the bus. Part 1 (EBCOT) code-blocks on every batch; HT ones
// (Part 15, kModeHt) on the batches whose decodes_ht() says so (CUDA's runs
// ht/device_block_decoder.hpp, OpenCL's its OpenCL C mirror), block by block, so that an
// HTMIXED tile's go in one batch.
//
//   std::unique_ptr<GpuBlockBatch> batch = make_gpu_block_batch(options);  // one per decoder
//   batch->clear();
//   for each block: coder.check(code); batch->add(code, roi, plane, at, stride, step);
//   batch->decode(planes, bytes, stream, tiles);   // asynchronous on `stream`
//   ... once the stream's work is done: batch->segmark_errors(), batch->corrupt_blocks()
//
// A plane is a Plane of the backend's device memory (transform/queue.hpp: a CUDA pointer, or
// an OpenCL cl_mem, with an offset in bytes); a stream is the back stage's (BackStage::
// end_on_device(): a cudaStream_t, or a cl_command_queue).
//
// A launch lasts as long as its heaviest code-block takes one thread, however few blocks it
// holds: the decoder gathers the blocks of several tiles into one batch, decoded into planes
// of the batch's own (own_planes()), which copy() then moves tile by tile into the back
// stage's.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "codec/tier1/block_coder.hpp"
#include "transform/backend.hpp"
#include "transform/queue.hpp"

namespace j2k::codec {

struct GpuBlockRecords;  // gpu_block_records.hpp: the blocks as the host gathers them

class GpuBlockBatch {
 public:
  GpuBlockBatch();
  virtual ~GpuBlockBatch();
  GpuBlockBatch(const GpuBlockBatch&) = delete;
  GpuBlockBatch& operator=(const GpuBlockBatch&) = delete;

  void clear();
  // How many planes a batch's blocks may go to.
  static constexpr size_t kMaxPlanes = 65536;
  // Whether HT code-blocks may be added (else Part 1's only; the decoder decodes HT ones on
  // the CPU then).
  virtual bool decodes_ht() const { return false; }
  // A block (checked with BlockCoder::check() by the caller) whose coefficients go to planes[plane]
  // at [at + y * stride + x] (in 4-byte values; plane below kMaxPlanes): int32 for the 5/3
  // (step 0), else float, dequantised with `step` (band_step()); `roi`: its component's
  // max-shift. An HT block (kModeHt in code.modes) where decodes_ht() is false throws
  // Error(Internal).
  void add(const BlockCode& code, int roi, size_t plane, int64_t at, int64_t stride, float step);
  size_t size() const;

  // Uploads the blocks and decodes them on `stream` into `planes`, of bytes[p] bytes each:
  // each block writes its rectangle, and a backend may write the rest of a plane too (the
  // OpenCL batch, for planes in several buffers), so the blocks must cover their planes, as
  // the decoder's do. Returns once the host's copies of the blocks may be reused; the work
  // itself is asynchronous. tiles[p]: the tile of planes[p], for segmark_errors().
  virtual void decode(const std::vector<Plane>& planes, const std::vector<size_t>& bytes, void* stream,
                      const std::vector<int64_t>& tiles) = 0;
  // Once the work of the batches decoded so far is done: the tiles whose blocks failed their
  // SEGMARK check, and how many in each; forgets them.
  virtual std::map<int64_t, int> segmark_errors() = 0;
  // The same for HT blocks whose data contradicts itself, decoded as zeros
  // (BlockDecodeReport::corrupt); none on a batch without HT blocks.
  virtual std::map<int64_t, int> corrupt_blocks() { return {}; }

  // Device planes of the batch's own, bytes[p] each (each from a 256-byte boundary of one
  // buffer), for decode(); kept (and reused) until the next call, which must come after the
  // work that reads them (the same stream).
  std::vector<Plane> own_planes(const std::vector<size_t>& bytes, void* stream);
  // Enqueues a device-to-device copy of `bytes` on `stream`.
  virtual void copy(const Plane& from, const Plane& to, size_t bytes, void* stream) = 0;

  // The most bytes one buffer of the device may hold (0: no limit the batch knows of), which
  // own_planes() must stay within: OpenCL's CL_DEVICE_MAX_MEM_ALLOC_SIZE. decode() itself
  // meets it for planes of several buffers, as long as each plane does.
  virtual uint64_t max_buffer_bytes() const { return 0; }

 protected:
  GpuBlockRecords& records() { return *records_; }
  // own_planes()'s buffer of `bytes` on `stream`'s device (a CUDA pointer or a cl_mem).
  virtual void* own_buffer(size_t bytes, void* stream) = 0;

 private:
  std::unique_ptr<GpuBlockRecords> records_;
};

// The batch of options.backend (Cuda or OpenCL, where built) on options.device; throws
// Error(BackendUnavailable) for a backend without one.
std::unique_ptr<GpuBlockBatch> make_gpu_block_batch(const BackendOptions& options);

}  // namespace j2k::codec
