// The centring of one column of Phi by one warp (spec 1.3), shared by the kernels that produce
// Phi on the device: the GPU projection (kernels/projection.cu) and the log-likelihoods handed in
// by a caller (kernels/external_arrays.cu).
#pragma once

#include "kernels/grid.cuh"

namespace coreset::kernels {

/// out[s] = (v_s - mean) / sqrt(rows) for s < rows, mean = (1/rows) sum_s v_s, summed in double by
/// one warp (lanes over the samples, then warp_sum: the same inputs round alike every time).
/// `first(s)` gives v_s in the first pass (it may store it for the second) and `again(s)` gives
/// it in the second, on the lane that computed it. first_bad receives (atomic min)
/// flat_first + s of a non-finite v_s, or flat_first + rows - 1 when finite values sum to a
/// non-finite total (a non-finite value has the lower index and wins the minimum). Called by
/// every lane of the warp.
///
/// A warp per column, not a block: a block's tree sum costs a barrier per level (eight with 256
/// threads) for every column, which short columns cannot hide. At N = 1e8, S = 100 the
/// projection alone took 0.29 s on an H100 with a block per column, 0.23 s on an H200 with a
/// warp (bench/results/gpu_h200_20261127_373e1ae/).
template <class T, class First, class Again>
__device__ void centre_column(const First& first, const Again& again, index_t rows,
                              unsigned long long flat_first, T* out,
                              unsigned long long* first_bad) {
  const double scale = 1.0 / sqrt(static_cast<double>(rows));
  const index_t lane = threadIdx.x % kWarp;
  double sum = 0.0;
  for (index_t s = lane; s < rows; s += kWarp) {
    const double value = first(s);
    if (!isfinite(value)) {
      atomicMin(first_bad, flat_first + static_cast<unsigned long long>(s));
    }
    sum += value;
  }
  const double total = warp_sum(sum);
  if (lane == 0 && !isfinite(total)) {
    atomicMin(first_bad, flat_first + static_cast<unsigned long long>(rows - 1));
  }
  const double mean = total / static_cast<double>(rows);
  for (index_t s = lane; s < rows; s += kWarp) {
    out[s] = static_cast<T>(mul(sub(again(s), mean), scale));
  }
}

}  // namespace coreset::kernels
