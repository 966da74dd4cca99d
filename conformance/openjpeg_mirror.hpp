// SPDX-License-Identifier: BSD-2-Clause
// Byte-compatible mirrors of the OpenJPEG 2.5.0 internal structs that its DWT and MCT
// functions read (x86-64, GCC), and declarations of those functions, which Debian's static
// libopenjp2.a exports. Only the fields the transforms use are named; the rest is padding.
// Offsets are from ../shared/OPENJPEG.md; a mismatched library version is refused at run time
// (opj_version() must be "2.5.0"), since a layout change would make results meaningless.
#pragma once
#include <cstddef>
#include <cstdint>

namespace opj_mirror {

struct Resolution {                // opj_tcd_resolution_t
  int32_t x0, y0, x1, y1;          // +0
  unsigned char unused_16[16];
  unsigned char bands[3][48];      // +32: the DWT reads only the rectangles above
  unsigned char unused_176[16];
};
static_assert(sizeof(Resolution) == 192, "opj_tcd_resolution_t is 192 bytes");
static_assert(offsetof(Resolution, bands) == 32, "bands start at +32");

struct TileComp {                  // opj_tcd_tilecomp_t
  int32_t x0, y0, x1, y1;          // +0x00
  unsigned char unused_10[4];
  uint32_t numresolutions;         // +0x14
  uint32_t minimum_num_resolutions;  // +0x18: the decoder takes its stride from this one
  unsigned char unused_1c[4];
  Resolution* resolutions;         // +0x20, index 0 = lowest resolution
  unsigned char unused_28[8];
  int32_t* data;                   // +0x30 (holds float32 for the 9/7)
  unsigned char unused_38[16];
  size_t data_size;                // +0x48 (72)
  unsigned char unused_50[24];
  size_t numpix;                   // +0x68 (104)
};
static_assert(sizeof(TileComp) == 112, "opj_tcd_tilecomp_t is 112 bytes");
static_assert(offsetof(TileComp, numresolutions) == 0x14, "numresolutions at +0x14");
static_assert(offsetof(TileComp, minimum_num_resolutions) == 0x18, "min resolutions at +0x18");
static_assert(offsetof(TileComp, resolutions) == 0x20, "resolutions at +0x20");
static_assert(offsetof(TileComp, data) == 0x30, "data at +0x30");
static_assert(offsetof(TileComp, data_size) == 72, "data_size at 72");
static_assert(offsetof(TileComp, numpix) == 104, "numpix at 104");

struct Tcd {                       // opj_tcd_t
  unsigned char unused_00[0x40];
  void* thread_pool;               // +0x40
  unsigned char unused_48[0x10];
  int32_t whole_tile_decoding;     // +0x58: must be 1 for opj_dwt_decode
  unsigned char unused_5c[12];
};
static_assert(sizeof(Tcd) == 104, "opj_tcd_t is 104 bytes");
static_assert(offsetof(Tcd, thread_pool) == 0x40, "thread_pool at +0x40");
static_assert(offsetof(Tcd, whole_tile_decoding) == 0x58, "whole_tile_decoding at +0x58");

}  // namespace opj_mirror

extern "C" {
typedef int OPJ_BOOL;
const char* opj_version(void);
void* opj_thread_pool_create(int num_threads);
void opj_thread_pool_destroy(void* tp);
OPJ_BOOL opj_dwt_encode(opj_mirror::Tcd* tcd, opj_mirror::TileComp* tilec);
OPJ_BOOL opj_dwt_encode_real(opj_mirror::Tcd* tcd, opj_mirror::TileComp* tilec);
OPJ_BOOL opj_dwt_decode(opj_mirror::Tcd* tcd, opj_mirror::TileComp* tilec, uint32_t numres);
OPJ_BOOL opj_dwt_decode_real(opj_mirror::Tcd* tcd, opj_mirror::TileComp* tilec, uint32_t numres);
void opj_mct_encode(int32_t* c0, int32_t* c1, int32_t* c2, size_t n);
void opj_mct_encode_real(float* c0, float* c1, float* c2, size_t n);
void opj_mct_decode(int32_t* c0, int32_t* c1, int32_t* c2, size_t n);
void opj_mct_decode_real(float* c0, float* c1, float* c2, size_t n);
}
