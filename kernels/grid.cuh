// Launch shapes and the block-level double reduction shared by the kernels of this folder.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>

#include "coreset/types.hpp"
#include "kernels/check.hpp"

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

/// Double arithmetic without contraction into fused multiply-adds: the CPU backend (ISO C++,
/// no FMA) rounds a + b * c twice, and the elementwise steps must round exactly as it does so
/// that selections downstream see the same numbers.
__device__ inline double mul(double a, double b) {
  return __dmul_rn(a, b);
}
__device__ inline double add(double a, double b) {
  return __dadd_rn(a, b);
}
__device__ inline double sub(double a, double b) {
  return __dsub_rn(a, b);
}

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
