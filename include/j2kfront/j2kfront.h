// SPDX-License-Identifier: BSD-2-Clause
/* j2kfront: the front stage of a JPEG 2000 encoder (ISO/IEC 15444-1): tiling on the canvas,
 * DC level shift, RCT/ICT and the multi-level DWT (reversible 5/3, irreversible 9/7), bit for
 * bit as OpenJPEG 2.5.0 computes them, on the CPU, CUDA or OpenCL; and the encoder built on it
 * (j2k_encoder_*: Tier-1, rate control, Tier-2, .j2k codestreams and .jp2 files).
 *
 * The C interface: opaque handles, plain structs, no exceptions. Every function that can fail
 * returns a j2k_status; on failure j2k_last_error() gives a message naming the cause (kept per
 * thread until the next call of this library on that thread). The library reads no environment
 * variables: every choice is a field of j2k_settings.
 *
 * Buffers: every raw pointer comes with its size in bytes, and the library reads and writes
 * only within it; a view or stride that reaches past the size given is refused with
 * J2K_INVALID_ARGUMENT, naming both figures.
 *
 * Ownership: the library never keeps a pointer to a caller's struct after a call returns, and
 * never frees caller memory. Buffers handed over with j2k_plan_set_output must outlive every
 * run or frame that writes them. Pointers that the library returns (coefficients, strings) stay
 * valid until the handle that gave them is destroyed (or the output is replaced).
 *
 * Threads: a handle may be used by one thread at a time; different handles are independent.
 */
#ifndef J2KFRONT_H_
#define J2KFRONT_H_

#include <stddef.h>
#include <stdint.h>

#include "j2kfront/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- status */

typedef enum j2k_status {
  J2K_OK = 0,
  J2K_INVALID_ARGUMENT = 1,    /* a setting, view or geometry that the standard or j2kfront rejects */
  J2K_UNSUPPORTED_INPUT = 2,   /* valid, but not something j2kfront handles */
  J2K_CORRUPT_INPUT = 3,       /* truncated or inconsistent data */
  J2K_IO_ERROR = 4,            /* the operating system refused a read or a write */
  J2K_BACKEND_UNAVAILABLE = 5, /* the backend is not built in, or has no usable device */
  J2K_BACKEND_FAILURE = 6,     /* a CUDA or OpenCL call failed at run time */
  J2K_OUT_OF_MEMORY = 7,       /* host or device memory could not be allocated */
  J2K_INTERNAL_ERROR = 8       /* a bug: please report it with the message */
} j2k_status;

/* "J2K_INVALID_ARGUMENT" etc.; "unknown status" for other values. */
const char* j2k_status_name(j2k_status status);
/* The message of the last failed call on this thread ("" after a successful one). */
const char* j2k_last_error(void);
/* "0.3.0" */
const char* j2k_version(void);

/* ---------------------------------------------------------------- choices */

typedef enum j2k_wavelet { J2K_WAVELET_53 = 0, J2K_WAVELET_97 = 1 } j2k_wavelet;
/* AUTO: the component transform on components 0..2 when there are at least 3 with the same
 * subsampling (RCT with the 5/3, ICT with the 9/7). */
typedef enum j2k_mct { J2K_MCT_AUTO = 0, J2K_MCT_ON = 1, J2K_MCT_OFF = 2 } j2k_mct;
/* AUTO: CUDA when a CUDA device is there, else an OpenCL GPU, else the CPU. */
typedef enum j2k_backend {
  J2K_BACKEND_AUTO = 0,
  J2K_BACKEND_CPU = 1,
  J2K_BACKEND_CUDA = 2,
  J2K_BACKEND_OPENCL = 3
} j2k_backend;

/* Where a buffer lives. PINNED: page-locked host memory (cudaMallocHost or registered),
 * usable by the host and by copies on the device's streams. DEVICE: CUDA device memory.
 * A plan works on streams of its own that do not wait for other streams (not even the legacy
 * default stream): work the caller queued on its buffers (a cudaMemset, a copy, a kernel) must
 * be finished, e.g. with cudaStreamSynchronize, before j2k_plan_run or j2k_plan_submit. */
typedef enum j2k_memory {
  J2K_MEMORY_HOST = 0,
  J2K_MEMORY_PINNED = 1,
  J2K_MEMORY_DEVICE = 2
} j2k_memory;

/* "auto", "cpu", "cuda", "opencl"; NULL for other values. */
const char* j2k_backend_name(j2k_backend backend);
/* Whether the backend is compiled in and has a usable device here. When it has not and
 * `why` is not NULL, *why points to the reason (valid until the next call on this thread). */
int j2k_backend_available(j2k_backend backend, const char** why);

/* ---------------------------------------------------------------- image views */

typedef enum j2k_sample_type {
  J2K_SAMPLE_U8 = 0,
  J2K_SAMPLE_I8 = 1,
  J2K_SAMPLE_U16 = 2,
  J2K_SAMPLE_I16 = 3,
  J2K_SAMPLE_U32 = 4,
  J2K_SAMPLE_I32 = 5,
  J2K_SAMPLE_F32 = 6 /* coefficients of the 9/7 only; not an image sample type */
} j2k_sample_type;

/* Bytes of one sample of `type` (0 for an unknown type). */
size_t j2k_sample_size(j2k_sample_type type);

/* One component of an image, seen where it is: never copied or widened on the host.
 * Sample (x, y) of the component (0-based on the component's own grid) is at
 * (const char*)data + y * row_stride + x * pixel_stride. Strides are in bytes and may be larger
 * than the samples need (padding, interleaving); they must be multiples of the sample size.
 * The component's size follows from the image area and the subsampling (ISO/IEC 15444-1 B-12):
 * width = ceil((x0 + image width) / dx) - ceil(x0 / dx), likewise the height. Every sample
 * must lie within the `bytes` bytes from `data` on: (height - 1) * row_stride +
 * (width - 1) * pixel_stride + sample size <= bytes. */
typedef struct j2k_component_view {
  const void* data;
  j2k_sample_type type;  /* U8..I32; signed types hold signed samples */
  int precision;         /* significant bits: 1..16 (a decoder's views: 1..31), at most the type's width */
  int dx, dy;            /* subsampling XRsiz, YRsiz: 1..255 */
  ptrdiff_t row_stride;  /* bytes from a row to the next */
  ptrdiff_t pixel_stride;/* bytes from a sample to the next in a row (1 component of 3 interleaved u8: 3) */
  size_t bytes;          /* bytes readable from data on (checked by run and submit) */
} j2k_component_view;

/* An image on the JPEG 2000 canvas: the area [x0, x0 + width) x [y0, y0 + height) of the
 * reference grid, and its components. */
typedef struct j2k_image_view {
  uint32_t x0, y0;
  uint32_t width, height;
  int num_components;                     /* 1..16384 */
  const j2k_component_view* components;   /* num_components entries */
  j2k_memory memory;                      /* where every component's samples are */
  int device;                             /* the CUDA device of DEVICE/PINNED memory (-1: current) */
} j2k_image_view;

/* Fills out[0..channels) for `channels` interleaved components of one buffer of `bytes` bytes
 * (RGB, RGBA): component c starts at byte c * sample size of `data`, pixel stride
 * channels * sample size. */
void j2k_views_interleaved(j2k_component_view* out, int channels, const void* data, size_t bytes,
                           j2k_sample_type type, int precision, ptrdiff_t row_stride);
