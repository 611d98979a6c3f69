// The first value that is not finite (NaN or an infinity) in an array or in the columns of a
// matrix: the one scan behind the .npy reader's value check, the model's covariate check and
// Phi's check before a solve. The common case, every value finite, runs at memory speed.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "coreset/types.hpp"

namespace coreset::support {

/// Whether `value` is NaN or an infinity, by its bits (an all-ones exponent marks both):
/// branch-free, so that loops over many values vectorise.
template <class T>
inline bool non_finite_bits(T value) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  constexpr auto kExponent =
      static_cast<Bits>(sizeof(T) == 4 ? 0x7f800000ull : 0x7ff0000000000000ull);
  Bits bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return (bits & kExponent) == kExponent;
}

/// The offset of the first value of values[0, count) that is not finite, or -1. Float or double.
/// Each block of 1024 values is first tested branch-free on its bits, and only a block with one
/// is walked again for its first.
template <class T>
index_t first_non_finite(const T* values, index_t count) {
  constexpr index_t kBlock = 1024;
  for (index_t start = 0; start < count; start += kBlock) {
    const index_t end = std::min(count, start + kBlock);
    bool any = false;
    for (index_t i = start; i < end; ++i) {
      any |= non_finite_bits(values[i]);
    }
    if (any) {
      for (index_t i = start; i < end; ++i) {
        if (!std::isfinite(values[i])) {
          return i;
        }
      }
    }
  }
  return -1;
}

/// Copies from[0, count) to `to` and returns whether any of the values is not finite: the copy
/// and the test in one branch-free pass, about as fast as the copy alone (a separate scan read
/// the values again: 2e6 x 20 doubles took 0.021-0.022 s to copy and 0.012-0.021 s more to scan
/// on the 2-vCPU build VM, bench/results/model_setup_20261126/). Where it returns true,
/// first_non_finite says where.
template <class T>
bool copy_testing_finite(const T* from, index_t count, T* to) {
  bool any = false;
  for (index_t i = 0; i < count; ++i) {
    const T value = from[i];
    any |= non_finite_bits(value);
    to[i] = value;
  }
  return any;
}

/// The first value that is not finite in the `cols` columns of `rows` values each (column j from
/// data + j * stride), in column-major order, as j * rows + i; or -1. The columns are cut into
/// segments of 2^16 rows scanned on `threads` threads (0: OpenMP's default team) when there are
/// 2^20 values or more; the smallest position found is the one a serial scan, column by column,
/// would stop at.
template <class T>
index_t first_non_finite_in_columns(const T* data, index_t rows, index_t cols, index_t stride,
                                    int threads = 0) {
  constexpr index_t kSegmentRows = index_t{1} << 16;
  const index_t segments = (rows + kSegmentRows - 1) / kSegmentRows;
  const index_t tasks = segments * cols;
#ifdef _OPENMP
  const int team = threads > 0 ? threads : omp_get_max_threads();
#else
  const int team = 1;
  (void)threads;
#endif
  index_t first = std::numeric_limits<index_t>::max();
#pragma omp parallel for num_threads(team) schedule(static) \
    reduction(min                                           \
              : first) if (tasks > 1 && rows * cols >= (index_t{1} << 20))
  for (index_t task = 0; task < tasks; ++task) {
    const index_t column = task / segments;
    const index_t start = (task % segments) * kSegmentRows;
    const index_t offset =
        first_non_finite(data + column * stride + start, std::min(kSegmentRows, rows - start));
    if (offset >= 0) {
      first = std::min(first, column * rows + start + offset);
    }
  }
  return first == std::numeric_limits<index_t>::max() ? -1 : first;
}

}  // namespace coreset::support
