// Dense column-major matrices: the layout every solver works on. Phi is S x n with leading
// dimension S, so column i (datapoint i's S projected log-likelihood values) is contiguous.
#pragma once

#include <cstddef>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/types.hpp"

namespace coreset {

/// Non-owning view of a column-major matrix: element (i, j) is data[i + j * ld].
template <class T>
struct MatrixView {
  const T* data = nullptr;
  index_t rows = 0;
  index_t cols = 0;
  index_t ld = 0;  ///< leading dimension, >= rows

  const T* column(index_t j) const { return data + j * ld; }
  T operator()(index_t i, index_t j) const { return data[i + j * ld]; }
};

/// Owning column-major matrix with leading dimension equal to its row count.
template <class T>
class Matrix {
 public:
  Matrix() = default;
  /// A zero-filled rows x cols matrix. Throws InvalidArgument for negative sizes.
  Matrix(index_t rows, index_t cols) : rows_(rows), cols_(cols) {
    if (rows < 0 || cols < 0) {
      throw InvalidArgument("matrix dimensions must be non-negative");
    }
    values_.assign(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), T(0));
  }

  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return cols_; }
  T* data() noexcept { return values_.data(); }
  const T* data() const noexcept { return values_.data(); }
  T* column(index_t j) noexcept { return values_.data() + j * rows_; }
  const T* column(index_t j) const noexcept { return values_.data() + j * rows_; }
  T& operator()(index_t i, index_t j) { return values_[static_cast<std::size_t>(i + j * rows_)]; }
  T operator()(index_t i, index_t j) const {
    return values_[static_cast<std::size_t>(i + j * rows_)];
  }

  MatrixView<T> view() const noexcept { return {values_.data(), rows_, cols_, rows_}; }

 private:
  index_t rows_ = 0;
  index_t cols_ = 0;
  std::vector<T> values_;
};

}  // namespace coreset
