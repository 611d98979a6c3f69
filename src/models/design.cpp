#include "models/design.hpp"

#include <utility>

namespace coreset::models {

Design::Design(Eigen::MatrixXd columns, bool unit_column)
    : kept_(std::make_shared<const Eigen::MatrixXd>(std::move(columns))),
      data_(kept_->data()),
      rows_(kept_->rows()),
      stored_cols_(kept_->cols()),
      stride_(kept_->rows()),
      unit_column_(unit_column) {}

Design Design::borrowed(const double* data, index_t rows, index_t cols, index_t stride,
                        bool unit_column) {
  Design design;
  design.data_ = data;
  design.rows_ = rows;
  design.stored_cols_ = cols;
  design.stride_ = stride;
  design.unit_column_ = unit_column;
  return design;
}

Eigen::RowVectorXd Design::row(index_t row) const {
  Eigen::RowVectorXd z(cols());
  for (index_t c = 0; c < cols(); ++c) {
    z[c] = (*this)(row, c);
  }
  return z;
}

double Design::row_dot(index_t row, const double* theta) const noexcept {
  if (cols() == 0) {
    return 0.0;
  }
  double sum = (*this)(row, 0) * theta[0];
  for (index_t c = 1; c < cols(); ++c) {
    sum += (*this)(row, c) * theta[c];
  }
  return sum;
}

Design Design::middle_rows(index_t first, index_t count) const {
  Design part = *this;
  part.data_ = at_row(first);
  part.rows_ = count;
  return part;
}

void Design::copy_rows(index_t first, index_t count, Eigen::MatrixXd& out) const {
  out.resize(count, cols());
  if (stored_cols_ > 0) {  // none: no stored column, perhaps no storage to offset
    out.leftCols(stored_cols_) = stored().middleRows(first, count);
  }
  if (unit_column_) {
    out.col(stored_cols_).setOnes();
  }
}

Eigen::MatrixXd Design::dense() const {
  Eigen::MatrixXd out;
  copy_rows(0, rows_, out);
  return out;
}

}  // namespace coreset::models
