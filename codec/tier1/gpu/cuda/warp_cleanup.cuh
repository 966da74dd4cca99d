// SPDX-License-Identifier: BSD-2-Clause
// The HT cleanup pass of one code-block by one warp: the same bytes as the CPU's coder
// (ht/cleanup_encoder.hpp), with the work of a line-pair spread over the warp's 32 lanes.
//
// A line-pair is taken 32 quads at a time, a quad a lane: each lane reads its quad, finds its
// significance, exponents, context (its neighbours' significance through shared memory), the
// exponent bound and its CxtVLC codeword, its MagSgn bits, and (the odd lane of a quad pair,
// or the last quad alone) the pair's U-VLC code; a scan over the lanes gives each lane's place
// in the chunk's MagSgn and VLC bits, which the lanes OR into shared words. Then lane 0 alone
// feeds those words, 32 bits at a time, and the chunk's MEL events (ballots, in quad order) to
// the CPU's own writers (ht/bit_writers.hpp), which do the byte stuffing: the bit strings are
// the ones the CPU coder puts, in the same order, so the streams are the same. The writers
// concatenate what they are given, bit 0 first, so one put of 32 bits is the puts of the
// pieces it holds.
#pragma once
#include <cstdint>

#include "codec/tier1/ht/bit_writers.hpp"
#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "codec/tier1/ht/quad_rules.hpp"
#include "codec/tier1/ht/vlc_tables.hpp"

