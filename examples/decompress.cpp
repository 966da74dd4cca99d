// SPDX-License-Identifier: BSD-2-Clause
// j2kfront from C++: a JPEG 2000 codestream (.j2k, .j2c) or JP2 file (.jp2) decoded, sample for
// sample as opj_decompress decodes it, and written as a binary PGM (one component) or PPM
// (three), 8 or 16 bits a sample: the same file as examples/decompress.c and `j2kfront
// decompress -i IN -o OUT.ppm` write.
//   decompress_cpp IN.jp2 OUT.ppm
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <j2kfront/j2kfront.hpp>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN.jp2|IN.j2k OUT.pgm|OUT.ppm\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in || data.empty()) {
    std::fprintf(stderr, "%s: cannot read the file\n", argv[1]);
    return 1;
  }
  try {
    j2kfront::DecodeSettings settings;  // the whole image, every layer
    settings.backend = J2K_BACKEND_CPU;
    j2kfront::Decoder decoder(settings);  // for any number of streams
    // An image of its own (decoder.decode() gives views of the decoder's buffers instead).
    const j2kfront::Image image = decoder.decode_image(data.data(), data.size());
    const size_t n = image.components.size();
    std::printf("%s: %u x %u, components %zu, %d bits\n", argv[1], image.width, image.height, n,
                image.components[0].precision);
    int precision = 0;
    for (const auto& c : image.components) {
      if (c.dx != 1 || c.dy != 1 || (c.type != J2K_SAMPLE_U8 && c.type != J2K_SAMPLE_U16) || (n != 1 && n != 3)) {
        std::fprintf(stderr, "%s: PGM / PPM hold one or three unsigned components of the image's size, up to 16 bits\n", argv[2]);
        return 1;
      }
      precision = std::max(precision, c.precision);
    }
    const bool wide = precision > 8;
    std::string pnm = std::string(n == 1 ? "P5" : "P6") + "\n" + std::to_string(image.width) + " " +
                      std::to_string(image.height) + "\n" + std::to_string((1u << precision) - 1) + "\n";
    for (int64_t y = 0; y < image.height; ++y)
      for (int64_t x = 0; x < image.width; ++x)
        for (const auto& c : image.components) {  // each packed: c.row<T>(y)[x]
          const unsigned v = c.type == J2K_SAMPLE_U16 ? c.row<uint16_t>(y)[x] : c.row<uint8_t>(y)[x];
          if (wide) pnm += static_cast<char>(v >> 8);
          pnm += static_cast<char>(v & 0xFF);
        }
    std::ofstream out(argv[2], std::ios::binary);
    if (!out.write(pnm.data(), static_cast<std::streamsize>(pnm.size())).flush()) {
      std::fprintf(stderr, "%s: cannot write the file\n", argv[2]);
      return 1;
    }
  } catch (const j2kfront::Error& e) {
    std::fprintf(stderr, "j2kfront: %s: %s\n", j2k_status_name(e.status()), e.what());
    return 1;
  }
  return 0;
}
