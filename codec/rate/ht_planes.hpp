// SPDX-License-Identifier: BSD-2-Clause
// Rate control for HT code-blocks (ISO/IEC 15444-15): an HT block is one cleanup pass at a
// bit plane p chosen by the encoder, then SigProp and MagRef at p - 1; a decoder takes the
// cleanup alone, +SigProp or +MagRef. So unlike EBCOT's, an HT block's stopping points do not
// come from one coding: each cleanup plane is a different coding, with three stopping points.
//
// The design: (1) a model of every plane's cost and exact gain (ht/plane_estimates.hpp),
// cheap enough for every block and plane, gives the slope threshold that meets the target in
// the model and with it a plane per block; (2) each block is coded at that plane and the one
// on either side; (3) each block's stopping points of all its coded planes form one convex
// hull of (bytes, distortion removed) (the planes compete: a coarser cleanup with its SigProp
// and MagRef against a finer cleanup alone), and PCRD-opt across blocks picks for one slope
// threshold each block's hull point, its set and stop, with the codestream's real size (or
// the estimated PSNR) in the threshold's search, as for EBCOT (rate/pcrd.hpp); (4) where a
// block's choice is its finest coded plane in full, or its coarsest plane's cleanup (or
// nothing), the plane beyond is coded too and (3) runs again, so that a wrong model costs
// time, not quality; (5) a byte budget left unspent by whole hull steps is filled with the
// steepest further steps that fit. Only one set per block is written: the codestream's CAP
// says one HT set per block, which every HTJ2K decoder reads.
#pragma once
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "codec/rate/layers.hpp"
#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ht/plane_estimates.hpp"

namespace j2k::codec {

// A code-block as HT rate control sees it.
struct HtBlock {
  double weight = 1;                         // image squared error per step^2 of the block's
  double energy = 0;                         // its squared error with nothing decoded, in steps^2
  std::vector<ht::PlaneEstimate> estimates;  // [p]: the cleanup pass at plane p, modelled
  std::vector<CodedBlock> sets;              // the planes coded so far (plane: bitplanes - 1)
  int chosen = -1;                           // the set written (index into sets; -1: none)
  int passes = 0;                            // and how many of its passes
};

// Codes each (block, plane) of `jobs`; returns the sets in the same order.
using CodeHtSets = std::function<std::vector<CodedBlock>(const std::vector<std::pair<size_t, int>>& jobs)>;

// Sets every block's chosen set and passes so that the codestream meets `target`: at most
// that many bytes (stream_size(), which reads the blocks' choices, as the caller points
// Tier-2 at them) where `by_bytes`, else at least that PSNR (dB) as the distortion estimates
// give it against `energy`. Where the target cannot be met (too few bytes for the headers, a
// PSNR beyond every plane), the nearest choice is taken: nothing, or every block at plane 0.
void choose_ht_sets(std::vector<HtBlock>& blocks, double target, bool by_bytes, const ImageEnergy& energy,
                    const CodeHtSets& code, const std::function<uint64_t()>& stream_size);

// Step (1) alone, for comparing codings of one image before coding any (the encoder's step
// scales): what the model says a choice for `target` costs, the squared error left (image
// units) where `by_bytes`, else the bytes spent. Lower is better.
double modelled_cost(std::vector<HtBlock>& blocks, double target, bool by_bytes, const ImageEnergy& energy,
                     const std::function<uint64_t()>& stream_size);

}  // namespace j2k::codec