/* Fills out[0..channels) for `channels` planes of one buffer of `bytes` bytes, plane c at byte
 * c * plane_stride. */
void j2k_views_planar(j2k_component_view* out, int channels, const void* data, size_t bytes,
                      j2k_sample_type type, int precision, ptrdiff_t row_stride,
                      ptrdiff_t plane_stride);

/* ---------------------------------------------------------------- settings */

/* An embedder's own threads for j2kfront's CPU work, instead of j2kfront's pool: `run` must call
 * task(task_arg, item, worker) once for every item in [0, count), with `worker` in
 * [0, workers) and no two calls in progress sharing a worker index (j2kfront keeps scratch per
 * index), and return when all have returned. It may use any of its threads, the calling one
 * included, or run the items one after another. Items never block on each other; a task may
 * itself call `run` again (nested). */
typedef void (*j2k_task_fn)(void* task_arg, size_t item, int worker);
typedef struct j2k_thread_pool {
  void (*run)(void* context, size_t count, int workers, j2k_task_fn task, void* task_arg);
  void* context;
  int workers;  /* worker indices run may hand out: 1..; the CPU work's thread count */
} j2k_thread_pool;

typedef struct j2k_settings {
  j2k_wavelet wavelet;      /* J2K_WAVELET_53 */
  int levels;               /* decomposition levels 0..32 (5); more than a size allows is fine */
  uint32_t tile_w, tile_h;  /* nominal tile size; 0,0 = one tile covering the image */
  uint32_t tile_x0, tile_y0;/* tile grid origin, at most the image origin (0,0) */
  j2k_mct mct;              /* J2K_MCT_AUTO */
  j2k_backend backend;      /* J2K_BACKEND_AUTO */
  int threads;              /* CPU worker threads; 0 = one per core this process may use. The
                               workers are one process-wide pool that sleeps while idle (after
                               at most 50 us of spinning) and grows to the largest count asked.
                               At most 8 per core, and at least 64 are allowed */
  int device;               /* CUDA / OpenCL device index; -1 = the first (GPU) device */
  j2k_memory output_memory; /* where plan-owned coefficients live: HOST (pinned where the backend
                               copies from the device), or DEVICE to keep them on a CUDA GPU */
  /* A backend's own options, for tests, benchmarks and tuning; NULL or "" = every backend's
   * defaults. Comma-separated items, each named after the backend it is for; a backend reads
   * its own and ignores the others', and any item it does not know is refused with
   * J2K_INVALID_ARGUMENT. "opencl.small" (tiny tiles that cross every boundary on small images),
   * "opencl.hp=2", "opencl.hgroup=128", "opencl.max_alloc=N" (the largest buffer N bytes where
   * the device allows more: a large device run as a small one), "opencl.buildlog";
   * "cuda.fuse_97" and "cuda.fuse_inverse" (experimental kernels, exact but not faster on the
   * H100, bench/RESULTS.md: the 9/7 forward with levels 1 and 2 fused, the inverse with
   * levels 2 and 1 fused). */
  const char* backend_options;
  /* Tiles in flight on a GPU backend: the plan deals tiles round-robin (across frames too) to
   * this many queues (CUDA streams, OpenCL command queues), each with its own buffers, so that
   * one tile's upload, transform and download overlap its neighbours'. 0 = the backend's
   * choice: 3 on GPUs (2 for an image of one tile, so that consecutive frames overlap); on the
   * CPU, one single-threaded queue per worker thread, running tiles side by side, when there
   * are at least twice as many tiles as threads, else 1 (each tile on all threads); at most 16. */
  int streams;
  /* 1: int16 coefficients (J2K_SAMPLE_I16) instead of int32, halving what a GPU downloads. For
   * the 5/3, where no coefficient can leave the int16 range: samples up to 12 bits, up to 11
   * with the RCT (any number of levels); the plan refuses others, naming the bound. 0 = int32. */
  int narrow_output;
  /* Host memory (pageable and page-locked) the plan may hold, in bytes: its coefficients (in
   * host memory) plus its queues' buffers. j2k_plan_create refuses a plan that needs more with
   * J2K_OUT_OF_MEMORY, naming both figures, before allocating its coefficients. 0 = no limit. */
  size_t max_host_memory;
  /* The embedder's thread pool for the CPU work of plans and DWTs made with these settings
   * (copied at creation); NULL = j2kfront's own. With a pool, `threads` must be 0. */
  const j2k_thread_pool* thread_pool;
  /* Decomposition levels per component, 0..32 each: NULL = `levels` for every component; else
   * one entry per component of the image (read when a plan or encoder is created), which
   * replace `levels`. An encoder writes COD with component 0's, and COC (with QCC) for each
   * other component whose levels differ, e.g. fewer levels for subsampled chroma. */
  const int* component_levels;
} j2k_settings;

/* The defaults noted above. Always start from these: fields may be added at the end. */
void j2k_settings_default(j2k_settings* settings);

/* ---------------------------------------------------------------- geometry */

typedef struct j2k_rect {
  int64_t x0, y0, x1, y1; /* [x0, x1) x [y0, y1) */
} j2k_rect;

typedef enum j2k_band_type { J2K_BAND_LL = 0, J2K_BAND_HL = 1, J2K_BAND_LH = 2, J2K_BAND_HH = 3 } j2k_band_type;

/* ---------------------------------------------------------------- plans */

/* A front stage built once for one image shape (canvas, components, sample types, memory),
 * then run on any number of images of that shape without allocating. */
typedef struct j2k_plan j2k_plan;

/* `shape`: a view of an image of the shape to come; only its geometry, types and memory are
 * read (data pointers may be NULL). All output buffers and device memory are allocated here. */
j2k_status j2k_plan_create(const j2k_settings* settings, const j2k_image_view* shape,
                           j2k_plan** plan);
void j2k_plan_destroy(j2k_plan* plan); /* NULL is fine */

typedef struct j2k_plan_info {
  j2k_backend backend;         /* the backend in use (never AUTO) */
  const char* description;     /* e.g. "cuda (device 0: NVIDIA H100, sm_90)" */
  int mct;                     /* whether RCT/ICT runs on components 0..2 */
  int64_t tiles_x, tiles_y;
  size_t tile_components;      /* tiles_x * tiles_y * components, tile-major */
  j2k_sample_type coefficient_type; /* I32 for the 5/3 (I16 with narrow_output), F32 for the 9/7 */
  int streams;                 /* tiles in flight (queues in use): see j2k_settings.streams */
} j2k_plan_info;
j2k_status j2k_plan_get_info(const j2k_plan* plan, j2k_plan_info* info);

/* Memory the plan holds, by kind, in bytes (as CUB's workspace queries: known before any work). */
typedef struct j2k_memory_report {
  size_t host;    /* pageable host memory */
  size_t pinned;  /* page-locked host memory */
  size_t device;  /* GPU memory */
} j2k_memory_report;
j2k_status j2k_plan_get_memory(const j2k_plan* plan, j2k_memory_report* report);

/* A rectangle of coefficients: element (x, y) at (char*)data + y * row_stride + x * element size. */
typedef struct j2k_coefficients {
  void* data;
  j2k_sample_type type;  /* J2K_SAMPLE_I32 (5/3; I16 with narrow_output) or J2K_SAMPLE_F32 (9/7) */
  ptrdiff_t row_stride;  /* bytes */
  int64_t width, height;
  j2k_memory memory;
} j2k_coefficients;

