// SPDX-License-Identifier: BSD-2-Clause
// The GPU EBCOT batch's work (cuda/ebcot_image_encoder.hpp) emulated on the host, block by
// block, reading host memory: the same quantisation (batch_quantise.hpp), the same coder
// (ebcot/encode_passes.hpp, the kernel's code) into slots of the same size, the same CPU
// path for a block that outgrows its slot and the same packaging (coded_block_of). For tests
// in every build: the coder and the encoder's batch path checked without a device. Not chosen
// by make_block_encode_batch.
#pragma once
#include <cstddef>
#include <memory>

#include "codec/tier1/block_encode_batch.hpp"
#include "codec/tier1/ebcot/encode_passes.hpp"

namespace j2k::codec {

// `slot_divisor`: each block's slot encode_slot_bytes() / slot_divisor (at least the room of
// one column), so that a test can make dense blocks outgrow theirs and take the CPU path.
std::unique_ptr<BlockEncodeBatch> make_host_ebcot_image_encoder(size_t slot_divisor = 1);

// encode_passes.hpp's coder on the host, compiled with the codec's floating-point flags (no
// contraction), as the emulation runs it: `slot` of `capacity` bytes, `words` of
// encode_words(), `passes` of kMaxEncodedPasses.
t1::EncodeResult encode_passes_on_host(const BlockView& block, uint8_t* slot, size_t capacity, uint32_t* words,
                                       t1::EncodedPass* passes);

}  // namespace j2k::codec
