// The arithmetic and shapes of the products over a support list (kernels/columns.cu,
// phi_times_list): out = sum over p < count of value[p] Phi_index[p], host and device alike, so
// the tests replay it bit for bit on the CPU (tests/kernels/test_list_product_logic.cpp,
// tests/cuda/test_cuda_primitives.cpp).
//
// The list's `bound` places are cut into chunks of chunk_entries(bound) consecutive places. A
// block takes a chunk and a tile of rows, one thread a row, and adds the chunk's products in
// order, in double, each with one fused multiply-add (add_product); places at or past the count
// add nothing. A warp per row then adds the chunks' partials: lane l those of chunks l, l + 32,
// ... in turn, then the butterfly of warp_sum (warp_sum_logic.hpp).
//
// Why chunks of 16: a product of a few hundred columns does almost no work, and its time is the
// chain of loads and adds one thread walks. bench_gpu's primitives on an H200
// (bench/results/gpu_h200_20261127_4a3fc22) timed a product of 100 columns at n = 1e6, S = 100
// in 8.6 us and one of 1000 in 8.8 us, both two launches and both a chain of 64 places a thread
// (the chunk was at least 64 then): ten times the columns on ten times the blocks, at the same
// time.
#pragma once

#include <cmath>

#include "coreset/types.hpp"
#include "kernels/warp_sum_logic.hpp"
#include "support/host_device.hpp"

namespace coreset::kernels::list_product {

/// The fewest places a chunk holds: a thread's chain of loads and adds.
inline constexpr index_t kLeastChunk = 16;
/// The most chunks a product has: the partials a row's warp adds, 16 a lane at most.
inline constexpr index_t kMostChunks = 512;
/// Places a block stages in shared memory at once (their columns' offsets and their values).
inline constexpr int kStagedPlaces = 64;

/// Places per chunk for a list of `bound` places: 16 up to 8192 places, beyond that as many as
/// keep the chunks to 512. `least`: another least chunk (64 before 50b3380), for the benchmark
/// that times the two.
CORESET_HOST_DEVICE constexpr index_t chunk_entries(index_t bound, index_t least = kLeastChunk) {
  const index_t spread = (bound + kMostChunks - 1) / kMostChunks;
  return spread > least ? spread : least;
}

/// Chunks of a list of `bound` places (at least one, whose partials are 0 when the list is empty).
CORESET_HOST_DEVICE constexpr index_t chunks(index_t bound, index_t least = kLeastChunk) {
  const index_t chunk = chunk_entries(bound, least);
  const index_t count = (bound + chunk - 1) / chunk;
  return count > 1 ? count : 1;
}

/// One place's product added to a row's running sum: one rounding.
template <class T>
CORESET_HOST_DEVICE double add_product(double sum, T value, T entry) {
  return fma(static_cast<double>(value), static_cast<double>(entry), sum);
}

/// Row `row` of the product as the kernels compute it, rounded to T: Phi (rows x n, column-major),
/// places p < min(count, bound) of the list (index, value), chunks of at least `least` places.
template <class T>
T product_row(const T* phi, index_t rows, const index_t* index, const T* value, index_t count,
              index_t bound, index_t row, index_t least = kLeastChunk) {
  const index_t chunk = chunk_entries(bound, least);
  const index_t places = count < bound ? count : bound;
  double lane_sums[kWarpLanes] = {};
  for (index_t c = 0; c < chunks(bound, least); ++c) {
    double partial = 0.0;
    for (index_t p = c * chunk; p < (c + 1) * chunk && p < places; ++p) {
      partial = add_product(partial, value[p], phi[index[p] * rows + row]);
    }
    const auto lane = static_cast<int>(c % kWarpLanes);
    lane_sums[lane] = lane_sums[lane] + partial;
  }
  return static_cast<T>(butterfly_sum(lane_sums));
}

}  // namespace coreset::kernels::list_product
