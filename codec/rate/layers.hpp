// SPDX-License-Identifier: BSD-2-Clause
// Quality layers (ISO/IEC 15444-1 B.10; EBCOT's PCRD-opt, pcrd.hpp): which of each
// code-block's coding passes each layer includes so that the layer meets its byte budget
// (the whole codestream up to and with it) or its PSNR. One slope threshold per layer,
// searched over the blocks' hull slopes; a byte budget is then filled with the steepest
// steps that still fit. The codestream's size comes from Tier-2 through `stream_size`, which
// reads the passes set here: rate control sits below Tier-2 and knows no packet.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "codec/params/coding_params.hpp"
#include "codec/rate/pcrd.hpp"
#include "codec/tier1/block_coder.hpp"

namespace j2k::codec {

// A code-block as rate control sees it.
struct RatedBlock {
  const CodedBlock* coded = nullptr;
  double weight = 1;            // image squared error per step^2 of the block's distortion
  std::vector<HullPoint> hull;  // allocate_layers() fills it
  // Per layer, the passes included up to and with it: set here, read by Tier-2 (the
  // caller's BlockContribution::passes).
  std::vector<int>* passes = nullptr;
};

// What the layers' PSNR is measured against: the squared error with no pass at all, and the
// squared peak times the samples (both in image units).
struct ImageEnergy {
  double total = 0;  // sum over the blocks of energy * weight
  double peak = 0;   // sum over the components of samples * (2^precision - 1)^2
};

ImageEnergy image_energy(const std::vector<RatedBlock>& blocks, double peak);

// Sets every block's passes per layer: all of them where params has no targets (lossless),
// else each layer at the threshold that meets params.layer_bytes (stream_size() at most the
// budget) or params.layer_psnr; a last target of 0 takes every pass.
void allocate_layers(std::vector<RatedBlock>& blocks, const CodingParams& params, const ImageEnergy& energy,
                     const std::function<uint64_t()>& stream_size);

// A profile's limit on each component's packet bytes (digital cinema's, after the whole
// codestream's budget is met): each component over `limit` gets a threshold of its own,
// searched over its blocks' hull slopes, that takes passes away from its blocks in every
// layer until component_sizes()[c] is at most the limit. Passes are only taken away, so the
// codestream's own budget still holds. component_of[i]: block i's component.
void limit_component_bytes(std::vector<RatedBlock>& blocks, const std::vector<size_t>& component_of, double limit,
                           const std::function<std::vector<uint64_t>()>& component_sizes);

// The PSNR (dB) that the distortion estimates give each layer: infinite where nothing is left.
std::vector<double> layer_psnr(const std::vector<RatedBlock>& blocks, size_t layers, const ImageEnergy& energy);

}  // namespace j2k::codec
