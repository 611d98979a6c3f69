// A regression dataset as the models see it: n rows of D covariates and, for models that have
// one, a response per row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coreset/export.hpp"
#include "coreset/matrix.hpp"
#include "coreset/types.hpp"

namespace coreset {

/// The data a coreset is built for: row i (0-based) is datapoint i, and coreset indices are
/// these row numbers. Fill it from a file with io::read_dataset_csv, or in memory: set
/// `covariates` (n x D) and, except for the gaussian model, `response` (n values); the other
/// fields are optional. Values are in the data's own units (the models add no scaling). Nothing
/// is checked here: build_coreset, evaluate_coreset and PreparedProblem check the dataset against
/// the model and throw InvalidArgument for inconsistent sizes (a response or a name list whose
/// length is not n or D) and InputError for values outside the model's domain (a non-finite
/// covariate, a label that is not in {-1, 1} or {0, 1}, a count that is not a non-negative
/// integer, no rows). A plain value type: thread-safety as for Matrix.
struct CORESET_API Dataset {
  Matrix<double> covariates;     ///< n x D, column-major (column c = covariate c)
  std::vector<double> response;  ///< n values; empty when the file had no response column
  /// D names (empty: "x1", "x2", ...); they name the parameters in reports and errors.
  std::vector<std::string> covariate_names;
  std::string response_name;  ///< for reports; may be empty
  /// Where the rows came from, so later validation can name the file, line and column:
  /// row i was on line `first_data_line + i` (0: not from a text file); the response was in
  /// 1-based column `response_column` (0: none). With first_data_line 0 and a response column
  /// (a .npy file), errors name the 0-based row and column instead.
  std::string source;
  index_t first_data_line = 0;
  index_t response_column = 0;
  /// A rank's share of a distributed build (coreset/distributed.hpp): these rows are rows
  /// first_row ... first_row + rows() - 1 of a dataset of total_rows, the block that
  /// datapoint_range(total_rows, rank, ranks) gives this rank (io::DatasetReadOptions::rank reads
  /// one). total_rows 0, the default: the whole dataset (first_row 0). Coreset indices are rows
  /// of the whole dataset either way.
  index_t first_row = 0;
  index_t total_rows = 0;

  index_t rows() const noexcept { return covariates.rows(); }  ///< n (this share's, when one)
  index_t dims() const noexcept { return covariates.cols(); }  ///< D, the intercept excluded
  /// The whole dataset's rows: total_rows, or rows() when this is the whole dataset.
  index_t all_rows() const noexcept { return total_rows == 0 ? rows() : total_rows; }
  /// Whether this is a rank's share (total_rows set), even one that holds every row (a dataset
  /// of one block on several ranks): every rank of a job reading shares agrees on this.
  bool is_share() const noexcept { return total_rows != 0; }
};

/// The papers' synthetic logistic-regression problem (spec 3.6): x_n ~ N(0, I_2), labels in
/// {-1, 1} drawn from the model with theta = (3, 3) and intercept 0 (covariates "x1", "x2",
/// response "y"). Deterministic in `seed` on every platform, and the first m rows of a longer
/// dataset are the m-row dataset of the same seed. `coreset build` without --data uses
/// rows = 10000, seed 0. Throws InvalidArgument for rows < 1 (std::bad_alloc when too large).
/// Thread-safe: no shared state.
CORESET_API Dataset synthetic_logistic_dataset(index_t rows = 10000, std::uint64_t seed = 0);

/// The synthetic Gaussian mean problem of spec 3.1 as the IHT papers' code generates it:
/// x_n ~ N(1_d, I) (covariates "x1".."xD", no response), from a generator seeded with
/// splitmix64(stream): the experiments pass the trial number. Deterministic on every platform.
/// Throws InvalidArgument for rows or dims < 1.
CORESET_API Dataset synthetic_gaussian_dataset(index_t rows, index_t dims, std::uint64_t stream);

/// A synthetic stand-in for the UK house-price data of spec 3.5, which is not distributed:
/// `rows` sales with (latitude, longitude) in degrees and log10 of the price as the response, from
/// a generator seeded with splitmix64(stream). Throws InvalidArgument for rows < 1.
CORESET_API Dataset uk_house_price_standin_dataset(index_t rows, std::uint64_t stream);

}  // namespace coreset
