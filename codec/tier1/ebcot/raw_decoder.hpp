// SPDX-License-Identifier: BSD-2-Clause
// The raw (bypass) decoder of ISO/IEC 15444-1 D.6, the inverse of raw_encoder.hpp: with the
// BYPASS mode switch, the significance and refinement passes of the lower bit planes read
// their decisions straight from bytes, most significant bit first, skipping the 0 bit stuffed
// after each 0xFF. Past the end of the segment it reads 1s (a segment may leave its last bytes
// out, as an MQ codeword may); so does a 0xFF followed by a byte above 0x8F (a marker).
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/ebcot/host_device.hpp"

namespace j2k::codec {

class RawDecoder {
 public:
  J2K_T1_HD RawDecoder() {}
  J2K_T1_HD RawDecoder(const uint8_t* data, size_t size) : data_(data), size_(data ? size : 0) {}

  J2K_T1_HD J2K_T1_INLINE int bit() {
    if (left_ == 0) {
      if (cur_ == 0xFF && byte(0) > 0x8F) {
        left_ = 8;  // a marker or the end: 1s from here on
      } else {
        left_ = cur_ == 0xFF ? 7 : 8;
        cur_ = byte(0);
        if (pos_ < size_) ++pos_;
      }
    }
    --left_;
    return (cur_ >> left_) & 1;
  }

 private:
  J2K_T1_HD uint8_t byte(size_t k) const { return pos_ + k < size_ ? data_[pos_ + k] : 0xFF; }  // indices: no pointer past the data

  const uint8_t* data_ = nullptr;
  size_t size_ = 0, pos_ = 0;
  uint8_t cur_ = 0;
  int left_ = 0;
};

}  // namespace j2k::codec
