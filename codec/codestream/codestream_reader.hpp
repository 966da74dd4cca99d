// SPDX-License-Identifier: BSD-2-Clause
// Reads a JPEG 2000 Part 1 codestream's structure (ISO/IEC 15444-1 Annex A): the main header's
// marker segments (SIZ, CAP, COD, COC, QCD, QCC, RGN, POC, PPM, TLM, PLM, CRG, COM), then each
// tile-part (SOT, its header's COD, COC, QCD, QCC, RGN, POC, PPT, PLT, COM, then SOD and where
// its packet data lies), up to EOC. Every length and value is checked against the standard's
// limits and the bytes actually there before anything is sized from it, so that a corrupt or
// hostile stream gives an error naming the marker and the cause, never a crash, a hang or an
// allocation the stream does not justify. What it returns is what a decoder needs to set up
// each tile: the coding style and quantisation each tile-component resolves to (A.6: a
// tile-part's COC over its COD over the main header's COC over its COD; likewise QCC/QCD).
// HTJ2K (Part 15) streams read alike: CAP's Ccap^15 is kept, and a COD or COC whose
// code-block style has bit 6 (kModeHt) gives its components HT code-blocks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codec/params/coding_params.hpp"
#include "codec/params/tile_coding.hpp"

namespace j2k::codec {

// A PPM or PPT marker segment's packed packet headers (Ippm, Ippt) and its index (Zppm, Zppt):
// the segments are put together in index order, not the order they come in (A.7.4, A.7.5).
struct PackedSegment {
  int index = 0;
  std::vector<uint8_t> bytes;
};

struct TilePart {
  int tile = 0;           // Isot
  int part = 0;           // TPsot
  int parts = 0;          // TNsot (0: not said here)
  size_t sot = 0;         // offset of its SOT marker in the codestream
  size_t data = 0;        // offset of its packet data (after SOD) in the codestream
  size_t length = 0;      // bytes of packet data
  bool cut = false;       // the codestream ends before its end (only with allow_partial), or
                          // (Psot 0) without EOC: its data may have been cut
  std::vector<uint32_t> packet_lengths;  // from its PLT segments, in order (empty: none)
  std::vector<PackedSegment> ppt;        // its PPT segments in stream order (see Codestream::ppt)
  size_t ppm_at = 0, ppm_length = 0;     // its packed headers in Codestream::ppm (with PPM)
};

// Per tile (raster order), the coding it resolves to, read as a vector of TileCoding. The
// tiles whose headers say nothing of their own coding share one copy of the main header's:
// a header of 1.5 KB declaring 8,192 tiles of 466 components would otherwise resolve 3.8
// million components' codings (gigabytes) for tiles that may not even have a tile-part.
class TileCodings {
 public:
  size_t size() const { return of_tile_.size(); }
  bool empty() const { return of_tile_.empty(); }
  const TileCoding& operator[](size_t t) const { return codings_[of_tile_[t]]; }
  const TileCoding& at(size_t t) const { return codings_.at(of_tile_.at(t)); }
  size_t distinct() const { return codings_.size(); }  // the codings held: the shared one, and each tile's own
  // The next tile, with the coding shared by the tiles without their own (`shared`, copied
  // once: the same for every call).
  void push_back_shared(const TileCoding& shared) {
    if (shared_ == kNone) {
      shared_ = codings_.size();
      codings_.push_back(shared);
    }
    of_tile_.push_back(shared_);
  }
  // The next tile, with its own coding.
  void push_back(TileCoding own) {
    of_tile_.push_back(codings_.size());
    codings_.push_back(std::move(own));
  }

  class const_iterator {
   public:
    const_iterator(const TileCodings* c, size_t t) : c_(c), t_(t) {}
    const TileCoding& operator*() const { return (*c_)[t_]; }
    const TileCoding* operator->() const { return &(*c_)[t_]; }
    const_iterator& operator++() {
      ++t_;
      return *this;
    }
    bool operator!=(const const_iterator& o) const { return t_ != o.t_; }
    bool operator==(const const_iterator& o) const { return t_ == o.t_; }

   private:
    const TileCodings* c_;
    size_t t_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  static constexpr size_t kNone = SIZE_MAX;
  std::vector<TileCoding> codings_;
  std::vector<size_t> of_tile_;
  size_t shared_ = kNone;
};

struct Codestream {
  StreamInfo info;                     // SIZ
  TileCoding defaults;                 // the main header's alone (what a tile without its own
                                       // COD, COC, QCD, QCC, RGN or POC uses)
  TileCodings tiles;                   // per tile (raster order), the main header's overridden
                                       // by its first tile-part's header
  std::vector<TilePart> parts;         // in stream order
  // Per tile, the indices in `parts` of its tile-parts in stream order: built once, so that
  // reading a tile looks at its own tile-parts only, not at every tile's (the stream's
  // tile-parts once per tile grew as tiles x tile-parts).
  std::vector<std::vector<size_t>> tile_parts;
  std::vector<uint8_t> ppm;            // PPM's packed packet headers, in Zppm order (empty: none)
  // Per tile, its tile-parts' PPT segments put together in Zppt order (Zppt counts over the
  // whole tile, as OpenJPEG reads it; where a tile-part's indices start again, each tile-part's
  // in turn); empty: none.
  std::vector<std::vector<uint8_t>> ppt;
  // The tile-parts, in stream order, that PPM holds headers for (ppm_at, ppm_length set);
  // those after have none, an error once their tile is read: PPM ran out, or (ppm_overrun)
  // the next one's Nppm runs past PPM's data.
  size_t ppm_parts = 0;
  bool ppm_overrun = false;
  std::vector<std::string> comments;   // COM segments with Latin-1 text
  bool truncated = false;              // the stream ended before EOC (only with allow_partial)
  int ccap15 = -1;                     // CAP's Ccap^15 (HTJ2K, ISO/IEC 15444-15); -1: none
  int rsiz = 0;                        // SIZ's Rsiz: the profile (Table A.10), Part 15's bit
  bool tlm = false;                    // the main header has TLM segments
  int64_t tiles_x = 0, tiles_y = 0;
};

struct ReadOptions {
  // A stream cut short (no EOC, a tile-part's data cut): keep what is there instead of an
  // error. Its header must still be whole.
  bool allow_partial = false;
};

// Throws j2k::Error (CorruptInput, or UnsupportedInput for valid Part 2 extensions) naming the
// marker, its offset and the cause.
Codestream read_codestream(const uint8_t* data, size_t size, const ReadOptions& options = {});

}  // namespace j2k::codec
