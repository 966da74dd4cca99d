// SPDX-License-Identifier: BSD-2-Clause
// Tuning constants of the CUDA DWT kernels (transform/cuda/dwt_cuda.cu).
// One warp transforms one tile: 32 lanes x 2 adjacent columns = 64 columns, of which the
// 2*halo outer columns are context only; kRows* output rows plus halo rows above and below,
// all held in registers. Rows must be even. Sweep at 8192^2 (docs/maintainers/experiments.md): 20/16 beat
// 24/20, 28/24 and 36/32 by 1-4%.
#pragma once

namespace j2k::cuda_tuning {

constexpr int kWarpsPerBlock = 4;  // independent tiles per thread block
// __launch_bounds__ minimum blocks per SM: caps registers at 65536 / (128 * n), i.e. sets the
// occupancy. The inverse keeps all rows live between its two passes and spills sooner.
// Overridable at build time (-DJ2K_CUDA_MIN_BLOCKS_FWD=n / _INV=n) for tuning sweeps.
#ifdef J2K_CUDA_MIN_BLOCKS_FWD
constexpr int kMinBlocksFwd = J2K_CUDA_MIN_BLOCKS_FWD;
#else
constexpr int kMinBlocksFwd = 4;  // <= 128 registers (6 = 80 registers measured 4% slower)
#endif
#ifdef J2K_CUDA_MIN_BLOCKS_INV
constexpr int kMinBlocksInv = J2K_CUDA_MIN_BLOCKS_INV;
#else
constexpr int kMinBlocksInv = 4;  // <= 128 registers (5 spills in one instance)
#endif
// Overridable at build time (-DJ2K_CUDA_ROWS53=n / -DJ2K_CUDA_ROWS97=n) for tuning sweeps.
#ifdef J2K_CUDA_ROWS53
constexpr int kRows53 = J2K_CUDA_ROWS53;
#else
constexpr int kRows53 = 20;  // output rows per tile, 5/3 (halo 2: 24 rows in registers)
#endif
#ifdef J2K_CUDA_ROWS97
constexpr int kRows97 = J2K_CUDA_ROWS97;
#else
constexpr int kRows97 = 16;  // output rows per tile, 9/7 (halo 4: 24 rows in registers)
#endif

// Small levels (few tiles: under ~2 waves of warps) are latency-bound: they use short tiles,
// which gives more warps with shorter dependency chains.
constexpr int kRowsSmall = 8;
constexpr long long kSmallLevelTiles = 4096;

// Programmatic dependent launch (sm_90): each level's grid is launched while the previous
// one drains and waits (griddepcontrol.wait) before its first load.
constexpr bool kUsePdl = true;

// Consecutive levels walk their tiles in opposite orders (L2 reuse of the previous level's
// last-written LL rows). -DJ2K_CUDA_SAME_TILE_ORDER for A/B measurements.
#ifdef J2K_CUDA_SAME_TILE_ORDER
constexpr bool kAlternateTileOrder = false;
#else
constexpr bool kAlternateTileOrder = true;
#endif

// Forward levels 1 and 2 fused in one kernel (dwt_fused.cuh): a block of kFusedThreads owns a
// kFusedBX x kFusedBY region of the level-1 LL. BX = 64 makes every subband row segment that a
// block writes 256-byte aligned (int32/float, aligned dst rows). Shared memory per block:
// 4 * (2 * (BX + 2H) + 2H + 1) * (2 * (BY + 2H) + 2H) bytes (61 KB for the 5/3).
// Whether it runs is a run-time choice (CudaDwtOptions, cuda_dwt.hpp).
constexpr int kFusedThreads = 512;
constexpr int kFusedBX = 64;
#ifdef J2K_CUDA_FUSED_BY53
constexpr int kFusedBY53 = J2K_CUDA_FUSED_BY53;
#else
constexpr int kFusedBY53 = 44;
#endif
#ifdef J2K_CUDA_FUSED_BY97
constexpr int kFusedBY97 = J2K_CUDA_FUSED_BY97;
#else
constexpr int kFusedBY97 = 40;
#endif
// Level-1 passes of the fused kernel: the vertical one splits each column of the block into
// kFusedQV chunks, the horizontal one each row into kFusedQH chunks (one thread each, lifted
// in registers; rows x kFusedQH must not exceed kFusedThreads).
constexpr int kFusedQV53 = 3, kFusedQH53 = 4;  // 32 + 4 and 34 + 4 samples per thread
constexpr int kFusedQV97 = 3, kFusedQH97 = 4;  // 32 + 8 and 36 + 8 samples per thread
constexpr int kFusedMinBlocks53 = 2, kFusedMinBlocks97 = 2;  // __launch_bounds__: 3 spills

}  // namespace j2k::cuda_tuning
