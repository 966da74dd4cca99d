// SPDX-License-Identifier: BSD-2-Clause
// The structure-aware fuzzer's tools, without libFuzzer: codestream_units.hpp writes back the
// streams it parses byte for byte, and the mutator's edits keep the markers parseable (the
// point of it: inputs that get past the header checks) while changing the stream.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/codestream_mutator.hpp"
#include "tests/support/codestream_units.hpp"

namespace {

namespace fs = std::filesystem;

std::vector<std::vector<uint8_t>> codestream_seeds() {
  std::vector<std::vector<uint8_t>> out;
  for (const char* folder : {"decode_structure", "decode"})
    for (const auto& e : fs::directory_iterator(fs::path(J2K_SOURCE_DIR) / "tests" / "fuzz" / folder)) {
      std::ifstream in(e.path(), std::ios::binary);
      std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      if (bytes.size() >= 2 && bytes[0] == 0xFF && bytes[1] == 0x4F) out.push_back(std::move(bytes));
    }
  return out;
}

// Each seed parses and comes back byte for byte, those whose Psot lie (past the end, 0) too.
TEST(CodestreamUnits, SeedsParseAndWriteBackByteForByte) {
  const auto seeds = codestream_seeds();
  ASSERT_GE(seeds.size(), 20u);
  for (const auto& s : seeds) {
    const auto units = test_support::parse_units(s.data(), s.size());
    ASSERT_TRUE(units.has_value());
    EXPECT_EQ(test_support::write_units(*units), s);
  }
}

TEST(CodestreamUnits, WritingRecomputesLengthsAndPsot) {
  using test_support::Unit;
  std::vector<Unit> units{{test_support::kSOC, {}, false},
                          {test_support::kSIZ, std::vector<uint8_t>(39, 0), false},
                          {test_support::kSOT, {0, 0, 0, 0, 0, 9, 0, 1}, false},
                          {test_support::kSOD, {1, 2, 3}, false},
                          {test_support::kEOC, {}, false}};
  const std::vector<uint8_t> s = test_support::write_units(units);
  ASSERT_EQ(s.size(), 2u + 43 + 12 + 2 + 3 + 2);
  EXPECT_EQ(s[2 + 2] << 8 | s[2 + 3], 41);  // Lsiz: 39 bytes and itself
  const size_t sot = 2 + 43;
  EXPECT_EQ(test_support::get_be(std::vector<uint8_t>(s.begin() + sot + 6, s.begin() + sot + 10), 0, 4), 17u);  // SOT to the data's end
  units[2].keep_psot = true;  // a Psot that lies stays as it is
  const std::vector<uint8_t> lie = test_support::write_units(units);
  EXPECT_EQ(test_support::get_be(std::vector<uint8_t>(lie.begin() + sot + 6, lie.begin() + sot + 10), 0, 4), 9u);
}

TEST(CodestreamMutator, EditsChangeStreamsAndKeepMostParseable) {
  const auto seeds = codestream_seeds();
  fuzz::CodestreamMutator mutator(1, nullptr);
  int changed = 0, parseable = 0, runs = 0;
  constexpr size_t kMax = 1 << 20;
  for (const auto& s : seeds)
    for (int k = 0; k < 200; ++k, ++runs) {
      std::vector<uint8_t> b = s;
      b.resize(kMax);
      b.resize(mutator.mutate(b.data(), s.size(), kMax));
      ASSERT_LE(b.size(), kMax);
      ASSERT_GE(b.size(), 2u);
      EXPECT_EQ(b[0], 0xFF);
      EXPECT_EQ(b[1], 0x4F);
      changed += b != s;
      parseable += test_support::parse_units(b.data(), b.size()).has_value();
    }
  // Some edits change nothing (a field set to what it was, a tile-part that has no COC to
  // edit; a quarter go to the byte mutator, none here); a Psot that lies may leave the rest
  // unparseable, by design.
  EXPECT_GT(changed, runs / 2);
  EXPECT_GT(parseable, runs * 3 / 4);
}

}  // namespace
