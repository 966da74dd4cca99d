// SPDX-License-Identifier: BSD-2-Clause
// A JP2 file's channels from the codestream's components (ISO/IEC 15444-1 I.5.3.4 to I.5.3.6),
// as OpenJPEG 2.5 makes them: the Component Mapping box's channels, each a component as it is
// or a column of the Palette box indexed by a component (indices clamped to the palette), and
// then the Channel Definition box's colour channels put in their colours' order.
#pragma once
#include "codec/codestream/jp2_reader.hpp"
#include "codec/decoder.hpp"

namespace j2k::codec {

// How many channels the file's image has: the mapping's, or the codestream's components.
size_t jp2_channel_count(const Jp2File& file, size_t components);

// Replaces image.components with the file's channels. Throws j2k::Error (CorruptInput) for a
// mapping that names a component or palette column that is not there.
void apply_jp2_channels(const Jp2File& file, DecodedImage& image);

}  // namespace j2k::codec
