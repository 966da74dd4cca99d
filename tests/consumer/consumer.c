// SPDX-License-Identifier: BSD-2-Clause
/* examples/embed.cpp through the C interface: the front stage of a 64 x 48 8-bit RGB image,
 * interleaved in one buffer, on the CPU with 3 levels. Checks every status and the shapes. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <j2kfront/j2kfront.h>

static int failed(j2k_status status, const char* call) {
  if (status == J2K_OK) return 0;
  fprintf(stderr, "%s: %s: %s\n", call, j2k_status_name(status), j2k_last_error());
  return 1;
}

int main(void) {
  enum { W = 64, H = 48 };
  static uint8_t rgb[H][W][3];
  j2k_component_view components[3];
  j2k_image_view image;
  j2k_settings settings;
  j2k_plan* plan = NULL;
  j2k_plan_info info;
  j2k_tile_component tc;
  j2k_band ll;
  int x, y, rc = 1;

  if (strcmp(j2k_version(), J2KFRONT_VERSION_STRING) != 0) {
    fprintf(stderr, "library %s, headers %s\n", j2k_version(), J2KFRONT_VERSION_STRING);
    return 1;
  }
  for (y = 0; y < H; ++y)
    for (x = 0; x < W; ++x) {
      rgb[y][x][0] = (uint8_t)(x * 4);
      rgb[y][x][1] = (uint8_t)(y * 5);
      rgb[y][x][2] = (uint8_t)(x + y);
    }
  j2k_views_interleaved(components, 3, rgb, sizeof rgb, J2K_SAMPLE_U8, 8, W * 3);
  memset(&image, 0, sizeof image);
  image.width = W;
  image.height = H;
  image.num_components = 3;
  image.components = components;
  image.memory = J2K_MEMORY_HOST;
  image.device = -1;
  j2k_settings_default(&settings);
  settings.backend = J2K_BACKEND_CPU;
  settings.levels = 3;

  if (failed(j2k_plan_create(&settings, &image, &plan), "j2k_plan_create") ||
      failed(j2k_plan_run(plan, &image), "j2k_plan_run") ||
      failed(j2k_plan_get_info(plan, &info), "j2k_plan_get_info") ||
      failed(j2k_plan_get_tile_component(plan, 0, &tc), "j2k_plan_get_tile_component") ||
      failed(j2k_plan_get_band(plan, 0, 0, &ll), "j2k_plan_get_band"))
    goto done;
  printf("%zu tile-components; first band %lld x %lld\n", info.tile_components,
         (long long)ll.coefficients.width, (long long)ll.coefficients.height);
  /* One tile, 3 components, 3 levels: 1 + 3 * 3 bands, the LL 64/8 x 48/8. */
  if (info.tile_components != 3 || tc.bands != 10 || ll.type != J2K_BAND_LL ||
      ll.coefficients.width != 8 || ll.coefficients.height != 6 ||
      ll.coefficients.type != J2K_SAMPLE_I32) {
    fprintf(stderr, "unexpected shapes\n");
    goto done;
  }
  rc = 0;
done:
  j2k_plan_destroy(plan);
  return rc;
}
