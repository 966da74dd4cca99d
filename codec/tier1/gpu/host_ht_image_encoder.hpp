// SPDX-License-Identifier: BSD-2-Clause
// The GPU Tier-1 batch's work (cuda/ht_image_encoder.hpp) emulated on the host, block by block,
// reading host memory: the same quantisation (batch_quantise.hpp), the same cleanup coder
// (ht/cleanup_encoder.hpp's encode_cleanup_in_place, the kernel's function) and the same
// packaging into CodedBlocks as the CUDA batch's coded(). For tests in every build: the
// encoder's batch path (EncoderSettings::make_tier1_batch) checked without a device. Not
// chosen by make_block_encode_batch. `targets`: as the CUDA batch made for a rate or PSNR
// target (every block a set at plane 0, with its distortion; HT rate control's steps).
#pragma once
#include <memory>

#include "codec/tier1/block_encode_batch.hpp"

namespace j2k::codec {

std::unique_ptr<BlockEncodeBatch> make_host_ht_image_encoder(bool targets = false);

}  // namespace j2k::codec
