// Launch shapes and the block-level double reduction shared by the kernels of this folder.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>

#include "coreset/types.hpp"
#include "kernels/check.hpp"
#include "support/uncontracted.hpp"

namespace coreset::kernels {

constexpr int kBlock = 256;

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

}  // namespace coreset::kernels
