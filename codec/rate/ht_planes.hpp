// SPDX-License-Identifier: BSD-2-Clause
// Rate control for HT code-blocks (ISO/IEC 15444-15): an HT block is one cleanup pass at a
// bit plane p chosen by the encoder, then SigProp and MagRef at p - 1; a decoder takes the
// cleanup alone, +SigProp or +MagRef. So unlike EBCOT's, an HT block's stopping points do not
// come from one coding: each cleanup plane is a different coding, with three stopping points.
//
// The design: (1) a model of every plane's cost and exact gain (ht/plane_estimates.hpp),
// cheap enough for every block and plane, gives the slope threshold that meets the target in
// the model and with it a plane per block; (2) each block is coded at that plane and the one
// on either side (for the 9/7, whose steps the encoder may scale, the model only guesses the
// scale at which one plane for every block meets the target, a few codings of the image find
// it, and each block is coded at that plane and the coarser one: uniform_scale()); (3) each block's stopping points of all its coded planes form one convex
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
// With `uniform` >= 0, the plane at which every block's cleanup alone meets the target (the
// steps were scaled for it, uniform_scale()): that plane and the coarser one are coded first
// instead of the model's (whose estimates may then be left empty but for their number, the
// block's planes), and that uniform choice is taken where it meets the target and the
// optimised one does no better. Planes a block's `sets` hold already (the caller may code the
// first ones itself) are not coded again.
void choose_ht_sets(std::vector<HtBlock>& blocks, double target, bool by_bytes, const ImageEnergy& energy,
                    const CodeHtSets& code, const std::function<uint64_t()>& stream_size, int uniform = -1);

// The step scale for the search below, as the model puts it: the fractional plane where every
// block's cleanup at that one plane meets `target` (its bytes over `base_bytes`, those of a
// codestream with no block), and how fast the target's measure (the bytes' log, or the PSNR)
// falls a plane. The blocks with estimates may be a sample, `share` of the image's (their
// bytes and squared errors scaled up by it; `energy` theirs but for its peak).
struct UniformGuess {
  double plane = 0;
  double slope = 0;
};
UniformGuess modelled_uniform_plane(const std::vector<HtBlock>& blocks, double target, bool by_bytes, const ImageEnergy& energy,
                                    double base_bytes, double share = 1);

// What every block coded at plane 0 of a step scale gives: its codestream's bytes and PSNR.
struct UniformResult {
  double bytes = 0, psnr = 0;
};

// The step scale, as log2, at which every block's cleanup at plane 0 meets `target` (bytes at
// most, or PSNR at least) and comes within a small tolerance of it, within [lowest, highest].
// HT's planes are an octave apart, and an image whose blocks are alike (noise) gains little
// from giving them different planes while it loses much (measured: up to 0.7 dB at equal
// bytes) where the target falls between two planes: then every mix of the planes around it
// lies on their chord, below the quantiser's curve. A step scaled so that one plane meets the
// target puts that curve's point among every block's choices.
//
// The search: secant steps from the model's guess over codings of a sample of the blocks
// (`sample` at a log2 scale: its bytes, or its squared error, scaled up to the image's), then
// one coding of the whole image (`whole`) at the sample's answer. A regular sample is off the
// image by a bias that hardly moves with the scale (measured on the benchmark's RGB image,
// every 8th block: 0.037 of the bytes' log, moving 0.002 over 0.15 of an octave), so
// where the whole image is not within the tolerance there, the search goes on over the
// sample less that bias. Each sample coding costs its share of a whole one; a search over
// whole codings alone took three or four. Without `whole`, `sample` codes the whole image.
double uniform_scale(const UniformGuess& guess, double target, bool by_bytes, double lowest, double highest,
                     const std::function<UniformResult(double)>& sample, const std::function<UniformResult(double)>& whole);

}  // namespace j2k::codec
