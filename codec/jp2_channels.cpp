// SPDX-License-Identifier: BSD-2-Clause
#include "codec/jp2_channels.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "common/error.hpp"

namespace j2k::codec {
namespace {

}  // namespace

size_t jp2_channel_count(const Jp2File& file, size_t components) {
  return !file.palette.columns.empty() && !file.mapping.empty() ? file.mapping.size() : components;
}

void apply_jp2_channels(const Jp2File& file, DecodedImage& image) {
  // Palette and mapping (I.5.3.4, I.5.3.5); a palette without a mapping is not applied.
  if (!file.palette.columns.empty() && !file.mapping.empty()) {
    const auto& entries = file.palette.entries;
    std::vector<DecodedComponent> channels;
    for (size_t i = 0; i < file.mapping.size(); ++i) {
      const Jp2Mapping& m = file.mapping[i];
      if (m.component < 0 || static_cast<size_t>(m.component) >= image.components.size())
        throw Error(ErrorCode::CorruptInput, "JP2 cmap: channel " + std::to_string(i) + " maps component " + std::to_string(m.component) +
                                                 ", the codestream has " + std::to_string(image.components.size()));
      const DecodedComponent& src = image.components[static_cast<size_t>(m.component)];
      if (!m.palette) {
        channels.push_back(src);
        continue;
      }
      if (m.column < 0 || static_cast<size_t>(m.column) >= file.palette.columns.size() || entries.empty())
        throw Error(ErrorCode::CorruptInput, "JP2 cmap: channel " + std::to_string(i) + " maps palette column " + std::to_string(m.column) +
                                                 ", the palette has " + std::to_string(file.palette.columns.size()) + " columns and " +
                                                 std::to_string(entries.size()) + " entries");
      const Jp2Component& col = file.palette.columns[static_cast<size_t>(m.column)];
      DecodedComponent out = src;  // geometry
      out.precision = col.precision;
      out.is_signed = col.is_signed;
      out.type = decoded_type(col.precision, col.is_signed);
      const auto n = static_cast<size_t>(out.width * out.height);
      out.bytes.assign(n * j2k_sample_size(out.type), 0);
      const auto top = static_cast<int64_t>(entries.size()) - 1;
      for (size_t k = 0; k < n; ++k) {
        const int64_t index = std::clamp<int64_t>(src.at(k), 0, top);
        out.set(k, entries[static_cast<size_t>(index)][static_cast<size_t>(m.column)]);
      }
      channels.push_back(std::move(out));
    }
    image.components = std::move(channels);
  }
  // Channel definitions (I.5.3.6): colour channel Cn belongs at its colour's place Asoc - 1;
  // swapped there as OpenJPEG does, the later definitions following the swap.
  std::vector<Jp2Channel> defs = file.channels;
  const size_t n = image.components.size();
  for (size_t i = 0; i < defs.size(); ++i) {
    const auto cn = static_cast<size_t>(defs[i].channel);
    const int asoc = defs[i].association;
    if (cn >= n || asoc == 0 || asoc == 65535) continue;
    const auto acn = static_cast<size_t>(asoc - 1);
    if (acn >= n || acn == cn || defs[i].type != 0) continue;
    std::swap(image.components[cn], image.components[acn]);
    for (size_t j = i + 1; j < defs.size(); ++j) {
      if (static_cast<size_t>(defs[j].channel) == cn) defs[j].channel = static_cast<int>(acn);
      else if (static_cast<size_t>(defs[j].channel) == acn) defs[j].channel = static_cast<int>(cn);
    }
  }
}

}  // namespace j2k::codec