typedef struct j2k_tile_component {
  int64_t tile;           /* raster index */
  int component;
  j2k_rect rect;          /* on the component's grid (B-12) */
  int levels;
  int bands;              /* 1 + 3 * levels: LL first, then HL, LH, HH from the coarsest level */
  j2k_coefficients coefficients; /* the whole tile-component in OpenJPEG's pyramid layout */
} j2k_tile_component;
j2k_status j2k_plan_get_tile_component(const j2k_plan* plan, size_t index,
                                       j2k_tile_component* out);

typedef struct j2k_band {
  j2k_band_type type;
  int level;              /* decomposition level nb (1 = finest); for LL, the number of levels */
  j2k_rect rect;          /* on the band's own grid (B-15) */
  int64_t col, row;       /* its top-left sample in the tile-component's coefficients */
  j2k_coefficients coefficients; /* a view of just this band */
} j2k_band;
j2k_status j2k_plan_get_band(const j2k_plan* plan, size_t tile_component, int band,
                             j2k_band* out);

/* Makes tile-component `index` write into the caller's buffer from the next run or submit on: `data`
 * (`bytes` bytes) holds height rows of width coefficients of the plan's coefficient type,
 * `row_stride` bytes apart, in `memory` (DEVICE only with the CUDA backend): at least
 * (height - 1) * row_stride + width * coefficient size bytes. NULL data returns to the plan's
 * own. */
j2k_status j2k_plan_set_output(j2k_plan* plan, size_t index, void* data, size_t bytes,
                               ptrdiff_t row_stride, j2k_memory memory);

/* Runs the front stage on `image`, which must have the plan's shape (same geometry, types and
 * memory; data and strides may differ). Returns when every coefficient is written. */
j2k_status j2k_plan_run(j2k_plan* plan, const j2k_image_view* image);

/* Frames in flight, for an encoder that feeds a sequence: j2k_plan_submit queues one image's
 * work and returns with a ticket (on a GPU while the work goes on; on the CPU backend after
 * doing it), and j2k_plan_wait returns when that frame's coefficients are written, with the
 * frame's own status: a problem in one frame (a sample out of range, a device failure) is
 * reported by its wait, and the frames before and after it are not affected. The image and
 * the frame's outputs (where j2k_plan_set_output pointed when it was submitted) must stay
 * valid and unchanged until its wait returns. At most J2K_MAX_FRAMES_IN_FLIGHT frames may be
 * submitted and not yet waited for, and only one of them may write the plan's own buffer:
 * point the others at their own outputs. Every ticket must be waited for once; destroying a
 * plan first waits for all its frames. */
#define J2K_MAX_FRAMES_IN_FLIGHT 8
typedef uint64_t j2k_ticket; /* never 0 */
j2k_status j2k_plan_submit(j2k_plan* plan, const j2k_image_view* image, j2k_ticket* ticket);
j2k_status j2k_plan_wait(j2k_plan* plan, j2k_ticket ticket);
/* The same frames ordered against the caller's CUDA streams on the device, without blocking
 * the host (CUDA backend only; `stream` is a cudaStream_t, NULL for the legacy default stream):
 * j2k_plan_submit_after queues a frame that first waits for the work `stream` holds now (the
 * kernel or copy that produced its samples, say); j2k_plan_signal makes `stream` wait for
 * frame `ticket` to be written (before a GPU coder reads its coefficients, say). Each ticket is
 * still waited for once with j2k_plan_wait, which reports the frame's status. */
j2k_status j2k_plan_submit_after(j2k_plan* plan, const j2k_image_view* image, void* stream,
                                 j2k_ticket* ticket);
j2k_status j2k_plan_signal(j2k_plan* plan, j2k_ticket ticket, void* stream);

/* A timeline of the device's work, to see what overlaps: with tracing on, each tile's upload,
 * transform (DC shift, RCT/ICT and DWT) and download are timed on the device as they run (CUDA
 * events; other backends record nothing). Tracing allocates as it goes: leave it off in
 * production. Switching it on or off waits for all work and forgets earlier spans. */
typedef enum j2k_stage {
  J2K_STAGE_UPLOAD = 0,
  J2K_STAGE_TRANSFORM = 1,
  J2K_STAGE_DOWNLOAD = 2,
  /* An encoder's stages (j2k_encode_report), for timelines of frames in flight. */
  J2K_STAGE_FRONT = 3,
  J2K_STAGE_TIER1 = 4,
  J2K_STAGE_RATE = 5,
  J2K_STAGE_TIER2 = 6
} j2k_stage;
typedef struct j2k_span {
  int queue;             /* 0 .. streams-1 */
  j2k_ticket frame;      /* the frame's ticket (j2k_plan_run's frames have one too) */
  int64_t tile;
  j2k_stage stage;
  double begin_ms, end_ms; /* from when tracing went on */
} j2k_span;
j2k_status j2k_plan_set_tracing(j2k_plan* plan, int on);
/* The spans recorded since tracing went on, once their frames have been waited for: up to
 * `capacity` of them into `spans` (NULL with 0 to ask), their total in *count. */
j2k_status j2k_plan_get_timeline(const j2k_plan* plan, j2k_span* spans, size_t capacity, size_t* count);

/* Time of each stage of the last run (or submit), in milliseconds. */
typedef struct j2k_stage_times {
  double split_ms;      /* reading the view into tile-components (and uploading) */
  double shift_mct_ms;  /* DC level shift and RCT/ICT */
  double dwt_ms;        /* the DWT (and downloading) */
} j2k_stage_times;
j2k_status j2k_plan_get_times(const j2k_plan* plan, j2k_stage_times* times);

/* ---------------------------------------------------------------- compress */

/* A JPEG 2000 Part 1 codestream (or JP2 file) from an image: the front stage of a plan (any
 * backend), then Tier-1 on the CPU's threads, rate control (PCRD-opt) and Tier-2. The wavelet,
 * levels, component transform, tiles, backend and threads are those of j2k_settings; how the
 * coefficients are coded is j2k_coding. The codestream options follow opj_compress's. */

typedef enum j2k_progression {
  J2K_LRCP = 0, J2K_RLCP = 1, J2K_RPCL = 2, J2K_PCRL = 3, J2K_CPRL = 4
} j2k_progression;

/* Profiles a codestream can keep to (ISO/IEC 15444-1 Table A.10: SIZ's Rsiz; IMF's without
 * its main and sub level). */
typedef enum j2k_profile {
  J2K_PROFILE_NONE = 0,
  J2K_PROFILE_CINEMA_2K = 3,      /* digital cinema (DCI) 2K, as opj_compress -cinema2K */
  J2K_PROFILE_CINEMA_4K = 4,      /* digital cinema (DCI) 4K, as opj_compress -cinema4K */
  J2K_PROFILE_IMF_2K = 0x0400,    /* IMF (SMPTE ST 2067-21), as opj_compress -IMF 2K, ... */
  J2K_PROFILE_IMF_4K = 0x0500,
  J2K_PROFILE_IMF_8K = 0x0600,
  J2K_PROFILE_IMF_2K_R = 0x0700,  /* the reversible (5/3) IMF profiles */
  J2K_PROFILE_IMF_4K_R = 0x0800,
  J2K_PROFILE_IMF_8K_R = 0x0900
} j2k_profile;

