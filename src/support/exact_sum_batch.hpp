// Rows of terms for a set of exact accumulators (support/exact_sum.hpp), held a few rows at a time
// and added accumulator by accumulator: each accumulator's limbs are then touched once per batch
// instead of once per row. The sums over datapoints add one row of rounded partial sums per block
// of datapoints (1 + d + d (d + 1) / 2 of them: 66 accumulators, 37 KB, at d = 10); added a batch
// at a time the pass measured faster than row by row (bench/README.md, f4597e1), presumably as
// the accumulators then stay out of the L1 cache the block's arithmetic works in (not measured:
// the build VM has no cache counters). Exact sums do not depend on the order of their terms, so
// the result is the bits of adding each row as it comes.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <vector>

#include "support/exact_sum.hpp"

namespace coreset::support {

class ExactSumBatch {
 public:
  /// Rows of `width` terms, up to `rows` of them (at least 1) held before they are added.
  ExactSumBatch(std::size_t width, std::size_t rows)
      : width_(width), capacity_(std::max<std::size_t>(1, rows)), terms_(width_ * capacity_) {}

  /// The rows a batch holds for `width` terms a row: up to `max_rows`, fewer when they would pass
  /// `max_bytes` (at least one).
  static std::size_t rows_within(std::size_t width, std::size_t max_rows, std::size_t max_bytes) {
    const std::size_t row_bytes = std::max<std::size_t>(1, width) * sizeof(double);
    return std::max<std::size_t>(1, std::min(max_rows, max_bytes / row_bytes));
  }

  /// Storage for the next row's `width` terms, term i for accumulator i, in a batch that is not
  /// full(). The row counts as held from now on: fill it before the next call.
  double* next_row() noexcept {
    assert(held_ < capacity_);
    return terms_.data() + width_ * held_++;
  }

  bool full() const noexcept { return held_ == capacity_; }

  /// Adds the rows held to `sums` (`width` accumulators, term i of each row to sums[i]) and
  /// empties the batch.
  void add_to(std::vector<ExactSum>& sums) noexcept {
    for (std::size_t i = 0; i < width_; ++i) {
      ExactSum& sum = sums[i];
      for (std::size_t row = 0; row < held_; ++row) {
        sum.add(terms_[row * width_ + i]);
      }
    }
    held_ = 0;
  }

 private:
  std::size_t width_;
  std::size_t capacity_;
  std::size_t held_ = 0;
  std::vector<double> terms_;
};

}  // namespace coreset::support
