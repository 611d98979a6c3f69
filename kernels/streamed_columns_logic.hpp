// The arithmetic of Phi^T r by streamed columns (kernels/streamed_columns.cu,
// phi_t_times_streamed), host and device alike, so the tests replay it bit for bit on the CPU
// (tests/kernels/test_streamed_columns_logic.cpp, tests/cuda/test_cuda_primitives.cpp).
//
// A warp takes a column (or a few consecutive short ones) and every lane loads all of its entries
// of the column at once, straight into registers: no shared memory, no barrier, and up to
// kInFlightBytes a lane on its way from memory, so that the loads of one warp, not the occupancy
// of a tile, keep the bus busy. Each lane holds its entries of r in registers for the whole
// launch (their positions are the same in every column).
//
// Lane l's entries of a column: `width` consecutive entries (a 16-byte load when the columns are
// 16-byte aligned, else one entry) at (l + 32 m) * width, for m = 0, 1, ... while below S; it adds
// their products with r in that order, in double, each product and sum rounded on its own. The
// warp's 32 partial sums then meet in a butterfly (kernels::warp_sum: at offsets 16, 8, 4, 2, 1,
// every lane adds its partner's sum), and lane 0's total is the column's.
#pragma once

#include <cstdint>

#include "coreset/types.hpp"
#include "kernels/warp_sum_logic.hpp"
#include "support/host_device.hpp"
#include "support/uncontracted.hpp"

namespace coreset::kernels::streamed_columns {

inline constexpr int kLanes = kWarpLanes;
/// Bytes of Phi a lane has in flight at most: the loads of a warp's step (one long column, or
/// several short ones at once).
inline constexpr index_t kInFlightBytes = 128;
/// The largest number of entries a lane holds: float 32 (S <= 1024), double 16 (S <= 512), so that
/// its share of r (in double) and of a column stay within about 100 registers.
CORESET_HOST_DEVICE constexpr index_t most_entries_per_lane(index_t element_bytes) {
  return element_bytes <= 4 ? 32 : 16;
}

/// Entries each lane holds for columns of `rows` entries: the least of 4, 8, 16, 32 with 32 lanes
/// covering the column.
CORESET_HOST_DEVICE constexpr index_t entries_per_lane(index_t rows) {
  index_t entries = 4;
  while (entries * kLanes < rows) {
    entries *= 2;
  }
  return entries;
}

/// Whether the kernel takes such columns: float S <= 1024, double S <= 512.
CORESET_HOST_DEVICE constexpr bool fits(index_t rows, index_t element_bytes) {
  return rows >= 1 && rows <= kLanes * most_entries_per_lane(element_bytes);
}

/// Consecutive columns a warp takes per step when each lane holds `entries` of each: kInFlightBytes
/// a lane over its entries of each (float: 8 columns of up to 128 entries, 4 up to 256, 2 up to
/// 512, 1 beyond).
CORESET_HOST_DEVICE constexpr index_t columns_per_step_for(index_t entries, index_t element_bytes) {
  const index_t per_column = entries * element_bytes;
  return per_column >= kInFlightBytes ? 1 : kInFlightBytes / per_column;
}
CORESET_HOST_DEVICE constexpr index_t columns_per_step(index_t rows, index_t element_bytes) {
  return columns_per_step_for(entries_per_lane(rows), element_bytes);
}

/// Entries per load: 16 bytes' worth when every column starts 16-byte aligned (Phi's address and
/// S * sizeof(T) both multiples of 16), else 1.
inline index_t load_width(const void* phi, index_t rows, index_t element_bytes) {
  const bool aligned =
      reinterpret_cast<std::uintptr_t>(phi) % 16 == 0 && (rows * element_bytes) % 16 == 0;
  return aligned ? 16 / element_bytes : 1;
}

/// Lane `lane`'s partial sum of column . r: its loads of `width` entries at (lane + 32 m) * width.
template <class T>
CORESET_HOST_DEVICE double lane_sum(const T* column, const T* r, index_t rows, int lane,
                                    index_t width) {
  double sum = 0.0;
  for (index_t start = lane * width; start < rows; start += kLanes * width) {
    for (index_t i = start; i < start + width && i < rows; ++i) {
      sum = support::add(sum,
                         support::mul(static_cast<double>(column[i]), static_cast<double>(r[i])));
    }
  }
  return sum;
}

/// column . r as the kernel computes it with loads of `width` entries, rounded to T.
template <class T>
T dot(const T* column, const T* r, index_t rows, index_t width) {
  double sums[kLanes];
  for (int lane = 0; lane < kLanes; ++lane) {
    sums[lane] = lane_sum(column, r, rows, lane, width);
  }
  return static_cast<T>(butterfly_sum(sums));
}

}  // namespace coreset::kernels::streamed_columns
