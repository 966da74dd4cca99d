// to_int32_image: a reader's j2kfront::Image widened to the internal j2k::Image (int32
// samples). It exists for callers not yet on views (the CLI's transform, the conformance
// image test), and goes once they take j2kfront::ImageView; new code should use view().
#include <cstdint>
#include <cstring>
#include <string>

#include "common/error.hpp"
#include "io/image_io.hpp"

namespace j2k::io {
namespace {

template <class T>
void widen(const j2kfront::Image::Component& from, Component& to) {
  to.samples.resize(static_cast<size_t>(from.width * from.height));
  const unsigned char* src = from.bytes.data();
  for (int32_t& v : to.samples) {
    T s;  // memcpy: no assumption about the byte buffer's alignment
    std::memcpy(&s, src, sizeof s);
    v = static_cast<int32_t>(s);
    src += sizeof s;
  }
}

}  // namespace

Image to_int32_image(const j2kfront::Image& image) {
  Image out;
  out.x0 = image.x0;
  out.y0 = image.y0;
  out.width = image.width;
  out.height = image.height;
  out.components.reserve(image.components.size());
  for (size_t c = 0; c < image.components.size(); ++c) {
    const j2kfront::Image::Component& k = image.components[c];
    Component& w = out.components.emplace_back();
    w.width = k.width;
    w.height = k.height;
    w.precision = k.precision;
    w.dx = k.dx;
    w.dy = k.dy;
    if (k.bytes.size() != static_cast<size_t>(k.width * k.height) * k.sample_size())
      throw Error(ErrorCode::InvalidArgument,
                  "component " + std::to_string(c) + ": holds " + std::to_string(k.bytes.size()) +
                      " bytes, not " + std::to_string(k.width) + "x" + std::to_string(k.height) +
                      " samples");
    switch (k.type) {
      case J2K_SAMPLE_U8: widen<uint8_t>(k, w); break;
      case J2K_SAMPLE_I8: widen<int8_t>(k, w); break;
      case J2K_SAMPLE_U16: widen<uint16_t>(k, w); break;
      case J2K_SAMPLE_I16: widen<int16_t>(k, w); break;
      case J2K_SAMPLE_U32: widen<uint32_t>(k, w); break;  // precision <= 16: fits
      case J2K_SAMPLE_I32: widen<int32_t>(k, w); break;
      default:  // F32 is no image sample type
        throw Error(ErrorCode::InvalidArgument,
                    "component " + std::to_string(c) + ": sample type " +
                        std::to_string(static_cast<int>(k.type)) + " has no int32 form");
    }
    w.is_signed = k.type == J2K_SAMPLE_I8 || k.type == J2K_SAMPLE_I16 || k.type == J2K_SAMPLE_I32;
  }
  return out;
}

}  // namespace j2k::io
