// SPDX-License-Identifier: BSD-2-Clause
// The code-blocks of a GPU batch as the host gathers them for upload (cuda/ and opencl/
// block_decoder): a record per block, which the kernels read as it is (block_decoder.cu's
// struct, block_decoder.cl's DeviceBlock), and the blocks' segment tables and bytes back to
// back.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/tier1/ebcot/block_passes.hpp"
#include "codec/tier1/gpu/gpu_block_batch.hpp"
#include "codec/tier1/ht/device_block_decoder.hpp"
#include "common/error.hpp"

namespace j2k::codec {

// A block as the kernels read it: offsets into the batch's upload. 64 bytes, C layout (the
// OpenCL kernel declares the same).
struct GpuBlockRecord {
  uint64_t bytes;        // its segments, in the upload's bytes
  uint64_t words;        // its scratch, in 32-bit words: EBCOT's flag words, or HT's rows
  int64_t at, stride;    // its coefficients: planes[plane][at + y * stride + x]
  uint32_t size;         // its bytes
  uint32_t segments_at;  // its first segment in segment_bytes / segment_passes
  uint32_t segments;
  float step;            // 0: the 5/3's int32; else the 9/7's step, float
  int16_t width, height;
  uint8_t band, modes, bitplanes, roi;
  uint32_t plane;        // below GpuBlockBatch::kMaxPlanes
};
static_assert(sizeof(GpuBlockRecord) == 64 && offsetof(GpuBlockRecord, size) == 32 &&
                  offsetof(GpuBlockRecord, width) == 48 && offsetof(GpuBlockRecord, plane) == 56,
              "GpuBlockRecord is read as block_decoder.cl's DeviceBlock");

struct GpuBlockRecords {
  std::vector<GpuBlockRecord> blocks;
  std::vector<uint32_t> segment_bytes;
  std::vector<int> segment_passes;
  std::vector<uint8_t> bytes;
  uint64_t words = 0;  // the scratch words the blocks need
  bool ht = false;     // whether a block is HT's (the kernels then need its tables)

  void clear() {
    blocks.clear();
    segment_bytes.clear();
    segment_passes.clear();
    bytes.clear();
    words = 0;
    ht = false;
  }

  // GpuBlockBatch::add().
  void add(const BlockCode& code, int roi, size_t plane, int64_t at, int64_t stride, float step) {
    if (plane >= GpuBlockBatch::kMaxPlanes)
      throw Error(ErrorCode::Internal, "BlockBatch::add: plane " + std::to_string(plane) + " of a batch");
    GpuBlockRecord b{};
    uint64_t size = 0;
    for (size_t s = 0; s < code.segments; ++s) size += code.segment_bytes[s];  // within code.size: check_block()
    b.bytes = bytes.size();
    b.size = static_cast<uint32_t>(size);
    b.segments_at = static_cast<uint32_t>(segment_bytes.size());
    b.segments = static_cast<uint32_t>(code.segments);
    b.words = words;
    b.at = at;
    b.stride = stride;
    b.step = step;
    b.width = static_cast<int16_t>(code.width);
    b.height = static_cast<int16_t>(code.height);
    b.band = static_cast<uint8_t>(code.band);
    b.modes = code.modes;
    b.bitplanes = static_cast<uint8_t>(code.bitplanes < 0 ? 0 : code.bitplanes);
    b.roi = static_cast<uint8_t>(roi < 0 ? 0 : roi > 31 ? 31 : roi);
    b.plane = static_cast<uint32_t>(plane);
    bytes.insert(bytes.end(), code.bytes, code.bytes + size);
    segment_bytes.insert(segment_bytes.end(), code.segment_bytes, code.segment_bytes + code.segments);
    segment_passes.insert(segment_passes.end(), code.segment_passes, code.segment_passes + code.segments);
    const bool is_ht = (code.modes & kModeHt) != 0;
    words += is_ht ? ht::device::scratch_bytes(code.width, code.height) / 4 : t1::BlockPasses<t1::HostTables>::words_for(code);
    ht = ht || is_ht;
    blocks.push_back(b);
  }

  // The blocks with the most bytes first: the threads of a warp (a work-group) then decode
  // blocks of about the same work, and the longest start first.
  void sort_by_bytes() {
    std::stable_sort(blocks.begin(), blocks.end(), [](const GpuBlockRecord& a, const GpuBlockRecord& b) { return a.size > b.size; });
  }
};

}  // namespace j2k::codec