typedef enum j2k_file_format {
  J2K_FORMAT_J2K = 0, /* a raw codestream (.j2k, .j2c) */
  J2K_FORMAT_JP2 = 1  /* a JP2 file (.jp2): signature, ftyp, jp2h, jp2c; with J2K_MODE_HT a
                         JPH file (.jph, ISO/IEC 15444-15: brand 'jph ') */
} j2k_file_format;

/* The format a file name's extension says, in any case: .j2k, .j2c, .jpc and (HTJ2K) .jhc a
 * raw codestream, .jp2 and (HTJ2K, brand 'jph ') .jph a JP2 file. Returns 1 and sets *format
 * (where not NULL) for those, 0 for any other. */
int j2k_file_format_from_name(const char* path, j2k_file_format* format);
/* 1 for the names of Part 15 (.jhc, .jph: HT code-blocks, J2K_MODE_HT), else 0. */
int j2k_file_format_is_ht(const char* path);

/* A box of a JP2 file beside its image (ISO/IEC 15444-1 I.7): its type, four characters read
 * as a big-endian number (J2K_BOX_UUID 'uuid', J2K_BOX_XML 'xml '), and its `size` bytes of
 * contents at `data` (a UUID box's start with its 16-byte UUID: J2K_UUID_XMP, an XMP packet;
 * J2K_UUID_EXIF, Exif as a TIFF structure, as Exiv2 and Adobe write it; J2K_UUID_GEOJP2, a
 * GeoJP2 GeoTIFF). */
typedef struct j2k_box {
  uint32_t type;
  const uint8_t* data;
  size_t size;
} j2k_box;
#define J2K_BOX_UUID 0x75756964u /* 'uuid' */
#define J2K_BOX_XML 0x786D6C20u  /* 'xml ' */
#define J2K_UUID_XMP "\xBE\x7A\xCF\xCB\x97\xA9\x42\xE8\x9C\x71\x99\x94\x91\xE3\xAF\xAC"
#define J2K_UUID_EXIF "JpgTiffExif->JP2"
#define J2K_UUID_GEOJP2 "\xB1\x4B\xF8\xBD\x08\x3D\x4B\x43\xA5\xAE\x8C\xD7\xD5\xA6\xCE\x03"

/* Code-block mode switches (COD's SPcod, Table A.19), to be or-ed together. */
#define J2K_MODE_BYPASS 1   /* raw (uncoded) passes from the 5th bit plane on */
#define J2K_MODE_RESET 2    /* context probabilities reset after each pass */
#define J2K_MODE_RESTART 4  /* the MQ coder terminated after each pass */
#define J2K_MODE_VSC 8      /* vertically causal contexts */
#define J2K_MODE_ERTERM 16  /* predictable termination */
#define J2K_MODE_SEGMARK 32 /* a segmentation symbol after each cleanup pass */
/* HTJ2K (ISO/IEC 15444-15): HT code-blocks instead of EBCOT (the stream gets CAP and COD's
 * style bit 6). Alone (no other J2K_MODE_*). Without rates or PSNR targets each block is one
 * HT cleanup pass down to the quantiser's step; with them each block's cleanup plane is
 * chosen, with its SigProp and MagRef passes, and several layers add a block's passes from
 * one layer to the next (one HT set per block). */
#define J2K_MODE_HT 64

/* One progression order change of one tile (A.6.6), as opj_compress -POC T<tile + 1>=RS,CS,
 * LE,RE,CE,PROG: the packets of layers 0..layer_end - 1, resolutions res_start..res_end - 1
 * and components comp_start..comp_end - 1 in `progression`, those an earlier change of the
 * tile sent left out (B.12.2). */
typedef struct j2k_poc {
  int tile;                    /* the tile's raster index, 0 the first */
  int res_start, comp_start;   /* 0..32; a component of the image */
  int layer_end;               /* 1..65535 (more than the layers: all of them) */
  int res_end, comp_end;       /* res_start + 1..33; comp_start + 1.. (past the image's
                                  components: up to the last, as OpenJPEG clamps it) */
  j2k_progression progression;
} j2k_poc;

