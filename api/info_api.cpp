// SPDX-License-Identifier: BSD-2-Clause
// j2k_read_info: a codestream's or JP2 file's headers (codec/codestream's readers) as the C
// interface's j2k_stream_info, without decoding a packet.
#include <algorithm>
#include <cstdint>

#include "api/guard.hpp"
#include "codec/codestream/codestream_reader.hpp"
#include "codec/codestream/jp2_reader.hpp"

namespace {

using j2k::api::guard;
using j2k::api::require;

uint32_t samples_across(uint32_t from, uint32_t to, int d) {  // B-12: ceil(to / d) - ceil(from / d)
  const auto up = [d](uint32_t v) { return static_cast<uint32_t>((uint64_t{v} + static_cast<uint64_t>(d) - 1) / d); };
  return up(to) - up(from);
}

}  // namespace

extern "C" j2k_status j2k_read_info(const void* data, size_t size, j2k_stream_info* info, j2k_component_info* components,
                                    int max_components) {
  return guard([&] {
    require(info != nullptr, "info is null");
    *info = j2k_stream_info{};
    require(data != nullptr || size == 0, "data is null");
    require(max_components >= 0 && (components != nullptr || max_components == 0),
            "components must hold max_components entries");
    const auto* bytes = static_cast<const uint8_t*>(data);
    const uint8_t* stream = bytes;
    size_t stream_size = size;
    if (j2k::codec::is_jp2(bytes, size)) {
      const j2k::codec::Jp2File jp2 = j2k::codec::read_jp2(bytes, size, /*allow_partial=*/true);
      info->format = J2K_FORMAT_JP2;
      info->enum_cs = jp2.enum_cs;
      info->icc = jp2.icc.empty() ? 0 : 1;
      info->truncated = jp2.cut ? 1 : 0;
      stream = bytes + jp2.codestream;
      stream_size = jp2.codestream_length;
    }
    j2k::codec::ReadOptions options;
    options.allow_partial = true;  // the headers must be whole; the packets are not read
    const j2k::codec::Codestream cs = j2k::codec::read_codestream(stream, stream_size, options);
    const j2k::codec::StreamInfo& s = cs.info;
    info->x0 = s.x0;
    info->y0 = s.y0;
    info->width = s.x1 - s.x0;
    info->height = s.y1 - s.y0;
    info->tile_x0 = s.tile_x0;
    info->tile_y0 = s.tile_y0;
    info->tile_w = s.tile_w;
    info->tile_h = s.tile_h;
    info->tiles_x = static_cast<uint32_t>(cs.tiles_x);
    info->tiles_y = static_cast<uint32_t>(cs.tiles_y);
    info->num_components = static_cast<int>(s.components.size());
    const j2k::codec::TileCoding& t = cs.tiles.empty() ? cs.defaults : cs.tiles[0];
    info->layers = t.layers;
    info->progression = static_cast<j2k_progression>(static_cast<int>(t.order));
    info->mct = t.mct ? 1 : 0;
    info->sop = t.sop ? 1 : 0;
    info->eph = t.eph ? 1 : 0;
    info->tile_parts = static_cast<int>(std::min<size_t>(cs.parts.size(), INT32_MAX));
    info->truncated = info->truncated || cs.truncated ? 1 : 0;
    const int n = std::min(max_components, info->num_components);
    for (int c = 0; c < n; ++c) {
      const j2k::codec::ComponentInfo& k = s.components[static_cast<size_t>(c)];
      j2k_component_info& out = components[c];
      out = j2k_component_info{};
      out.precision = k.precision;
      out.is_signed = k.is_signed ? 1 : 0;
      out.dx = k.dx;
      out.dy = k.dy;
      out.width = samples_across(s.x0, s.x1, k.dx);
      out.height = samples_across(s.y0, s.y1, k.dy);
      if (static_cast<size_t>(c) < t.components.size()) {
        const j2k::codec::ComponentCoding& cc = t.components[static_cast<size_t>(c)];
        out.levels = cc.levels;
        out.reversible = cc.reversible ? 1 : 0;
        out.block_w = 1 << cc.block_w_log2;
        out.block_h = 1 << cc.block_h_log2;
        out.modes = cc.modes;
      }
    }
  });
}
