// SPDX-License-Identifier: BSD-2-Clause
// Packet headers' bits (ISO/IEC 15444-1 B.10.1): most significant bit first; after a 0xFF
// byte the next byte carries 7 bits (its first is a stuffed 0), so that no header holds a
// marker. A header that ends in 0xFF gets one more byte, 0x00.
#pragma once
#include <cstdint>
#include <vector>

namespace j2k::codec {

class BitWriter {
 public:
  explicit BitWriter(std::vector<uint8_t>& out) : out_(out) {}
  void put(int bit) {
    acc_ = static_cast<uint8_t>((acc_ << 1) | (bit & 1));
    if (--room_ == 0) emit();
  }
  void put(uint32_t value, int bits) {
    for (int b = bits - 1; b >= 0; --b) put(static_cast<int>((value >> b) & 1));
  }
  // Pads the last byte with zeros.
  void flush() {
    if (room_ != capacity_) {
      acc_ = static_cast<uint8_t>(acc_ << room_);
      emit();
    }
    if (last_ == 0xFF) {
      out_.push_back(0);
      last_ = 0;
      capacity_ = room_ = 8;
    }
  }

 private:
  void emit() {
    out_.push_back(acc_);
    last_ = acc_;
    acc_ = 0;
    capacity_ = room_ = last_ == 0xFF ? 7 : 8;
  }
  std::vector<uint8_t>& out_;
  uint8_t acc_ = 0, last_ = 0;
  int capacity_ = 8, room_ = 8;
};

}  // namespace j2k::codec
