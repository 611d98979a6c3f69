// Launch shapes and the block-level double reduction shared by the kernels of this folder.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>

#include "coreset/types.hpp"
#include "kernels/check.hpp"
#include "support/uncontracted.hpp"

namespace coreset::kernels {

constexpr int kBlock = 256;
constexpr int kWarp = 32;
static_assert(kBlock % kWarp == 0, "the loops by warp give every lane of a block's warps work");

/// Blocks for a grid-stride loop over m items: enough to fill the device, capped so that a
/// launch over 1e8 items does not queue millions of blocks.
inline unsigned int blocks_for(index_t m, index_t cap = index_t{1} << 16) {
  const index_t blocks = (std::max<index_t>(m, 1) + kBlock - 1) / kBlock;
  return static_cast<unsigned int>(std::min(blocks, cap));
}

__device__ inline index_t global_thread() {
  return static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline index_t grid_stride() {
  return static_cast<index_t>(gridDim.x) * blockDim.x;
}

/// Blocks of kBlock threads for a grid-stride loop that gives each of m items a warp, capped as
/// blocks_for is.
inline unsigned int blocks_for_warps(index_t m, index_t cap = index_t{1} << 16) {
  return blocks_for(m * kWarp, cap);
}

/// This thread's warp in the grid, and the warps in the grid: a grid-stride loop over items by
/// warp runs every lane of a warp through the same items, as warp_sum needs.
__device__ inline index_t global_warp() {
  return global_thread() / kWarp;
}
__device__ inline index_t warp_grid_stride() {
  return grid_stride() / kWarp;
}

// Double arithmetic without contraction into fused multiply-adds, as the CPU backend rounds.
using support::add;
using support::mul;
using support::sub;

/// The sum of `value` over the block (kBlock threads), valid in thread 0. A fixed tree: the same
/// inputs give the same rounding every time.
__device__ inline double block_sum(double value) {
  __shared__ double shared[kBlock];
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int width = kBlock / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) {
      shared[threadIdx.x] += shared[threadIdx.x + width];
    }
    __syncthreads();
  }
  const double total = shared[0];
  __syncthreads();  // the buffer may be reused by a following call
  return total;
}

/// The sum of `value` over the 32 lanes of the warp, in every lane; called by all of them. A
/// fixed butterfly: the same inputs round alike every time, and every lane holds the same bits
/// (at each step the two lanes of a pair add the same two partials, and addition commutes).
__device__ inline double warp_sum(double value) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  }
  return value;
}

}  // namespace coreset::kernels
