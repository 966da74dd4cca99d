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

// The component-resolutions the changes' ranges cover, summed over the changes (at most: a
// change's resolutions counted up to the tile's most), in one step per change: the work
// change_packet_count and change_packet_order do beyond the packets, known before doing it.
uint64_t change_coverage(const std::vector<PocEntry>& changes, const std::vector<ComponentGrid>& components);

// The packets the changes send, in their order (the tile is tx0..tx1 x ty0..ty1, as for
// packet_order), appended to `out`: each packet visited once, however many changes cover it,
// so that the work is the packets plus change_coverage(); `steps` counts it. With `starts`,
// where each change's packets begin in `out` is appended to it (one index a change).
void change_packet_order(const std::vector<PocEntry>& changes, int layers, const std::vector<ComponentGrid>& components,
                         int64_t tx0, int64_t ty0, int64_t tx1, int64_t ty1, std::vector<PacketId>& out, uint64_t& steps,
                         std::vector<size_t>* starts = nullptr);

}  // namespace j2k::codec
