// The arithmetic of Phi^T r for short columns (kernels/columns.cu, phi_t_times_short), host and
// device alike, so the tests replay it bit for bit on the CPU
// (tests/kernels/test_short_columns_logic.cpp, tests/cuda/test_cuda_primitives.cpp).
//
// Four threads share a column: part p adds the products of entries p, p + 4, p + 8, ... in turn,
// in double, every product and sum rounded on its own (no fused multiply-add, on either side);
// the parts are then combined as the kernel's two shuffles do, (s0 + s2) + (s1 + s3).
#pragma once

#include "coreset/types.hpp"
#include "support/host_device.hpp"
#include "support/uncontracted.hpp"

namespace coreset::kernels::short_columns {

/// Threads per column.
inline constexpr int kParts = 4;

/// Part `part` (0 <= part < kParts) of column . r over `rows` entries.
template <class T>
CORESET_HOST_DEVICE double part_sum(const T* column, const T* r, index_t rows, int part) {
  double sum = 0.0;
  for (index_t i = part; i < rows; i += kParts) {
    sum =
        support::add(sum, support::mul(static_cast<double>(column[i]), static_cast<double>(r[i])));
  }
  return sum;
}

/// The kernel's combination of the four parts.
CORESET_HOST_DEVICE inline double combine(double s0, double s1, double s2, double s3) {
  return support::add(support::add(s0, s2), support::add(s1, s3));
}

/// column . r as the kernel computes it, rounded to T.
template <class T>
T dot(const T* column, const T* r, index_t rows) {
  return static_cast<T>(combine(part_sum(column, r, rows, 0), part_sum(column, r, rows, 1),
                                part_sum(column, r, rows, 2), part_sum(column, r, rows, 3)));
}

}  // namespace coreset::kernels::short_columns
