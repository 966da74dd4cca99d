// SPDX-License-Identifier: BSD-2-Clause
/* j2kfront from C: a 256 x 192 8-bit RGB image, interleaved in one buffer, compressed to a
 * JP2 file with the 9/7 and three quality layers (compression ratios 40, 20 and 10).
 *   compress OUT.jp2 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <j2kfront/j2kfront.h>

static int failed(j2k_status status, const char* call) {
  if (status == J2K_OK) return 0;
  fprintf(stderr, "%s: %s: %s\n", call, j2k_status_name(status), j2k_last_error());
  return 1;
}

int main(int argc, char** argv) {
  enum { W = 256, H = 192 };
  static uint8_t rgb[H][W][3];
  static const double rates[3] = {40, 20, 10};
  j2k_component_view components[3];
  j2k_image_view image = {0};
  j2k_settings settings;
  j2k_coding coding;
  j2k_encoder* encoder = NULL;
  j2k_encode_report report;
  const uint8_t* data = NULL;
  size_t size = 0;
  FILE* f;
  int x, y, rc = 1;

  if (argc != 2) {
    fprintf(stderr, "usage: %s OUT.jp2\n", argv[0]);
    return 2;
  }
  for (y = 0; y < H; ++y)
    for (x = 0; x < W; ++x) {
      rgb[y][x][0] = (uint8_t)x;
      rgb[y][x][1] = (uint8_t)(y + x / 4);
      rgb[y][x][2] = (uint8_t)((x ^ y) & 0xFF);
    }
  j2k_views_interleaved(components, 3, rgb, sizeof rgb, J2K_SAMPLE_U8, 8, W * 3);
  image.width = W;
  image.height = H;
  image.num_components = 3;
  image.components = components;
  image.memory = J2K_MEMORY_HOST;

  j2k_settings_default(&settings);  /* the front stage: backend auto, 5 levels, one tile */
  settings.wavelet = J2K_WAVELET_97;
  j2k_coding_default(&coding);      /* the codestream: 64 x 64 blocks, LRCP, one layer */
  coding.format = J2K_FORMAT_JP2;
  coding.layers = 3;
  coding.rates = rates;
  if (failed(j2k_encoder_create(&settings, &coding, &image, &encoder), "j2k_encoder_create")) return 1;
  /* One encoder per image shape, run on any number of images of it. */
  if (failed(j2k_encoder_run(encoder, &image, &data, &size), "j2k_encoder_run")) goto done;
  if (failed(j2k_encoder_get_report(encoder, &report), "j2k_encoder_get_report")) goto done;
  f = fopen(argv[1], "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    fprintf(stderr, "%s: cannot write the file\n", argv[1]);
    goto done;
  }
  printf("%s: %zu bytes, layers at %.1f, %.1f and %.1f dB (estimated)\n", argv[1], size,
         report.layer_psnr[0], report.layer_psnr[1], report.layer_psnr[2]);
  rc = 0;
done:
  j2k_encoder_destroy(encoder);
  return rc;
}
