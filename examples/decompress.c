// SPDX-License-Identifier: BSD-2-Clause
/* j2kfront from C: a JPEG 2000 codestream (.j2k, .j2c) or JP2 file (.jp2) decoded, sample for
 * sample as opj_decompress decodes it, and written as a binary PGM (one component) or PPM
 * (three), 8 or 16 bits a sample (the header, then the samples most significant byte first:
 * the same file as `j2kfront decompress -i IN -o OUT.ppm` writes).
 *   decompress IN.jp2 OUT.ppm */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <j2kfront/j2kfront.h>

static int failed(j2k_status status, const char* call) {
  if (status == J2K_OK) return 0;
  fprintf(stderr, "%s: %s: %s\n", call, j2k_status_name(status), j2k_last_error());
  return 1;
}

/* The whole file in a buffer of malloc's (the caller frees it); NULL where it cannot be read. */
static unsigned char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  unsigned char* data = NULL;
  long n = -1;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
  if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)n)) != NULL &&
      fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = data ? (size_t)n : 0;
  return data;
}

/* The decoder's image as PGM / PPM: one or three unsigned components of the image's size (no
 * subsampling), up to 16 bits; maxval from the largest precision, two bytes a sample above 8. */
static int write_pnm(const char* path, const j2k_image_view* image) {
  const j2k_component_view* c = image->components;
  const int n = image->num_components;
  int i, precision = 0, wide;
  uint32_t x, y;
  FILE* f;
  if (n != 1 && n != 3) {
    fprintf(stderr, "%s: a PGM holds one component and a PPM three, the image has %d\n", path, n);
    return 1;
  }
  for (i = 0; i < n; ++i) {
    if (c[i].dx != 1 || c[i].dy != 1 || (c[i].type != J2K_SAMPLE_U8 && c[i].type != J2K_SAMPLE_U16)) {
      fprintf(stderr, "%s: component %d is subsampled, signed or wider than 16 bits\n", path, i);
      return 1;
    }
    if (c[i].precision > precision) precision = c[i].precision;
  }
  wide = precision > 8;
  f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "%s: cannot create the file\n", path);
    return 1;
  }
  fprintf(f, "P%c\n%u %u\n%lu\n", n == 1 ? '5' : '6', (unsigned)image->width, (unsigned)image->height,
          (unsigned long)((1ul << precision) - 1));
  /* Sample (x, y) of component i is at data + y * row_stride + x * pixel_stride. */
  for (y = 0; y < image->height; ++y)
    for (x = 0; x < image->width; ++x)
      for (i = 0; i < n; ++i) {
        const unsigned char* at = (const unsigned char*)c[i].data + y * c[i].row_stride + x * c[i].pixel_stride;
        const unsigned v = c[i].type == J2K_SAMPLE_U16 ? *(const uint16_t*)(const void*)at : *at;
        if (wide) putc((int)(v >> 8), f);
        putc((int)(v & 0xFF), f);
      }
  i = ferror(f);
  if (fclose(f) != 0 || i) {
    fprintf(stderr, "%s: cannot write the file\n", path);
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  j2k_decode_settings settings;
  j2k_decoder* decoder = NULL;
  j2k_image_view image;
  unsigned char* data;
  size_t size = 0;
  int rc = 1;

  if (argc != 3) {
    fprintf(stderr, "usage: %s IN.jp2|IN.j2k OUT.pgm|OUT.ppm\n", argv[0]);
    return 2;
  }
  data = read_file(argv[1], &size);
  if (!data) {
    fprintf(stderr, "%s: cannot read the file\n", argv[1]);
    return 1;
  }
  j2k_decode_settings_default(&settings); /* the whole image, every layer, backend auto */
  settings.backend = J2K_BACKEND_CPU;
  if (failed(j2k_decoder_create(&settings, &decoder), "j2k_decoder_create")) goto done;
  /* One decoder for any number of streams; the image is a view of its buffers, valid until
   * its next run or its destruction. */
  if (failed(j2k_decoder_run(decoder, data, size, &image), "j2k_decoder_run")) goto done;
  printf("%s: %u x %u, components %d, %d bits\n", argv[1], (unsigned)image.width, (unsigned)image.height,
         image.num_components, image.components[0].precision);
  rc = write_pnm(argv[2], &image);
done:
  j2k_decoder_destroy(decoder);
  free(data);
  return rc;
}
