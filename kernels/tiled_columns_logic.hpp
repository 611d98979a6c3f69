// The arithmetic of Phi^T r by column tiles (kernels/columns.cu, phi_t_times_tiled), host and
// device alike, so the tests replay it bit for bit on the CPU
// (tests/kernels/test_tiled_columns_logic.cpp, tests/cuda/test_cuda_primitives.cpp).
//
// `parts` threads share a column: 4 for columns of up to kFewPartsRows entries (where a tile of
// them fits), a warp's 32 for longer ones. Part p adds the products of entries p, p + parts, p + 2
// parts, ... in turn, in double, every product and sum rounded on its own (no fused multiply-add,
// on either side); the parts are then combined as the kernel's shuffles do: halving trees, parts[l]
// += parts[l + h] for h = parts / 2, ..., 1 (with 4 parts, (s0 + s2) + (s1 + s3)).
#pragma once

#include "coreset/types.hpp"
#include "support/host_device.hpp"
#include "support/uncontracted.hpp"

namespace coreset::kernels::tiled_columns {

/// The longest columns shared by 4 threads; longer ones take a warp each.
inline constexpr index_t kFewPartsRows = 128;
/// Threads per column in a warp's share: the most parts a column has.
inline constexpr int kMostParts = 32;
/// Shared memory a block of the kernel may use without opting in, and its threads.
inline constexpr index_t kTileBytes = index_t{48} << 10;
inline constexpr index_t kTileThreads = 256;

/// Bytes of shared memory for a tile of columns of `rows` entries shared by `parts` threads each,
/// and r beside them.
CORESET_HOST_DEVICE constexpr index_t tile_bytes(index_t rows, index_t element_bytes, int parts) {
  return (kTileThreads / parts + 1) * rows * element_bytes;
}

/// Threads per column of `rows` entries of `element_bytes`: 4 up to kFewPartsRows entries where
/// such a tile fits, else a warp.
CORESET_HOST_DEVICE constexpr int parts_for(index_t rows, index_t element_bytes) {
  return rows <= kFewPartsRows && tile_bytes(rows, element_bytes, 4) <= kTileBytes ? 4 : kMostParts;
}

/// Whether a tile of such columns fits: float S <= 1365, double S <= 682.
CORESET_HOST_DEVICE constexpr bool fits(index_t rows, index_t element_bytes) {
  return rows >= 1 && tile_bytes(rows, element_bytes, parts_for(rows, element_bytes)) <= kTileBytes;
}

/// Whether the GPU backend's Phi^T r takes the kernel (launch.hpp, phi_t_times_tiled) for such
/// columns: where it fits with 4 threads a column (float S <= 128, double S <= 94). With a warp a
/// column it lost to cuBLAS at n = 1e7, S = 500 on an H200 (kernels/phi_t_r_kernel.hpp).
CORESET_HOST_DEVICE constexpr bool preferred(index_t rows, index_t element_bytes) {
  return fits(rows, element_bytes) && parts_for(rows, element_bytes) == 4;
}

/// Part `part` (0 <= part < parts) of column . r over `rows` entries.
template <class T>
CORESET_HOST_DEVICE double part_sum(const T* column, const T* r, index_t rows, int part,
                                    int parts) {
  double sum = 0.0;
  for (index_t i = part; i < rows; i += parts) {
    sum =
        support::add(sum, support::mul(static_cast<double>(column[i]), static_cast<double>(r[i])));
  }
  return sum;
}

/// column . r as the kernel computes it, rounded to T.
template <class T>
T dot(const T* column, const T* r, index_t rows) {
  const int parts = parts_for(rows, static_cast<index_t>(sizeof(T)));
  double sums[kMostParts];
  for (int p = 0; p < parts; ++p) {
    sums[p] = part_sum(column, r, rows, p, parts);
  }
  for (int half = parts / 2; half >= 1; half /= 2) {
    for (int p = 0; p < half; ++p) {
      sums[p] = support::add(sums[p], sums[p + half]);
    }
  }
  return static_cast<T>(sums[0]);
}

}  // namespace coreset::kernels::tiled_columns
