// The centring of one column of Phi by one warp (spec 1.3), shared by the kernels that produce
// Phi on the device: the GPU projection (kernels/projection.cu) and the log-likelihoods handed in
// by a caller (kernels/external_arrays.cu).
#pragma once

#include <cassert>

#include "kernels/grid.cuh"

namespace coreset::kernels {

/// One value's share of centre_column's checks: a non-finite v_s is reported at flat_first + s.
__device__ inline void report_if_not_finite(double value, index_t s, unsigned long long flat_first,
                                            unsigned long long* first_bad) {
  if (!isfinite(value)) {
    atomicMin(first_bad, flat_first + static_cast<unsigned long long>(s));
  }
}

/// The column's mean from each lane's partial sum (a fixed butterfly), a non-finite total reported
/// at flat_first + rows - 1. Called by every lane of the warp; every lane gets the mean.
__device__ inline double column_mean(double lane_sum, index_t rows, unsigned long long flat_first,
                                     unsigned long long* first_bad) {
  const double total = warp_sum(lane_sum);
  if (threadIdx.x % kWarp == 0 && !isfinite(total)) {
    atomicMin(first_bad, flat_first + static_cast<unsigned long long>(rows - 1));
  }
  return total / static_cast<double>(rows);
}

/// One output entry: (v - mean) times scale = 1 / sqrt(rows), each operation rounded on its own
/// (the CPU projection's order), then to T.
template <class T>
__device__ inline T centred_entry(double value, double mean, double scale) {
  return static_cast<T>(mul(sub(value, mean), scale));
}

/// out[s] = (v_s - mean) / sqrt(rows) for s < rows, mean = (1/rows) sum_s v_s, summed in double by
/// one warp (lanes over the samples, then warp_sum: the same inputs round alike every time), with
/// v_s = transform(load(s), s). With `stored`, v_s is written there in the first pass and read
/// back in the second; without, the second pass loads and transforms again. first_bad receives
/// (atomic min) flat_first + s of a non-finite v_s, or flat_first + rows - 1 when finite values
/// sum to a non-finite total (a non-finite value has the lower index and wins the minimum).
/// Called by every lane of the warp.
///
/// A warp per column, not a block: a block's tree sum costs a barrier per level (eight with 256
/// threads) for every column, which short columns cannot hide. At N = 1e8, S = 100 the
/// projection alone took 0.29 s on an H100 with a block per column, 0.23 s on an H200 with a
/// warp (bench/results/gpu_h200_20261127_373e1ae/).
///
/// Each lane loads kBatch entries before it computes any of their values, and stores them after
/// the batch. Written as one loop of load, value and store, each lane had one load in flight (a
/// store may alias the next entry's load): on the H200 at 4a3fc22 the projection's pass took
/// 53.2 us a block at S = 500 (logistic link, float Phi), where writing the block's Phi takes
/// about 3.5 us. The batches keep each lane's sum in ascending s, so the bits are those of the
/// one-entry loop.
template <int kBatch = 4, class T, class Load, class Transform>
__device__ void centre_column(const Load& load, const Transform& transform, double* stored,
                              index_t rows, unsigned long long flat_first, T* out,
                              unsigned long long* first_bad) {
  const double scale = 1.0 / sqrt(static_cast<double>(rows));
  const index_t lane = threadIdx.x % kWarp;
  double sum = 0.0;
  for (index_t first = lane; first < rows; first += kWarp * kBatch) {
    double batch[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const index_t s = first + j * kWarp;
      batch[j] = s < rows ? load(s) : 0.0;
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const index_t s = first + j * kWarp;
      if (s < rows) {
        batch[j] = transform(batch[j], s);
        report_if_not_finite(batch[j], s, flat_first, first_bad);
        sum = add(sum, batch[j]);  // never contracted with a multiply in the link
      }
    }
    if (stored != nullptr) {
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const index_t s = first + j * kWarp;
        if (s < rows) {
          stored[s] = batch[j];
        }
      }
    }
  }
  const double mean = column_mean(sum, rows, flat_first, first_bad);
  for (index_t first = lane; first < rows; first += kWarp * kBatch) {
    double batch[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const index_t s = first + j * kWarp;
      batch[j] = s >= rows ? 0.0 : stored != nullptr ? stored[s] : load(s);
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const index_t s = first + j * kWarp;
      if (s < rows) {
        out[s] =
            centred_entry<T>(stored != nullptr ? batch[j] : transform(batch[j], s), mean, scale);
      }
    }
  }
}

/// centre_column with each lane's values held in registers: `value(s)` is called once per s and
/// its result kept by the lane that computed it (kHeld of them a lane, so rows <= kWarp * kHeld),
/// so nothing is stored and read back between the two passes. The same sums in the same order,
/// the same checks: the same output bits as centre_column.
template <int kHeld, class T, class Value>
__device__ void centre_column_held(const Value& value, index_t rows, unsigned long long flat_first,
                                   T* out, unsigned long long* first_bad) {
  assert(rows <= kWarp * kHeld);  // link_center's dispatch: longer columns take centre_column
  const double scale = 1.0 / sqrt(static_cast<double>(rows));
  const index_t lane = threadIdx.x % kWarp;
  double held[kHeld];
  double sum = 0.0;
#pragma unroll
  for (int j = 0; j < kHeld; ++j) {
    const index_t s = lane + j * kWarp;
    held[j] = 0.0;
    if (s < rows) {
      held[j] = value(s);
      report_if_not_finite(held[j], s, flat_first, first_bad);
      sum = add(sum, held[j]);
    }
  }
  const double mean = column_mean(sum, rows, flat_first, first_bad);
#pragma unroll
  for (int j = 0; j < kHeld; ++j) {
    const index_t s = lane + j * kWarp;
    if (s < rows) {
      out[s] = centred_entry<T>(held[j], mean, scale);
    }
  }
}

}  // namespace coreset::kernels
