// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer target: the decoder's checks of decode_fuzzer (decode_check.hpp) on codestreams
// mutated field by field (codestream_mutator.hpp: headers well-formed, their values lying),
// so that the inputs reach Tier-2, the layout and Tier-1 of images a header makes huge, tiled
// finely or ordered by many progression changes, instead of stopping at the first marker a
// byte flip breaks. Seeds: decode_structure/, hostile streams of issue 45's classes written
// by make_hostile_seeds.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/codestream_mutator.hpp"
#include "tests/fuzz/decode_check.hpp"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::decode_and_check(data, size);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  fuzz::CodestreamMutator mutator(seed, &LLVMFuzzerMutate);
  return mutator.mutate(data, size, max_size);
}