namespace j2k::codec::ht::warp {

constexpr int kLanes = 32;
constexpr int kMaxWidth = 1024;                        // a code-block's widest
constexpr int kMaxQuads = kMaxWidth / 2;               // quads in its line-pair
constexpr int kMagSgnWords = kLanes * 4 * 32 / 32 + 1; // a chunk's MagSgn: 4 samples of <= 32 bits a lane
constexpr int kVlcWords = kLanes * 32 / 32 + 1;        // its VLC: a codeword and a pair's U-VLC, < 32 bits a lane

// A warp's shared memory: two line-pairs' quad significances and bottom-row exponents (one
// padding entry before; the line-pair above and this one, by parity), and a chunk's bits.
struct Shared {
  uint8_t rho[2][kMaxQuads + 4];
  uint8_t e[2][kMaxWidth + 8];
  uint32_t magsgn[kMagSgnWords];
  uint32_t vlc[kVlcWords];
};

__device__ inline unsigned lane_id() { return threadIdx.x & (kLanes - 1); }

// The sum of `v` over the lanes below this one, and (in `total`) over all of them.
__device__ inline int exclusive_sum(int v, int& total) {
  const unsigned lane = lane_id();
  int sum = v;
  for (int d = 1; d < kLanes; d <<= 1) {
    const int up = __shfl_up_sync(0xFFFFFFFFu, sum, d);
    if (lane >= static_cast<unsigned>(d)) sum += up;
  }
  total = __shfl_sync(0xFFFFFFFFu, sum, kLanes - 1);
  return sum - v;
}

// v's low n bits (n <= 32) at bit `at` of the words, ORed in.
__device__ inline void or_bits(uint32_t* words, int at, uint32_t v, int n) {
  if (n == 0) return;
  v &= low_bits(n);
  const int w = at >> 5, s = at & 31;
  atomicOr(&words[w], v << s);
  if (s + n > 32) atomicOr(&words[w + 1], v >> (32 - s));
}

// Lane 0 hands the chunk's `total` bits in `words` to `writer`, 32 at a time.
template <class Writer>
__device__ inline void put_words(Writer& writer, const uint32_t* words, int total) {
  for (int at = 0; at < total; at += 32) writer.put(words[at >> 5], min_int(32, total - at));
}

// The pair's U-VLC code as put_u() of cleanup_encoder.hpp puts it (ua the pair's first quad's
// u, ub the second's, 0 where there is none), as one bit string; `mel` set where the initial
// line-pair sends a MEL event for the pair (its value in `mel_one`).
struct PairCode {
  uint32_t bits = 0;
  int length = 0;
  bool mel = false, mel_one = false;
};
__device__ inline void append(PairCode& c, uint32_t bits, int n) {
  c.bits |= bits << c.length;
  c.length += n;
}
__device__ inline PairCode pair_code(int ua, int ub, bool initial, const Uvlc* code) {
  PairCode c;
  const Uvlc* a = &code[ua];
  const Uvlc* b = &code[ub];
  if (initial && ua > 0 && ub > 0) {
    c.mel = true;
    c.mel_one = min_int(ua, ub) > 2;
    if (ua > 2 && ub > 2) {
      a = &code[ua - 2];
      b = &code[ub - 2];
    } else if (ua > 2) {
      append(c, a->prefix, a->prefix_length);
      append(c, static_cast<uint32_t>(ub - 1), 1);
      append(c, a->suffix, a->suffix_length);
      append(c, a->extension, a->extension_length);
      return c;
    }
  }
  append(c, a->prefix, a->prefix_length);
  append(c, b->prefix, b->prefix_length);
  append(c, a->suffix, a->suffix_length);
  append(c, b->suffix, b->suffix_length);
  append(c, a->extension, a->extension_length);
  append(c, b->extension, b->extension_length);
  return c;
}

// The block data[y * stride + x] (width x height, limits as encode_cleanup_in_place's) at
// `shift` = fraction bits + cleanup plane, into out (MagSgn, then the segment), mel and vlc
// (the writers' buffers, as encode_cleanup_in_place lays them out). Every lane of the warp
// calls it; lane 0's return is the segment's bytes (0: MEL and VLC outgrow Scup).
__device__ inline size_t encode_cleanup(const int32_t* data, ptrdiff_t stride, int width, int height, int shift,
                                        const CleanupTables& tables, uint8_t* out, uint8_t* mel_buffer, uint8_t* vlc_buffer,
                                        Shared& s) {
  const int lane = static_cast<int>(lane_id());
  const int qw = (width + 1) / 2, qh = (height + 1) / 2;
  for (int k = lane; k < kMaxQuads + 4; k += kLanes) s.rho[0][k] = s.rho[1][k] = 0;
  for (int k = lane; k < kMaxWidth + 8; k += kLanes) s.e[0][k] = s.e[1][k] = 0;
  ForwardWriter magsgn(out);
  MelEncoder mel(mel_buffer);
  BackwardWriter vlc(vlc_buffer, BackwardWriter::kVlc);  // (each lane stores the same first byte)
  __syncwarp();
  for (int r = 0; r < qh; ++r) {
    const bool initial = r == 0;
    const int cur = r & 1, above = cur ^ 1;
    const int32_t* top = data + static_cast<ptrdiff_t>(2 * r) * stride;
    const int32_t* bottom = 2 * r + 1 < height ? top + stride : nullptr;
    const CxtVlcCodeword* table = tables.cxt_vlc[initial ? 1 : 0];
    for (int c0 = 0; c0 < qw; c0 += kLanes) {
      const int k = c0 + lane, x = 2 * k;
      const bool valid = k < qw;
      uint32_t m[4] = {0, 0, 0, 0};
      if (valid) {
        auto at = [&](const int32_t* row, int col) -> uint32_t {
          if (row == nullptr || col >= width) return 0;
          const int32_t v = row[col];
          return quad_sample(magnitude_of(v), sign_of(v), shift);
        };
        m[0] = at(top, x);
        m[1] = at(bottom, x);
        m[2] = at(top, x + 1);
        m[3] = at(bottom, x + 1);
      }
      const int e[4] = {exponent(m[0]), exponent(m[1]), exponent(m[2]), exponent(m[3])};
      const unsigned rho = (m[0] > 1 ? 1u : 0u) | (m[1] > 1 ? 2u : 0u) | (m[2] > 1 ? 4u : 0u) | (m[3] > 1 ? 8u : 0u);
      if (valid) {
        s.rho[cur][k + 1] = static_cast<uint8_t>(rho);
        s.e[cur][x + 1] = static_cast<uint8_t>(e[1]);
        s.e[cur][x + 2] = static_cast<uint8_t>(e[3]);
      }
      __syncwarp();
      const int kk = valid ? k : 0, xx = 2 * kk;  // (a lane past the line's end reads quad 0's neighbours)
      const unsigned left = s.rho[cur][kk];
      int cx = 0, kappa = 1;
      if (initial) {
        cx = initial_row_context(left);
      } else {
        cx = other_row_context(s.rho[above][kk], s.rho[above][kk + 1], s.rho[above][kk + 2], left);
        const uint8_t* ea = s.e[above] + 1;  // column -1 at ea[-1]
        const int e_near = max_int(max_int(ea[xx - 1], ea[xx]), max_int(ea[xx + 1], ea[xx + 2]));
        kappa = (rho & (rho - 1)) != 0 ? max_int(1, e_near - 1) : 1;
      }
      const int e_max = max_int(max_int(e[0], e[1]), max_int(e[2], e[3]));
      const int big_u = max_int(e_max, kappa);
      const int u = valid ? big_u - kappa : 0;
      const unsigned at_bound =
          (e[0] == big_u ? 1u : 0u) | (e[1] == big_u ? 2u : 0u) | (e[2] == big_u ? 4u : 0u) | (e[3] == big_u ? 8u : 0u);
      const CxtVlcCodeword cw = table[(static_cast<unsigned>(cx) * 16 + rho) * 17 + (u > 0 ? 1 + at_bound : 0)];
      // VLC: the codeword, then (the pair's second quad, or a last quad alone) the pair's U-VLC.
      uint32_t vlc_bits = cw.codeword;
      int vlc_length = valid && (cx | rho) != 0 ? cw.length : 0;
      const int partner_u = __shfl_xor_sync(0xFFFFFFFFu, u, 1);
      const bool second = (k & 1) != 0;
      const bool pair_end = valid && (second || k + 1 == qw);
      PairCode pc;
      if (pair_end) {
        pc = second ? pair_code(partner_u, u, initial, tables.uvlc) : pair_code(u, 0, initial, tables.uvlc);
        vlc_bits = (vlc_bits & low_bits(vlc_length)) | (pc.bits << vlc_length);
        vlc_length += pc.length;
      }
      // MagSgn: each significant sample's bits below those the codeword gives.
      int bits[4], magsgn_length = 0;
      uint32_t v[4];
      for (int j = 0; j < 4; ++j) {
        bits[j] = ((rho >> j) & 1) ? big_u - ((cw.e_k >> j) & 1) : 0;
        v[j] = (m[j] - 2) & low_bits(bits[j]);
        magsgn_length += bits[j];
      }
      // Each lane's place in the chunk's bits.
      int magsgn_total = 0, vlc_total = 0;
      int at = exclusive_sum(magsgn_length, magsgn_total);
      const int vlc_at = exclusive_sum(vlc_length, vlc_total);
      for (int w = lane; w < kMagSgnWords; w += kLanes) s.magsgn[w] = 0;
      for (int w = lane; w < kVlcWords; w += kLanes) s.vlc[w] = 0;
      __syncwarp();
      for (int j = 0; j < 4; ++j) {
        or_bits(s.magsgn, at, v[j], bits[j]);
        at += bits[j];
      }
      or_bits(s.vlc, vlc_at, vlc_bits, vlc_length);
      // MEL: each context-0 quad's significance, then the initial line-pair's pair events.
      const unsigned quad_event = __ballot_sync(0xFFFFFFFFu, valid && cx == 0);
      const unsigned quad_one = __ballot_sync(0xFFFFFFFFu, rho != 0);
      const unsigned pair_event = __ballot_sync(0xFFFFFFFFu, pc.mel);
      const unsigned pair_one = __ballot_sync(0xFFFFFFFFu, pc.mel_one);
      __syncwarp();
      if (lane == 0) {
        for (unsigned lanes = quad_event | pair_event; lanes != 0; lanes &= lanes - 1) {
          const unsigned bit = lanes & (0u - lanes);
          if (quad_event & bit) mel.put((quad_one & bit) != 0);
          if (pair_event & bit) mel.put((pair_one & bit) != 0);
        }
        put_words(vlc, s.vlc, vlc_total);
        put_words(magsgn, s.magsgn, magsgn_total);
      }
      __syncwarp();
    }
  }
  if (lane != 0) return 0;
  const size_t bytes = finish_cleanup(magsgn, mel, vlc);
  if (bytes != 0) write_cleanup(magsgn, mel, vlc, out);
  return bytes;
}

}  // namespace j2k::codec::ht::warp
