// A model's offsets c_n, the theta-free constants of L_n: one stored per row, or one value that
// every row shares, which is never stored.
//
// The logistic model's offsets are all 0 and the linear model's all the normalising constant,
// so storing them cost every build an n-vector written at set-up and read by every pass over
// the rows (the Laplace fit's included: 8 of the 88 bytes a row of a 10-parameter logistic
// model reads; its ratio to its passes fell by 3-13%, median 6%, in six pairs on the 2-vCPU
// build VM at n = 1e7: bench/results/offsets_shared_20261127/) and uploaded to the GPU. Only the
// Poisson model (-log y_n!) and the Gaussian one (-x_n^T Sigma^-1 x_n / 2 + its constant) store
// theirs. Either way a reader gets the same value, so every sum keeps its bits.
#pragma once

#include <utility>
#include <vector>

#include "coreset/types.hpp"
#include "models/offsets_view.hpp"
#include "support/eigen.hpp"

namespace coreset::models {

class RowOffsets {
 public:
  /// No rows.
  RowOffsets() = default;
  /// One offset per row, stored.
  RowOffsets(Eigen::VectorXd values)  // NOLINT(google-explicit-constructor): a model's vector
      : values_(std::move(values)), stored_(true) {}
  /// One offset per row, stored, from an Eigen expression (a test's Zero(n) or Constant(n, c)).
  template <class Derived>
  RowOffsets(const Eigen::DenseBase<Derived>& values)  // NOLINT(google-explicit-constructor)
      : RowOffsets(Eigen::VectorXd(values)) {}
  /// `rows` rows, every one with offset `value`, nothing stored.
  static RowOffsets shared(index_t rows, double value) {
    RowOffsets offsets;
    offsets.shared_rows_ = rows;
    offsets.shared_value_ = value;
    return offsets;
  }

  /// The rows: the stored values' count (0 once moved from, which a model's checks then
  /// refuse), or the shared offsets' rows.
  index_t size() const noexcept { return stored_ ? values_.size() : shared_rows_; }
  /// Whether each row's offset is stored (else every row has shared_value()). A property of the
  /// model, not of its row count: a rank's empty share of a Poisson model's rows stores its
  /// none, so that whatever is gathered to it is stored too (pipeline/coreset_rows.cpp).
  bool stored() const noexcept { return stored_; }
  /// The stored offsets (size() of them), or null when they are shared (or none are stored).
  const double* data() const noexcept { return stored() ? values_.data() : nullptr; }
  /// Every row's offset when they are not stored.
  double shared_value() const noexcept { return shared_value_; }

  double operator[](index_t row) const noexcept { return view()[row]; }

  /// The offsets from row `first` on, as a view.
  OffsetsView view(index_t first = 0) const noexcept {
    return {stored() ? values_.data() + first : nullptr, shared_value_};
  }
  /// Rows first ... first + count - 1, stored or shared as these are.
  RowOffsets segment(index_t first, index_t count) const {
    if (!stored()) {
      return shared(count, shared_value_);
    }
    return RowOffsets(Eigen::VectorXd(values_.segment(first, count)));
  }
  /// Rows indices[0], indices[1], ... (each in range), stored or shared as these are.
  RowOffsets rows_at(const std::vector<index_t>& indices) const {
    const auto count = static_cast<index_t>(indices.size());
    if (!stored()) {
      return shared(count, shared_value_);
    }
    Eigen::VectorXd values(count);
    for (index_t p = 0; p < count; ++p) {
      values[p] = values_[indices[static_cast<std::size_t>(p)]];
    }
    return RowOffsets(std::move(values));
  }
  /// Every row's offset, stored.
  Eigen::VectorXd dense() const {
    return stored() ? values_ : Eigen::VectorXd::Constant(shared_rows_, shared_value_);
  }

 private:
  Eigen::VectorXd values_;   // one a row when stored, else empty
  index_t shared_rows_ = 0;  // the rows when not stored
  double shared_value_ = 0.0;
  bool stored_ = false;
};

}  // namespace coreset::models