typedef struct j2k_coding {
  j2k_file_format format;     /* J2K_FORMAT_J2K */
  int layers;                 /* quality layers: 1..65535 (1) */
  /* At most one of rates and psnr, each NULL or `layers` entries (both NULL: lossless).
   * rates: per layer, the compression ratio of the stream up to and with that layer, as
   *   opj_compress -r: the samples' bytes at their precision divided by the codestream's
   *   bytes (a JP2 file adds its boxes, some 80 bytes); decreasing; 0 or 1 (only for the last
   *   layer): every pass, lossless with the 5/3.
   * psnr: per layer, the PSNR in dB the image decoded from the layers up to that one reaches,
   *   as opj_compress -q; increasing; 0 (only for the last layer): every pass. */
  const double* rates;
  const double* psnr;
  int block_w, block_h;       /* code-block size: powers of two 4..1024, w * h <= 4096 (64, 64) */
  /* Precinct sizes as opj_compress -c: num_precincts (w, h) pairs in `precincts`, powers of
   * two, the first for the highest resolution, each next one for the next lower; the last one
   * halved for each resolution below it. 0 / NULL: one precinct per resolution (2^15). */
  int num_precincts;
  const int* precincts;       /* 2 * num_precincts ints: w0, h0, w1, h1, ... */
  j2k_progression progression;/* J2K_LRCP */
  unsigned modes;             /* J2K_MODE_* bits (0) */
  int sop, eph;               /* SOP before each packet, EPH after each packet header (0, 0) */
  int plt, tlm;               /* packet lengths per tile-part, tile-part lengths (0, 0) */
  char tile_parts;            /* 0: one tile-part per tile; 'R', 'L' or 'C': a new tile-part
                                 wherever the resolution, layer or component changes */
  int guard_bits;             /* 0..7; -1: 2, or more where the 5/3's coefficients need them */
  const char* comment;        /* a COM marker's Latin-1 text; NULL or "": none */
  /* A profile the codestream keeps to (J2K_PROFILE_NONE). The cinema profiles code 3
   * unsigned 12-bit components (X'Y'Z') of at most 2048 x 1080 (2K) or 4096 x 2160 (4K) at
   * the canvas's origin, and set what DCI fixes over the fields above and the settings' own:
   * the 9/7 with the ICT, one tile, at most 5 (2K) or 6 (4K) levels, 32 x 32 code-blocks
   * without mode switches, precincts of 128 at the lowest resolution and 256 above, CPRL (4K:
   * in two progression changes, the highest resolution last), a tile-part per component,
   * TLM, Rsiz; rates (or none: the largest frame) are kept within DCI's bytes a frame
   * (1,302,083 at 24 fps, 651,041 at 48) and a component (1,041,666; 520,833). The IMF
   * profiles code 1 to 3 unsigned components of 8 to 16 bits (4:4:4 or 4:2:2) of at most
   * 2048 x 1556, 4096 x 3112 or 8192 x 6224, in one layer, with the 9/7 (the _R profiles: the
   * 5/3), one tile (_R: or tiles of 1024, 2048 for 4K_R and 8K_R, 4096 for 8K_R), at most 5, 6
   * or 7 levels (_R: fewer on narrower tiles), and the cinema profiles' code-blocks,
   * precincts, CPRL, tile-parts and TLM; with a frame rate, the sub level's bits a second cap
   * the frame and the main level's samples a second are checked. Not with HT or PSNR
   * targets. */
  j2k_profile profile;
  double frame_rate;          /* frames a second: cinema 2K 24 or 48, 4K 24 (0: 24); IMF any
                                 (0: none, so no rate limit) */
  int imf_mainlevel;          /* IMF's main level 0..11 (0: unspecified) */
  int imf_sublevel;           /* IMF's sub level 0..9, at most Table A.53's for the main level */
  int last_is_alpha;          /* 1: the last component is an alpha channel (grey + alpha, RGB +
                                 alpha), which a JP2 file says in a cdef box (0) */
  uint64_t max_bytes;         /* host memory the encoder may take: the front stage's
                                 coefficients, every code-block's and precinct's records,
                                 Tier-1's output, the packets and the file, each counted before
                                 it is made; settings or an image needing more are refused with
                                 J2K_OUT_OF_MEMORY (at create, or at run for what depends on
                                 the image) naming what for; 0: no limit (0) */
  double qstep;               /* the 9/7's base quantisation step as a fraction of each
                                 component's range (2^precision), each band's step this over
                                 the band's synthesis norm, as ojph_compress -qstep and
                                 Kakadu's Qstep; without rates or PSNR targets every block
                                 is coded down to it (HT: one cleanup pass). 0: a step of 1
                                 sample value (1 / 2^precision). Not with the 5/3 (0) */
  /* Frames in flight (j2k_encoder_submit): up to this many encoders side by side, each with
   * its own plan, buffers and (on a GPU) streams, made as the frames need them: the first at
   * the first submit (the encoder j2k_encoder_create made, where it is on the first device),
   * another at a submit that finds every one busy and a frame waiting already (a caller that
   * feeds frames no faster than one encoder codes them never pays for the others; one that
   * cannot be made for want of memory leaves the frames to those there are); 1 to
   * J2K_MAX_FRAMES_IN_FLIGHT; 0: 2 (0). max_bytes holds for each of them. */
  int frames_in_flight;
  /* The GPUs the frames in flight go to (several GPUs of one host), their encoders spread in
   * order: encoder i on devices[i * num_devices / frames_in_flight], the first device's made
   * first; NULL / 0: the settings' device (NULL, 0) */
  const int* devices;
  int num_devices;
  /* Progression order changes of single tiles, as opj_compress -POC: num_pocs entries, each
   * tile's in order. A tile with changes gets them in a POC segment in its first tile-part's
   * header and a tile-part for each change (divided further by tile_parts), an empty one for a
   * change that sends nothing; the packets no change of the tile covers are not written (the
   * image loses them, as opj_compress's file does). Not with a profile (0, NULL) */
  int num_pocs;
  const j2k_poc* pocs;
  /* A region of interest by max-shift (RGN, Annex H) over the whole component roi_component,
   * as opj_compress -ROI c=roi_component,U=roi_shift: the main header's RGN segment says the
   * shift and the code-blocks are coded as without it (decoders take them roi_shift bit planes
   * higher and shift back, the same samples). roi_shift 1..29: a block's bit planes plus the
   * shift must not pass 30, what decoders take (checked as the blocks are coded); 0: none. Not
   * with J2K_MODE_HT (OpenJPEG decodes no ROI in HT code-blocks) or a profile (0, 0) */
  int roi_component;
  int roi_shift;
  /* What a JP2 file holds beside the image (J2K_FORMAT_JP2 only: a codestream has no place for
   * any of it, and giving one with J2K_FORMAT_J2K is J2K_INVALID_ARGUMENT). */
  const uint8_t* icc_profile; /* an ICC profile of icc_profile_size bytes, written in the
                                 Colour Specification box (method 2, restricted ICC) instead of
                                 the enumerated sRGB or greyscale: a grey profile for 1 or 2
                                 components, an RGB one for 3 or more; its header must be whole
                                 (its size field icc_profile_size, 'acsp'). NULL: none (NULL) */
  size_t icc_profile_size;
  double resolution_x;        /* the capture resolution, grid points per metre across and down */
  double resolution_y;        /* (a Resolution box with resc); 0, 0: none (0, 0) */
  int num_boxes;              /* boxes written as they are after the JP2 Header box: 'uuid' */
  const j2k_box* boxes;       /* (XMP, Exif, GeoJP2, ...), 'xml ' or any other top-level box
                                 but the file's own (jP, ftyp, jp2h, jp2c) (0, NULL) */
  double display_resolution_x; /* the default display resolution, grid points per metre across */
  double display_resolution_y; /* and down (a Resolution box with resd, after any resc); each
                                  value n / d x 10^e with n, d of 16 bits and e of 8, as the box
                                  holds it: 1/65535 x 10^-128 to 65535 x 10^127; 0, 0: none
                                  (0, 0) */
  int device_turns;           /* with frames in flight on a GPU backend: how many of one
                                 device's encoders may be in their device stages (the front
                                 stage, and Tier-1 where the blocks are coded there) at once,
                                 the others doing rate control and Tier-2 on the host
                                 meanwhile, so that they take turns on the device instead of
                                 contending for its copy engines; 0: no limit; 0 to
                                 J2K_MAX_FRAMES_IN_FLIGHT (0) */
} j2k_coding;

/* The defaults noted above. Always start from these: fields may be added at the end. */
void j2k_coding_default(j2k_coding* coding);
/* Checks `coding` with `settings` for an image of `num_components` components, as
 * j2k_encoder_create does, before an image is at hand (to refuse options early). */
j2k_status j2k_coding_check(const j2k_settings* settings, const j2k_coding* coding,
                            int num_components);

/* An encoder for one image shape: a plan plus the codec's settings, checked when it is
 * created (every setting the standard or the codec refuses is an error there, before any
 * work). Components may be subsampled (their dx, dy go to SIZ); with auto MCT, the component
 * transform is off unless components 0..2 share one. The settings' output_memory must be
 * HOST and narrow_output 0: Tier-1 reads int32 / float on the host (or, with HT and no rate or
 * PSNR target on the cuda backend, the encoder keeps them on the GPU and codes them there). */
typedef struct j2k_encoder j2k_encoder;
j2k_status j2k_encoder_create(const j2k_settings* settings, const j2k_coding* coding,
                              const j2k_image_view* shape, j2k_encoder** encoder);
void j2k_encoder_destroy(j2k_encoder* encoder); /* NULL is fine */

/* Compresses `image` (the encoder's shape, as j2k_plan_run). *data and *size: the file's
 * bytes, owned by the encoder, valid until its next run or submit or its destruction. Refused
 * (J2K_INVALID_ARGUMENT) while frames are in flight (j2k_encoder_submit): the first of them is
 * coded by this encoder. */
j2k_status j2k_encoder_run(j2k_encoder* encoder, const j2k_image_view* image,
                           const uint8_t** data, size_t* size);

