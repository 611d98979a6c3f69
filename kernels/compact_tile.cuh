// A block-wide compaction's tile (CUB's BlockScan), shared by the top-k's selections and
// compactions (select.cu) and the sparse steps made and compacted in one launch
// (vector_kernels.cu).
#pragma once

#include <cub/block/block_scan.cuh>

#include "coreset/types.hpp"

namespace coreset::kernels {

/// The one-block compactions' shape: 256 threads, 8 items a thread, 2048 a tile.
constexpr int kCompactThreads = 256;
constexpr int kCompactItems = 8;

/// One tile of a block-wide compaction, in a blocked arrangement: each thread holds kItems flags
/// (1: kept) of consecutive items; write(j, at) puts the thread's item j at position `at` of the
/// output for every kept one, after the `written` of the earlier tiles. Returns the tile's kept
/// count, the same in every thread. The scan's storage may serve again once it returns. Count:
/// index_t, or int where the tiles' positions stay below 2^31 and registers are short.
template <int kThreads, int kItems, class Count, class Write>
__device__ Count compact_tile(typename cub::BlockScan<Count, kThreads>::TempStorage& storage,
                              Count (&flags)[kItems], Count written, const Write& write) {
  Count offsets[kItems];
  Count kept = 0;
  cub::BlockScan<Count, kThreads>(storage).ExclusiveSum(flags, offsets, kept);
  for (int j = 0; j < kItems; ++j) {
    if (flags[j] != 0) {
      write(j, written + offsets[j]);
    }
  }
  __syncthreads();
  return kept;
}

}  // namespace coreset::kernels
