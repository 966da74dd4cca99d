// SPDX-License-Identifier: BSD-2-Clause
// The C library's heap set for the CLI's processes, whose workers allocate and free buffers of
// up to tens of MiB (code-blocks' bytes, rows, pages of the codestream) while the other
// workers fault pages in. By default glibc serves each allocation of 128 KiB or more with a
// fresh mmap and returns it with munmap, and grows a worker's arena a few pages at a time
// with mprotect: every such call takes the process's memory-map lock for writing, so that
// the page faults of all the other workers wait (a two-thread HT compress of a 4096^2 RGB
// image made about 1,900 mprotect calls). Here allocations under 32 MiB come from the arenas,
// which grow 16 MiB at a time and keep what is freed for the next image: on the H200's 16
// threads HT compress and decompress 5% to 15% faster, one image's peak memory the same, a
// folder's a few percent more (docs/maintainers/experiments.md, "HTJ2K on 16 threads, round
// 2"; docs/cli.md, "Memory").
#pragma once

namespace j2k::tools {

// Sets the heap up as above, unless `tunables` (the GLIBC_TUNABLES the process was started
// with, or null) already sets a malloc tunable: a user's own settings are kept. Returns
// whether it set anything (false too where the C library is not glibc).
bool tune_heap_for_workers(const char* tunables);

}  // namespace j2k::tools