/* What the last run did: the time of each stage, in milliseconds, and the quality reached. */
typedef struct j2k_encode_report {
  double front_ms;   /* the plan's run: DC shift, RCT/ICT, DWT (and the transfers) */
  double tier1_ms;   /* quantisation and block coding */
  double rate_ms;    /* PCRD-opt: the layers' thresholds */
  double tier2_ms;   /* packets, markers and the file */
  size_t bytes;      /* the file's size */
  int layers;
  const double* layer_psnr; /* `layers` entries: the PSNR estimated from the distortions the
                               passes in each layer remove (infinite where lossless); valid
                               until the next run; NaN where none was estimated: the 9/7
                               with HT code-blocks and no target coded on a GPU) */
  const char* tier1_on;     /* where Tier-1 coded the blocks: "cpu", or "cuda" (on the cuda
                               backend, EBCOT code-blocks with any target, HT ones with any
                               but a per-component cap) or "opencl" (on the opencl backend, HT
                               code-blocks; with a rate or PSNR target where the device has
                               doubles): the coefficients never
                               leave the device, only the coded bytes and, for rate control,
                               the passes' lengths and distortions come back */
  int tile_rows;            /* the rows of tiles j2k_encoder_run_by_rows took the image in;
                               0 after j2k_encoder_run (the image whole) */
  /* When each stage began, in milliseconds on a steady clock common to the process (its
   * origin is arbitrary: compare frames with each other), for drawing frames in flight on a
   * timeline; each stage ends its *_ms later. By rows: when each first began. */
  double front_begin_ms, tier1_begin_ms, rate_begin_ms, tier2_begin_ms;
  int lane;                 /* which of coding->frames_in_flight encoders coded the frame (0
                               after j2k_encoder_run) */
} j2k_encode_report;
j2k_status j2k_encoder_get_report(const j2k_encoder* encoder, j2k_encode_report* report);
/* Frames in flight through the whole encoder, for a sequence of images of its shape:
 * j2k_encoder_submit queues one image and returns with a ticket while coding goes on (on
 * coding->frames_in_flight encoders side by side, on the GPUs of coding->devices in turn), and
 * j2k_encoder_wait returns that frame's file (valid until the next wait or run on this
 * encoder), with the frame's own status: a problem in one frame (a sample out of range, a
 * device out of memory) is reported by its wait, and the frames before and after it are not
 * affected. Each file is what j2k_encoder_run gives for the image, byte for byte. The image's
 * samples must stay valid and unchanged until its wait returns. At most
 * J2K_MAX_FRAMES_IN_FLIGHT frames may be submitted and not yet waited for; frames may be waited
 * for in any order; destroying the encoder waits for the frames being coded. After a wait,
 * j2k_encoder_get_report reports that frame. */
j2k_status j2k_encoder_submit(j2k_encoder* encoder, const j2k_image_view* image, j2k_ticket* ticket);
j2k_status j2k_encoder_wait(j2k_encoder* encoder, j2k_ticket ticket, const uint8_t** data, size_t* size);
/* The encoder's plan: its backend, tiles and tile-components (j2k_plan_info). By rows: a
 * row's plan's backend and description, the whole image's tiles. */
j2k_status j2k_encoder_get_plan_info(const j2k_encoder* encoder, j2k_plan_info* info);

/* An image larger than memory, a row of tiles at a time. An encoder made by
 * j2k_encoder_create_by_rows (as j2k_encoder_create, from the whole image's shape, whose
 * samples are not read: its data pointers may be NULL) holds no plan or coefficients of the
 * whole image. j2k_encoder_run_by_rows asks `read` for each row of tiles in turn, top to bottom,
 * transforms it with a plan of its own, codes its code-blocks and frees the plan before it
 * asks for the next row, keeping only the blocks' coded passes (compressed data); rate control
 * and Tier-2 then hand the file to `write` in pieces of about a MiB, in order: byte for byte
 * the file j2k_encoder_run writes of the same image, lossless or not, with rates or PSNR
 * targets or none. max_bytes counts the layout and records, one row's plan and coefficients,
 * the coded passes and Tier-2's packets, not the caller's samples; a row that cannot fit
 * beside the rest is refused at create with J2K_OUT_OF_MEMORY, naming the row and what it
 * needs. Refused with J2K_UNSUPPORTED_INPUT: J2K_MODE_HT with rates or psnr (HT rate control
 * chooses each block's cleanup plane from every block's estimates, then codes the blocks from
 * their coefficients, which by rows are gone). j2k_encoder_run is refused on such an encoder,
 * and j2k_encoder_run_by_rows on one made by j2k_encoder_create. */
/* Fills *band with the image's canvas rows [y0, y0 + rows): x0 and width the shape's, y0 and
 * height these, each component's rows there (B-12) in the shape's types, precisions and
 * subsampling. Its component array and samples must stay valid until the next call or the
 * end of the run. A status other than J2K_OK stops the run, which returns it. */
typedef j2k_status (*j2k_row_reader)(void* user, uint32_t y0, uint32_t rows, j2k_image_view* band);
/* Takes the next `size` bytes of the file. A status other than J2K_OK stops the run, which
 * returns it (what was written before stays written). */
typedef j2k_status (*j2k_byte_writer)(void* user, const uint8_t* data, size_t size);
j2k_status j2k_encoder_create_by_rows(const j2k_settings* settings, const j2k_coding* coding,
                                      const j2k_image_view* shape, j2k_encoder** encoder);
/* *size (may be NULL): the file's bytes written. */
j2k_status j2k_encoder_run_by_rows(j2k_encoder* encoder, j2k_row_reader read, void* read_user,
                                   j2k_byte_writer write, void* write_user, uint64_t* size);

/* ---------------------------------------------------------------- the decoder */

/* A JPEG 2000 Part 1 codestream (.j2k, .j2c) or JP2 file (.jp2) back to its image, sample for
 * sample as OpenJPEG 2.5's opj_decompress decodes it: Tier-2 (every progression, POC, PPM,
 * PPT, SOP, EPH), Tier-1 (every mode switch) on the CPU's threads or the GPU, dequantisation,
 * ROI max-shift, the inverse DWT, RCT/ICT, DC level shift and the clamp to each component's
 * precision. The back stage runs on the CPU, CUDA or OpenCL (`backend`). */
typedef struct j2k_decode_settings {
  int reduce;          /* resolutions left out: the image at 1 / 2^reduce of its size (0) */
  int layers;          /* quality layers decoded; 0: all (0) */
  int tile;            /* only this tile (raster index), the image cut to its area; -1: all (-1) */
  j2k_rect region;     /* only this area of the reference grid, at full resolution (as
                          opj_decompress -d); the tiles outside it are not decoded; all zero:
                          the whole image (0) */
  int num_components;  /* only these components (a JP2 file's channels, after its palette),
                          in this order; 0: all (0) */
  const int* components;
  int allow_partial;   /* a cut stream decodes to what it holds (the rest of the image at the
                          middle of its range) instead of failing (0) */
  int threads;         /* CPU threads; 0: one per core (0); at most 8 per core, and at least
                          64 are allowed, as for j2k_settings */
  uint64_t max_bytes;  /* host memory the decode may take: the stream's bytes, the image,
                          a tile's coefficients (4 bytes each; with a GPU back stage, two
                          tiles' and their samples, and the blocks gathered for it; on the
                          CPU, for an HTJ2K image of one tile decoded whole, a quarter of
                          them and a few rows of code-blocks: its finest level goes by
                          rows) and each
                          tile's code-block and precinct structures, each counted from the
                          headers before it is made: a stream needing more is refused with
                          J2K_OUT_OF_MEMORY naming what for; 0: no limit (0) */
  j2k_backend backend; /* where the back stage runs (inverse DWT, inverse RCT/ICT, DC shift,
                          clamp): CPU, CUDA or OPENCL, the same samples on each. Tier-2 runs
                          on the CPU, Tier-1 on the CPU's threads, or with CUDA or OpenCL on the GPU.
                          AUTO, decided at the decoder's first image: CUDA where a CUDA GPU
                          is there and the stream holds more than 2 MiB for each thread,
                          else the CPU (AUTO) */
  int device;          /* the GPU backend's device index; -1: its default (-1) */
  int convert_colour;  /* opj_decompress's colour conversions after decoding: sYCC to RGB (a
                          JP2 file's sYCC, or 3 components whose second is subsampled
                          horizontally), e-sYCC to RGB, a JP2 file's CMYK to 8-bit RGB, its ICC
                          profile (RGB, YCbCr or grey) or CIELab to sRGB through Little CMS
                          where the build has it (a grey image becomes RGB); what is not
                          converted is said in the report's warnings; 0: the components as
                          coded (0) */
  int keep_cmyk;       /* with convert_colour: a JP2 file's CMYK stays four components C, M,
                          Y, K (opj_decompress keeps it so for a TIFF) (0) */
  int keep_icc;        /* with convert_colour: a JP2 file's ICC profile is not applied; the
                          samples stay in its colour space (the report gives the profile) (0) */
} j2k_decode_settings;

