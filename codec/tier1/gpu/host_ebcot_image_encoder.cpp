// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/gpu/host_ebcot_image_encoder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier1/gpu/host_batch_view.hpp"
#include "codec/tier1/gpu/gpu_ebcot_encode_batch.hpp"
#include "common/error.hpp"

namespace j2k::codec {

t1::EncodeResult encode_passes_on_host(const BlockView& block, uint8_t* slot, size_t capacity, uint32_t* words,
                                       t1::EncodedPass* passes) {
  return t1::BlockEncodePasses<t1::HostEncodeTables>(block, slot, capacity, words, passes).run();
}

namespace {

class HostEbcotImageEncoder final : public BlockEncodeBatch {
 public:
  explicit HostEbcotImageEncoder(size_t slot_divisor) : slot_divisor_(std::max<size_t>(slot_divisor, 1)) {}
  bool reads(j2k_memory memory) const override { return memory == J2K_MEMORY_HOST; }
  const char* where() const override { return "host emulation of the GPU batch"; }
  bool estimates_distortion() const override { return true; }
  uint64_t host_bytes(const std::vector<BatchBlock>& blocks) const override {
    (void)blocks;
    return 0;
  }
  std::vector<CodedBlock> encode(const std::vector<BatchBlock>& blocks, bool reversible) override {
    std::vector<CodedBlock> coded(blocks.size());
    std::vector<int32_t> quantised;
    std::vector<uint8_t> slot;
    std::vector<uint32_t> words;
    std::vector<t1::EncodedPass> passes(t1::kMaxEncodedPasses);
    for (size_t i = 0; i < blocks.size(); ++i) {
      const BatchBlock& b = blocks[i];
      const BlockView v = host_batch_view(b, reversible, quantised);
      check_gpu_ebcot_block(v);
      const size_t capacity = std::max(t1::encode_slot_bytes(b.width, b.height) / slot_divisor_, t1::kEncodeColumnRoom + 2);
      slot.assign(capacity, 0);
      words.assign(t1::encode_words(b.width, b.height), 0);
      const t1::EncodeResult r = encode_passes_on_host(v, slot.data(), capacity, words.data(), passes.data());
      if (r.status == t1::kEncodeOutOfRoom) {  // as the CUDA batch's wait(): the CPU's coder
        coded[i] = encode_block(v);
        continue;
      }
      if (r.status != t1::kEncodeCoded)
        throw Error(ErrorCode::Internal, "host emulation of the GPU EBCOT batch: block " + std::to_string(i) + ": status " +
                                             std::to_string(r.status));
      CodedBlock c = coded_block_of(r, passes.data(), slot.data() + 1);
      c.bytes.assign(c.external, c.external + r.bytes);
      c.external = nullptr;
      coded[i] = std::move(c);
    }
    return coded;
  }

 private:
  size_t slot_divisor_;
};

}  // namespace

std::unique_ptr<BlockEncodeBatch> make_host_ebcot_image_encoder(size_t slot_divisor) {
  return std::make_unique<HostEbcotImageEncoder>(slot_divisor);
}

}  // namespace j2k::codec
