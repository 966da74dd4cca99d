// SPDX-License-Identifier: BSD-2-Clause
// A tile's packets under progression order changes (ISO/IEC 15444-1 A.6.6, B.12.2), as
// OpenJPEG reads them: the changes in turn, each over layers 0 to its LYEpoc, its resolutions
// and components, in its progression, sending only the packets no change before sent (so a
// component-resolution's sent layers are always 0 to some count); packets no change covers
// are not in the tile.
#pragma once
#include <cstdint>
#include <vector>

#include "codec/params/tile_coding.hpp"
#include "codec/tier2/progression.hpp"

namespace j2k::codec {

// The packets the changes send, given the tile's `layers` and its component grids: each
// component-resolution's precincts times the most layers a change covering it names. Work:
// one step per component-resolution in each change's ranges, added to `steps`.
int64_t change_packet_count(const std::vector<PocEntry>& changes, int layers, const std::vector<ComponentGrid>& components,
                            uint64_t& steps);

}  // namespace j2k::codec
