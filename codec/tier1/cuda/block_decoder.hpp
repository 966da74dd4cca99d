// Tier-1 decoding and dequantisation of a tile's code-blocks on a CUDA GPU, one code-block a
// thread: the CPU's passes (block_passes.hpp) compiled for the device, so that the
// coefficients are decode_block()'s and dequantiser.cpp's bit for bit. The decoder gathers
// the blocks of a tile on the host (their bytes, geometry and where their coefficients go),
// then decode() uploads them and decodes on a stream, straight into the coefficient planes
// that the GPU back stage's inverse DWT reads: the coefficients never cross the bus, only the
// codestream's bytes do.
//
//   BlockBatch batch;                       // one per decoder, reused batch after batch
//   batch.clear();
//   for each block: check_block(code); batch.add(code, roi, plane, at, stride, step);
//   batch.decode(planes, stream, tiles);    // asynchronous on `stream`
//   ... once the stream's work is done: batch.segmark_errors()
//
// A launch lasts as long as its heaviest code-block takes one thread, however few blocks it
// holds: the decoder gathers the blocks of several tiles into one batch (into planes of the
// batch's own, own_planes(), which copy() then moves tile by tile into the back stage's).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "codec/tier1/block_decoder.hpp"

namespace j2k::codec::cuda {

class BlockBatch {
 public:
  BlockBatch();
  ~BlockBatch();
  BlockBatch(const BlockBatch&) = delete;
  BlockBatch& operator=(const BlockBatch&) = delete;

  void clear();
  // How many planes a batch's blocks may go to.
  static constexpr size_t kMaxPlanes = 65536;
  // A block (checked with check_block() by the caller) whose coefficients go to
  // planes[plane][at + y * stride + x] (plane below kMaxPlanes): int32 for the 5/3 (step 0), else float, dequantised
  // with `step` (band_step()); `roi`: its component's max-shift.
  void add(const BlockCode& code, int roi, size_t plane, int64_t at, int64_t stride, float step);
  size_t size() const;

  // Uploads the blocks and decodes them on `stream` (a cudaStream_t, the current device's)
  // into `planes` (device pointers). Returns once the host's copies of the blocks may be
  // reused; the work itself is asynchronous. tiles[p]: the tile of planes[p], for
  // segmark_errors().
  void decode(const std::vector<void*>& planes, void* stream, const std::vector<int64_t>& tiles);
  // Once the work of the batches decoded so far is done: the tiles whose blocks failed
  // their SEGMARK check, and how many in each; forgets them.
  std::map<int64_t, int> segmark_errors();

  // Device planes of the batch's own, bytes[p] each, for decode(); kept (and reused) until
  // the next call, which must come after the work that reads them (the same stream).
  std::vector<void*> own_planes(const std::vector<size_t>& bytes);
  // Enqueues a device-to-device copy of `bytes` on `stream`.
  static void copy(const void* from, void* to, size_t bytes, void* stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k::codec::cuda
