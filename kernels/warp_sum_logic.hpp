// The host's replay of kernels::warp_sum (grid.cuh), for the logic headers whose kernels end in
// it (streamed_columns_logic.hpp, list_product_logic.hpp): lane l's sum and lane l ^ offset's
// added at offsets 16, 8, 4, 2, 1, lane 0's total returned.
#pragma once

namespace coreset::kernels {

inline constexpr int kWarpLanes = 32;

/// The butterfly of warp_sum over the lanes' sums: what every lane holds after it.
inline double butterfly_sum(const double (&lane_sums)[kWarpLanes]) {
  double sums[kWarpLanes];
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    sums[lane] = lane_sums[lane];
  }
  for (int offset = kWarpLanes / 2; offset >= 1; offset /= 2) {
    double next[kWarpLanes];
    for (int lane = 0; lane < kWarpLanes; ++lane) {
      next[lane] = sums[lane] + sums[lane ^ offset];
    }
    for (int lane = 0; lane < kWarpLanes; ++lane) {
      sums[lane] = next[lane];
    }
  }
  return sums[0];
}

}  // namespace coreset::kernels