/* The defaults noted above. Always start from these: fields may be added at the end. */
void j2k_decode_settings_default(j2k_decode_settings* settings);

typedef struct j2k_decoder j2k_decoder;
j2k_status j2k_decoder_create(const j2k_decode_settings* settings, j2k_decoder** decoder);
void j2k_decoder_destroy(j2k_decoder* decoder); /* NULL is fine */

/* Decodes the `size` bytes at `data` (which the decoder only reads). *image: views of the
 * decoder's own host buffers, valid until its next run or its destruction. Its area is the
 * image's (or the tile's or region's part of it) on the reduced canvas (x0 = ceil(XOsiz /
 * 2^reduce), width = ceil(Xsiz / 2^reduce) - x0, likewise y), each component packed at its own size (j2k_component_view), as U8 or I8
 * for precisions up to 8 bits, U16 or I16 up to 16 and U32 or I32 up to 31 (signed components:
 * the signed types). A corrupt stream is J2K_CORRUPT_INPUT naming where and why; one this
 * decoder does not read (Part 2, precision above 31 bits, more than 30 bit planes in a
 * code-block) J2K_UNSUPPORTED_INPUT; a reduce beyond the stream's levels
 * J2K_INVALID_ARGUMENT. */
j2k_status j2k_decoder_run(j2k_decoder* decoder, const void* data, size_t size, j2k_image_view* image);

/* Takes rows [first_row, first_row + rows) of the decoded image: `image` has the whole image's
 * area (x0, y0, width, height) and components, each component's view starting at first_row and
 * holding those rows (bytes = rows * row_stride), valid during the call. J2K_OK to go on; any
 * other status ends the decode with that status. */
typedef j2k_status (*j2k_rows_callback)(void* user, const j2k_image_view* image, uint32_t first_row, uint32_t rows);
/* j2k_decoder_run's decode, handed to `take` a band of rows at a time, top to bottom. Where the
 * decode goes by rows (one HTJ2K tile whose components are not subsampled, decoded whole on the
 * CPU: every resolution, layer and component; a codestream, or a JP2/JPH file without palette,
 * channel definitions or ICC profile, sRGB or grey), each band as it is made, so that the
 * image is never whole in memory; else once, the whole image (first_row 0, rows its height).
 * The report (j2k_decoder_get_report) is the same, its time including the calls. */
j2k_status j2k_decoder_run_rows(j2k_decoder* decoder, const void* data, size_t size, j2k_rows_callback take, void* user);

typedef struct j2k_decode_report {
  int truncated;         /* (allow_partial) the stream ended early: parts of the image are missing */
  int jp2;               /* the input was a JP2 file */
  const char* warnings;  /* "" or lines naming damage decoded anyway (a failed SEGMARK check);
                            valid until the next run */
  double ms;             /* the whole decode */
  int enum_cs;           /* the JP2 file's colour space (EnumCS: 16 sRGB, 17 grey, 18 sYCC,
                            12 CMYK, 14 CIELab, ...); 0 for a codestream or an ICC profile */
  /* What a JP2 file holds beside the image, valid until the next run: */
  const uint8_t* icc_profile; /* its ICC profile (colr method 2), icc_profile_size bytes; NULL: none */
  size_t icc_profile_size;
  int icc_applied;       /* 1: convert_colour turned the samples into sRGB through the profile,
                            which no longer describes them; 0: the samples are in its space */
  double resolution_x;   /* its resolution in grid points per metre across and down: the capture */
  double resolution_y;   /* one (resc), else the display one (resd), of the decoded image (at
                            reduce r, the file's over 2^r); 0, 0: none */
  int num_boxes;         /* its top-level boxes but jP, ftyp, jp2h and jp2c, in order: */
  const j2k_box* boxes;  /* XML and UUID boxes (XMP, Exif, GeoJP2, ...) and any other */
  double display_resolution_x; /* its default display resolution (resd) alone, grid points per */
  double display_resolution_y; /* metre across and down, of the decoded image as resolution_x
                                  is; 0, 0: none */
} j2k_decode_report;
j2k_status j2k_decoder_get_report(const j2k_decoder* decoder, j2k_decode_report* report);

/* ---------------------------------------------------------------- a stream's headers */

/* What a codestream's or JP2 file's headers say, read without decoding (as opj_dump prints
 * it): the image, its tiles and how its first tile is coded (the main header's COD and COC,
 * overridden by that tile's own). */
typedef struct j2k_component_info {
  int precision;         /* bits, 1..38 */
  int is_signed;
  int dx, dy;            /* subsampling (XRsiz, YRsiz) */
  uint32_t width, height;/* its samples on the image area (B-12) */
  int levels;            /* decomposition levels (its COC, else COD) */
  int reversible;        /* 1: the 5/3; 0: the 9/7 */
  int block_w, block_h;  /* code-block size */
  unsigned modes;        /* J2K_MODE_* bits of its code-block style */
} j2k_component_info;

typedef struct j2k_stream_info {
  j2k_file_format format;       /* what the bytes are: a codestream or a JP2 file */
  uint32_t x0, y0;              /* the image area's origin on the canvas (XOsiz, YOsiz) */
  uint32_t width, height;       /* its size: Xsiz - XOsiz, Ysiz - YOsiz */
  uint32_t tile_x0, tile_y0;    /* the tile grid's origin (XTOsiz, YTOsiz) */
  uint32_t tile_w, tile_h;      /* nominal tile size (XTsiz, YTsiz) */
  uint32_t tiles_x, tiles_y;
  int num_components;
  int layers;
  j2k_progression progression;
  int mct;                      /* 1: RCT / ICT on components 0..2 */
  int sop, eph;                 /* SOP markers and EPH markers may be used */
  int tile_parts;               /* tile-parts in the stream */
  int enum_cs;                  /* JP2: its colour space (EnumCS); 0 otherwise or with an ICC profile */
  int icc;                      /* JP2: 1 when its colour is an ICC profile */
  int truncated;                /* the stream ends before EOC (its headers are whole) */
} j2k_stream_info;

