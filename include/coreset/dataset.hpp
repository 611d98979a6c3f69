// A regression dataset as the models see it: n rows of D covariates and, for models that have
// one, a response per row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coreset/matrix.hpp"
#include "coreset/types.hpp"

namespace coreset {

struct Dataset {
  Matrix<double> covariates;     ///< n x D, column-major (column c = covariate c)
  std::vector<double> response;  ///< n values; empty when the file had no response column
  std::vector<std::string> covariate_names;
  std::string response_name;
  /// Where the rows came from, so later validation can name the file, line and column:
  /// row i was on line `first_data_line + i` (0: not from a file); the response was in
  /// 1-based column `response_column` (0: none).
  std::string source;
  index_t first_data_line = 0;
  index_t response_column = 0;

  index_t rows() const noexcept { return covariates.rows(); }
  index_t dims() const noexcept { return covariates.cols(); }
};

/// The papers' synthetic logistic-regression problem (spec 3.6): x_n ~ N(0, I_2), labels in
/// {-1, 1} drawn from the model with theta = (3, 3) and intercept 0. Deterministic in `seed`.
Dataset synthetic_logistic_dataset(index_t rows = 10000, std::uint64_t seed = 0);

}  // namespace coreset
