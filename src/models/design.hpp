// A model's design Z (n x d, row n is z_n), stored as little as it can be. Logistic, Poisson and
// plain linear regression have z_n = [x_n, 1]: the dataset's covariates then the intercept's
// constant. Copying the covariates into an n x (D + 1) matrix moved the whole dataset once more
// and held it twice (at N = 1e8, d = 21: 17 GB more; make_model alone took 0.83 s of that build's
// 2.35 s set-up on the H200 host at 4a3fc22), so
// a design holds its stored columns, the dataset's read in place or columns it computed and keeps,
// and represents the intercept's column of ones without storing it.
//
// Everything that reads a design row by row goes through row_block (the sums over datapoints),
// copy_rows (the CPU projection's blocks, a coreset's rows) or operator(): the unit column reads
// as 1.0 everywhere, so each result has the bits it had when the ones were stored.
#pragma once

#include <memory>

#include "coreset/types.hpp"
#include "models/simd/row_block.hpp"
#include "support/eigen.hpp"

namespace coreset::models {

class Design {
 public:
  /// The stored columns: rows() x stored_cols(), column-major with stride() between columns.
  using StoredColumns = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;

  /// 0 x 0.
  Design() = default;
  /// A design of `columns`, which it keeps (shared by its copies and row ranges), followed by a
  /// column of ones when `unit_column`. Implicit: a dense matrix is a design.
  Design(Eigen::MatrixXd columns, bool unit_column = false);  // NOLINT(runtime/explicit)
  /// The same for any dense expression, evaluated once.
  template <class Derived>
  Design(const Eigen::MatrixBase<Derived>& columns)  // NOLINT(runtime/explicit)
      : Design(Eigen::MatrixXd(columns)) {}
  /// A design that reads `cols` columns of `rows` values in place, column c at data + c * stride
  /// (stride >= rows), followed by a column of ones when `unit_column`. The caller's storage must
  /// outlive this design and every design copied or cut from it.
  static Design borrowed(const double* data, index_t rows, index_t cols, index_t stride,
                         bool unit_column);

  index_t rows() const noexcept { return rows_; }
  /// d: the stored columns and the unit column.
  index_t cols() const noexcept { return stored_cols_ + (unit_column_ ? 1 : 0); }
  index_t stored_cols() const noexcept { return stored_cols_; }
  index_t stride() const noexcept { return stride_; }
  /// Whether the last column is the unit column (ones, not stored).
  bool has_unit_column() const noexcept { return unit_column_; }
  StoredColumns stored() const noexcept {
    return {data_, rows_, stored_cols_, Eigen::OuterStride<>(stride_)};
  }
  /// Entry (row, col), 0 <= row < rows(), 0 <= col < cols(); unchecked.
  double operator()(index_t row, index_t col) const noexcept {
    return col < stored_cols_ ? data_[col * stride_ + row] : 1.0;
  }
  /// z_row^T: row `row`, cols() entries (a row vector, as Eigen's row()).
  Eigen::RowVectorXd row(index_t row) const;
  /// z_row . theta (theta: cols() entries) in column order, z_0 theta_0 + z_1 theta_1 + ...,
  /// each product rounded and added in turn (0 for no columns).
  double row_dot(index_t row, const double* theta) const noexcept;
  /// Rows first ... first + count - 1 as a design over the same storage (no copy).
  Design middle_rows(index_t first, index_t count) const;
  /// Rows first ... first + count - 1 into `out`, resized to count x cols().
  void copy_rows(index_t first, index_t count, Eigen::MatrixXd& out) const;
  /// The whole design as a dense matrix (a copy: for small designs and tests).
  Eigen::MatrixXd dense() const;
  /// Rows first ... first + count - 1 for the row block kernels; `ones` (count entries, each 1.0)
  /// stands for the unit column, and must outlive the block.
  simd::RowBlock row_block(index_t first, index_t count, const double* ones) const noexcept {
    return {at_row(first), stride_, count, cols(), unit_column_ ? ones : nullptr};
  }

 private:
  // The stored columns from row `row` (null when there are none: no pointer arithmetic on null).
  const double* at_row(index_t row) const noexcept {
    return data_ == nullptr ? nullptr : data_ + row;
  }

  std::shared_ptr<const Eigen::MatrixXd> kept_;  // the stored columns, when the design keeps them
  const double* data_ = nullptr;
  index_t rows_ = 0;
  index_t stored_cols_ = 0;
  index_t stride_ = 0;
  bool unit_column_ = false;
};

}  // namespace coreset::models
