// SPDX-License-Identifier: BSD-2-Clause
// The cleanup pass's VLC sub-pass (cleanup_pass.hpp, decode_vlc_row) for up to sixteen
// code-blocks of one size at once, each in a lane of AVX-512 vectors, every quad row of each.
// One block's VLC sub-pass is a chain of dependent lookups whose branches (the MEL events of
// the zero context, the U-VLC's extensions) the CPU mispredicts; the lanes take every step
// with masks instead of branches, and eight chains in one vector give the core eight lookups
// for each wait. Two groups of eight are stepped in turn, so that the core has a second,
// independent chain of gathers to run while the first waits.
//
// Each lane's streams are first made plain (decode_vlc_lanes does it): the VLC stream's bits
// unstuffed in reading order, and the MEL stream's events as a bit each. A lane then reads
// its next bits with one gather at its bit position: no refill and no branch. The lanes'
// codewords and u are left lane-major (VlcLanes, one a group) for the rest of each block's
// cleanup pass (decode_cleanups_after_vlc), which takes a row of them at a time (lane_row).
//
// The HT block decoder hands blocks to it sixteen at a time (decode_blocks_dequantised), and
// the decoder's row stage hands a worker's blocks to that in groups (codec/decoder.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>

#include "codec/tier1/ht/avx2_build.hpp"
#include "codec/tier1/ht/cleanup_pass.hpp"

namespace j2k::codec::ht::cleanup {

constexpr int kVlcLanes = 8;
// Blocks at once: two groups of eight lanes, stepped in turn (two chains of lookups).
constexpr int kMaxLanes = 16;

// The quads a block holds at most, its rows each with an empty quad before and after (a
// 5 x 819 block: 410 rows of 3 quads and 2 empty ones, 2,050; a 64 x 64 one 1,088).
constexpr int kMaxLaneQuads = 2050;

// What the lanes leave: for lane l (block l), quad q of quad row r (q from -1 to qw, the
// empty quads before and after the row included) at [(r * row_quads + q + 1) * kVlcLanes + l],
// row_quads = qw + 2: its packed entry's low 16 bits (decode_vlc_row's codeword) in bits
// 0-15 and its u in bits 16-23.
struct VlcLanes {
  int qw = 0, qh = 0, row_quads = 0;
  bool inconsistent[kVlcLanes] = {};  // the lane met a codeword no table has (the block is corrupt)
  alignas(64) uint32_t quads[kMaxLaneQuads * kVlcLanes];
};

#if J2K_HT_HAVE_AVX2
// Quad row r of lane `lane` into `quads` (its codewords and u) as decode_vlc_row leaves a row.
// Only on a CPU where avx512_runs().
void lane_row(const VlcLanes& vlc, int lane, int r, QuadRow& quads);

// One lane's block for decode_cleanups_after_vlc: its segment, where its coefficients go, and
// then whether it was inconsistent (its output then not all written: the caller zeros it).
struct LaneBlock {
  CleanupSegment segment;
  int32_t* out = nullptr;
  ptrdiff_t stride = 0;
  int plane = 0;
  OutputForm form;
  bool corrupt = false;
};

// The rest of decode_cleanup (cleanup_pass.hpp) for the blocks of lanes 0 .. count - 1, each
// row's codewords and u taken from `vlc` (lane_row) where decode_vlc_row would have left them,
// then the build's exponent bounds and MagSgn sub-pass. Two lanes' rows in turn: a row's
// exponent bounds load the exponents that the row before's MagSgn stored, in pieces no load
// can be forwarded from; the other lane's row in between lets those stores reach the cache
// first, as the VLC sub-pass does in decode_cleanup.
template <class Rows>
void decode_cleanups_after_vlc(const VlcLanes& vlc, LaneBlock* blocks, int count, int width, int height) {
  const int qw = (width + 1) / 2, qh = (height + 1) / 2;
  for (int first = 0; first < count; first += 2) {
    const int n = std::min(2, count - first);
    std::optional<typename Rows::MagSgnReader> readers[2];
    Scratch scratch[2];
    ExponentRow* e_above[2];
    ExponentRow* e_row[2];
    for (int i = 0; i < n; ++i) {
      const CleanupSegment& segment = blocks[first + i].segment;
      const uint8_t* d = segment.data;
      const size_t pcup = segment.size - ((static_cast<size_t>(d[segment.size - 1]) << 4) | (d[segment.size - 2] & 0x0F));
      readers[i].emplace(MagSgnSegment{d, pcup, static_cast<size_t>(4 * 31) * static_cast<size_t>(qw * qh)});
      scratch[i].reset(width);
      e_above[i] = &scratch[i].exponents[0];
      e_row[i] = &scratch[i].exponents[1];
    }
    for (int r = 0; r < qh; ++r)
      for (int i = 0; i < n; ++i) {
        LaneBlock& b = blocks[first + i];
        if (b.corrupt) continue;
        Scratch& s = scratch[i];
        try {
          lane_row(vlc, first + i, r, s.quads);
          const bool at_largest_bound = Rows::bounds(qw, e_above[i]->at(), s.quads, b.plane);
          int32_t* const top = b.out + 2 * r * b.stride;
          const bool bottom_cut = 2 * r + 1 >= height;
          const MagSgnRow row{s.quads.codeword(), s.quads.big_u, e_row[i]->at(), top, bottom_cut ? s.cut_row : top + b.stride,
                              width, qw, b.plane, bottom_cut ? 0x5u : 0xFu, s.magsgn_rows, b.form, at_largest_bound};
          Rows::magsgn(*readers[i], row);
          std::swap(e_above[i], e_row[i]);
        } catch (const Inconsistent&) {
          b.corrupt = true;
        }
      }
  }
}

// The VLC sub-pass of `lanes` (1 to kMaxLanes) cleanup segments of blocks width x height, into
// out[0] (lanes 0-7) and out[1] (lanes 8-15, where there are more than 8). Returns false, leaving `out` as it is, where a segment's Scup is inconsistent (the
// one-block decoder then says so), or where the blocks would not fit the lanes' buffers (no
// size A.6.1 allows). Only on a CPU where avx512_runs().
bool decode_vlc_lanes(const CleanupSegment* segments, int lanes, int width, int height, VlcLanes* out);

// decode_cleanups_after_vlc with the AVX-512 build's bounds and MagSgn sub-pass.
void avx512_cleanups_after_vlc(const VlcLanes& vlc, LaneBlock* blocks, int count, int width, int height);
#endif

}  // namespace j2k::codec::ht::cleanup
