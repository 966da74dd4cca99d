// SPDX-License-Identifier: BSD-2-Clause
// HT cleanup passes (ISO/IEC 15444-15) of many code-blocks on a GPU, their quantised
// coefficients read where the front stage left them in device memory, one code-block a warp
// (CUDA: gpu/cuda/warp_cleanup.cuh) or a work-item (OpenCL: gpu/opencl/ht_block_encoder.cl). Each block's bytes, `bitplanes` and `magnitude_bitplanes`
// are ht::encode_block()'s (CPU) bit for bit (the same bit strings into the same writers,
// ht/bit_writers.hpp); tests/ht_gpu_encoder_test.cpp compares them.
//
//   std::unique_ptr<GpuHtEncodeBatch> batch = make_gpu_ht_encode_batch(options);  // one per encoder
//   batch->clear();
//   for each block: batch->add(d_coefficients + offset, stride, w, h, band, fraction_bits, plane);
//   batch->encode(stream);      // asynchronous on `stream`
//   batch->wait();              // throws for a block that could not be coded
//   CodedBlock c = batch->coded(i);   // i: the order of add()
//
// Only the cleanup pass: no SigProp or MagRef pass below a cleanup plane above 0, and no
// distortion estimates (CodedPass::distortion and CodedBlock::energy stay 0); rate control's
// choice of the plane, and those passes, stay on the CPU for now. The coefficients are int32,
// as BlockView has them (a signed quantisation index << fraction_bits).
//
// Memory: the batch keeps device buffers (the blocks' records, their output, the coder's
// scratch) and a page-locked copy of the output, each grown to the largest batch seen and kept:
// nothing is allocated once a geometry has been seen. Each block's output has room for its
// worst case (gpu_ht_output_capacity()), so that no count is needed before the kernel; the
// segments are then packed end to end on the device, and only those bytes come back.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "codec/tier1/block_coder.hpp"
#include "j2kfront/j2kfront.h"
#include "transform/backend.hpp"

namespace j2k::codec {

// GpuHtEncodeBatch::add()'s checks, for every backend's batch: throws Error(InvalidArgument)
// naming the figure outside its limits.
void check_gpu_ht_block(const void* d_data, ptrdiff_t stride, int width, int height, int fraction_bits, int cleanup_plane);

// What a block coded as a set (the batches' add_set / add_set_at, for rate control) adds to
// its cleanup pass, as the kernels leave it: the block's energy, each pass's distortion
// (cleanup, SigProp, MagRef) and the refinement passes' bytes (ht_block_encoder.cl's
// SetFigures has this layout).
struct HtSetFigures {
  double energy = 0;
  double removed[3] = {0, 0, 0};
  uint32_t sigprop_bytes = 0, magref_bytes = 0;
};

// A coded block's passes from its cleanup segment's `cleanup_bytes`: the cleanup pass
// (terminated) and, for a set (`set` given), its distortion, the block's energy and, where
// `refined` (a plane below the cleanup's), SigProp and MagRef, as ht::encode_block gives them.
inline void push_ht_passes(CodedBlock& c, uint32_t cleanup_bytes, const HtSetFigures* set, bool refined) {
  CodedPass cleanup;
  cleanup.end = cleanup_bytes;
  cleanup.terminated = true;
  if (set) cleanup.distortion = set->removed[0];
  c.passes.push_back(cleanup);
  if (!set || !refined) return;
  CodedPass sigprop;
  sigprop.end = cleanup_bytes + set->sigprop_bytes;
  sigprop.distortion = set->removed[1];
  CodedPass magref;
  magref.end = sigprop.end + set->magref_bytes;
  magref.terminated = true;
  magref.distortion = set->removed[2];
  c.passes.push_back(sigprop);
  c.passes.push_back(magref);
}

class GpuHtEncodeBatch {
 public:
  virtual ~GpuHtEncodeBatch() = default;

  virtual void clear() = 0;
  // A block whose coefficients are d_data[y * stride + x] (stride in values, at least width)
  // in the backend's device memory, read in place while the batch's work runs, as BlockView
  // reads them: width and height 1..1024, at most 4096 samples; `band` kept for the coder's
  // record (the cleanup pass does not depend on it); fraction_bits and cleanup_plane each
  // 0..30, with fraction_bits + cleanup_plane at most 31. Throws Error(InvalidArgument)
  // naming the field outside those. Returns the block's index.
  virtual size_t add(const int32_t* d_data, ptrdiff_t stride, int width, int height, j2k_band_type band,
                     int fraction_bits, int cleanup_plane) = 0;
  // The same block `offset` bytes into `d_base`: a device pointer (CUDA: add() at that
  // address), or a memory object the backend cannot offset by pointer (OpenCL: a cl_mem, the
  // only way its batch takes blocks).
  virtual size_t add_at(const void* d_base, size_t offset, ptrdiff_t stride, int width, int height, j2k_band_type band,
                        int fraction_bits, int cleanup_plane) {
    if (d_base == nullptr) check_gpu_ht_block(nullptr, stride, width, height, fraction_bits, cleanup_plane);
    return add(reinterpret_cast<const int32_t*>(static_cast<const char*>(d_base) + offset), stride, width, height, band,
               fraction_bits, cleanup_plane);
  }
  virtual size_t size() const = 0;

  // Codes every block added since clear() on `stream` (a cudaStream_t, or on OpenCL a
  // cl_command_queue), and copies the results back: asynchronous, so the coefficients must
  // stay until wait() returns. Returns
  // once the host's records of the blocks may be reused.
  virtual void encode(void* stream) = 0;
  // Waits for encode()'s work; throws Error(InvalidArgument) for a block with a coefficient of
  // 2^31 steps at plane 0, Error(Internal) for one whose MEL and VLC outgrow the 4079 bytes of
  // the cleanup segment's length field (neither happens to a block within the limits above),
  // each naming the block.
  virtual void wait() = 0;

  // After wait(): block i as ht::encode_block() codes it with estimate_distortion off and its
  // passes below the cleanup left out: `bitplanes` (cleanup_plane + 1, or 0 where nothing is
  // significant at that plane: then no pass and no bytes), `magnitude_bitplanes`, the cleanup
  // pass (terminated, distortion 0) and its bytes.
  virtual CodedBlock coded(size_t i) const = 0;
  // The same with its bytes left where bytes() says (CodedBlock::external): valid until the
  // next encode() or clear().
  virtual CodedBlock coded_in_place(size_t i) const = 0;
  // The same bytes where they lie, in the batch's page-locked memory (valid until the next
  // encode() or clear()): `size` bytes from the pointer.
  virtual const uint8_t* bytes(size_t i, size_t& size) const = 0;
};

// The batch of options.backend, where built: Cuda (on the current device of the calling
// thread; encode()'s stream a cudaStream_t) or OpenCL (blocks by add_at() in cl_mem buffers;
// encode()'s stream a cl_command_queue, whose context is the device's, ocl::context_for).
// Throws Error(BackendUnavailable) for another backend or one this build lacks.
std::unique_ptr<GpuHtEncodeBatch> make_gpu_ht_encode_batch(const BackendOptions& options);

// The device memory the batch's output needs for a width x height block: its segment at worst
// (MagSgn's buffer, stream_capacity, and MEL and VLC within the 4079 bytes Scup can say).
size_t gpu_ht_output_capacity(int width, int height);


}  // namespace j2k::codec