/* Reads the headers of the `size` bytes at `data` (every tile-part's too, not their packets)
 * into *info, and the first max_components components into components[] (NULL with 0: none);
 * info->num_components says how many there are. A stream cut inside its packet data is read
 * as far as it goes (info->truncated); broken headers are J2K_CORRUPT_INPUT naming why. */
j2k_status j2k_read_info(const void* data, size_t size, j2k_stream_info* info, j2k_component_info* components,
                         int max_components);

/* Checks a codestream's or JP2 file's headers and tile-part sizes against `profile` (at
 * `frame_rate` frames a second: cinema 0 for 24; IMF 0 for none, else its levels' rate
 * limits are checked too; IMF's main and sub level are the stream's own), without decoding:
 * *violations is the number of the profile's constraints it breaks, and `report` (when
 * report_size > 0) holds them, a sentence a line naming the field, what it holds and what the
 * profile asks, cut to report_size - 1 bytes and NUL-terminated. J2K_OK whenever the file's
 * headers could be read, whatever it breaks; an error status where they could not. */
j2k_status j2k_check_profile(const void* data, size_t size, j2k_profile profile, double frame_rate, int* violations,
                             char* report, size_t report_size);

/* ---------------------------------------------------------------- transcode */

/* A codestream or JP2 file re-coded block by block between Part 1's EBCOT and Part 15's HT
 * (HTJ2K) code-blocks, without decoding it to samples: Tier-2 reads the packets, each
 * code-block is decoded to its quantisation indices and coded again with the other block
 * coder, Tier-2 writes the packets again. No DWT, no colour transform, no quantisation: the
 * output decodes to exactly the input's image, lossless or lossy. The headers stay (SIZ,
 * quantisation, tiles, progression and POC, precincts, levels, code-block sizes, SOP/EPH,
 * PLT/TLM, ROI, COM); the code-block style becomes HT's (with CAP and Rsiz's Part 15 bit) or
 * EBCOT's without mode switches (the vertically causal one is kept). Several quality layers
 * become one (all of their passes), and each tile one tile-part. A JP2 file keeps its JP2
 * Header box (colour, ICC, palette, channels, resolution) in a JP2 or JPH file. */

typedef enum j2k_coder {
  J2K_CODER_EBCOT = 0, /* Part 1's code-blocks (.j2k, .j2c, .jp2) */
  J2K_CODER_HT = 1     /* Part 15's HT code-blocks (.jhc, .jph) */
} j2k_coder;

typedef struct j2k_transcode_settings {
  j2k_coder target;        /* the coder every code-block ends in (J2K_CODER_HT) */
  j2k_file_format format;  /* J2K_FORMAT_J2K: a bare codestream; J2K_FORMAT_JP2: a JP2 file,
                              a JPH file (brand 'jph ') for HT (J2K_FORMAT_J2K) */
  int threads;             /* CPU threads for the code-blocks; 0: one per core (0) */
  uint64_t max_bytes;      /* host memory one transcode may take; 0: no limit (0) */
} j2k_transcode_settings;

/* The defaults noted above. Always start from these: fields may be added at the end. */
void j2k_transcode_settings_default(j2k_transcode_settings* settings);

typedef struct j2k_transcoder j2k_transcoder;
j2k_status j2k_transcoder_create(const j2k_transcode_settings* settings, j2k_transcoder** transcoder);
void j2k_transcoder_destroy(j2k_transcoder* transcoder); /* NULL is fine */

/* Transcodes the `size` bytes at `data` (only read). *out and *out_size: the new file's bytes,
 * owned by the transcoder, valid until its next run or its destruction. A corrupt or cut
 * stream is J2K_CORRUPT_INPUT naming where and why (nothing is written for it); one the
 * decoder does not read J2K_UNSUPPORTED_INPUT; past max_bytes J2K_OUT_OF_MEMORY. */
j2k_status j2k_transcoder_run(j2k_transcoder* transcoder, const void* data, size_t size, const uint8_t** out,
                              size_t* out_size);

typedef struct j2k_transcode_report {
  uint64_t blocks;       /* code-blocks with coding passes, re-coded */
  int layers;            /* the most quality layers a tile of the input had (the output has 1) */
  const char* warnings;  /* "" or lines naming what was read as a decoder reads it (a failed
                            SEGMARK check, HT blocks decoded as zeros) or not carried over;
                            valid until the next run */
  double ms;             /* the whole transcode, of which: */
  double read_ms;        /* Tier-2's reading of the packets */
  double tier1_ms;       /* the code-blocks decoded and coded again */
  double write_ms;       /* Tier-2's packets, the markers and the file */
} j2k_transcode_report;
j2k_status j2k_transcoder_get_report(const j2k_transcoder* transcoder, j2k_transcode_report* report);

/* ---------------------------------------------------------------- the DWT alone */

/* A DWT engine bound to one backend (settings: backend, threads, device,
 * backend_options; the rest is ignored). Host buffers, in place, in OpenJPEG's order and layout. */
typedef struct j2k_dwt j2k_dwt;
j2k_status j2k_dwt_create(const j2k_settings* settings, j2k_dwt** dwt);
void j2k_dwt_destroy(j2k_dwt* dwt);
j2k_status j2k_dwt_get_info(const j2k_dwt* dwt, j2k_backend* backend, const char** description);

typedef enum j2k_direction { J2K_FORWARD = 0, J2K_INVERSE = 1 } j2k_direction;

/* `data` (`bytes` bytes): rect.y1 - rect.y0 rows of rect.x1 - rect.x0 coefficients (I32 for
 * the 5/3, F32 for the 9/7), row_stride bytes apart, in host memory; `rect` is the
 * tile-component on the canvas (its origin sets the parities). */
j2k_status j2k_dwt_run(j2k_dwt* dwt, j2k_direction direction, j2k_wavelet wavelet, void* data,
                       size_t bytes, ptrdiff_t row_stride, const j2k_rect* rect, int levels);

/* ---------------------------------------------------------------- CUDA device buffers */

/* The CUDA DWT on device memory, out of place, asynchronous on the caller's stream
 * (a cudaStream_t; NULL = the legacy default stream), no allocation: the caller provides a
 * device workspace of at least j2k_cuda_dwt_workspace_size bytes.
 * src: a view in device memory. Forward: U8/U16 samples (dc_shift subtracted on the fly), or
 * I32 (5/3) / F32 (9/7) values. Inverse: I32 / F32 coefficients, dc_shift must be 0.
 * dst: I32 (5/3) or F32 (9/7) in device memory, not overlapping src. */
typedef struct j2k_device_plane {
  void* data;
  j2k_sample_type type;
  ptrdiff_t row_stride; /* bytes */
  size_t bytes;         /* device memory from data on: rows of the rect's width within it */
} j2k_device_plane;

j2k_status j2k_cuda_dwt_workspace_size(j2k_wavelet wavelet, const j2k_rect* rect, int levels,
                                       size_t* bytes);
j2k_status j2k_cuda_dwt(j2k_direction direction, j2k_wavelet wavelet,
                        const j2k_device_plane* src, int32_t dc_shift,
                        const j2k_device_plane* dst, const j2k_rect* rect, int levels,
                        void* workspace, size_t workspace_bytes, void* stream);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* J2KFRONT_H_ */
