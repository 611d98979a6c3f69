// make_model: checks a dataset against a model's domain and builds the pieces of
//     L_n(theta) = ell(z_n . theta, y_n) - 1/2 theta^T Q theta + c_n
// (spec 3.1, 3.5-3.7), plus the prior. Also the model names.
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/model.hpp"
#include "models/model.hpp"

#include "support/huge_pages.hpp"
#include "support/non_finite.hpp"
#include "support/random.hpp"

namespace coreset {
namespace {

// Same scheme as support/names.cpp: one table, both directions, and the parse error lists it.
constexpr std::array<std::pair<ModelKind, const char*>, 4> kModels{{
    {ModelKind::logistic, "logistic"},
    {ModelKind::poisson, "poisson"},
    {ModelKind::gaussian, "gaussian"},
    {ModelKind::linear, "linear"},
}};

}  // namespace

std::string to_string(ModelKind kind) {
  for (const auto& [key, name] : kModels) {
    if (key == kind) {
      return name;
    }
  }
  return "unknown";
}

ModelKind parse_model(const std::string& name) {
  std::string accepted;
  for (const auto& [key, text] : kModels) {
    if (name == text) {
      return key;
    }
    accepted += accepted.empty() ? "" : ", ";
    accepted += text;
  }
  throw InvalidArgument("unknown model '" + name + "' (expected one of: " + accepted + ")");
}

namespace models {
namespace {

constexpr double kLog2Pi = 1.8378770664093454836;  // log(2 pi)

// The shortest decimal that reads back as `value`, so a message says "label 0.5" rather than
// "label 0.500000" and never rounds a bad value into a good-looking one.
std::string format_number(double value) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value > 0 ? "inf" : "-inf";
  }
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) {
      break;
    }
  }
  return buffer;
}

std::string dims_text(index_t rows, index_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

// Locates row `row` of the dataset for an InputError: line 0 when it did not come from a file.
index_t line_of(const Dataset& data, index_t row) {
  return data.first_data_line > 0 ? data.first_data_line + row : 0;
}

[[noreturn]] void response_error(const Dataset& data, index_t row, const std::string& message) {
  if (data.first_data_line == 0 && data.response_column > 0) {
    // A file without lines (.npy): name the row and column as its reader does, 0-based.
    throw InputError(data.source, message + " at row " + std::to_string(data.first_row + row) +
                                      ", column " + std::to_string(data.response_column - 1) +
                                      " (0-based)");
  }
  throw InputError(data.source, message, line_of(data, row), data.response_column);
}

void require_positive(double value, const char* option) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw InvalidArgument(std::string(option) + " must be > 0 and finite (got " +
                          format_number(value) + ")");
  }
}

// A covariance given as a matrix: square of the expected size, finite, symmetric (to a relative
// 1e-10, since hand-written or computed matrices are rarely symmetric to the last bit), and
// positive definite. Returns its Cholesky factorisation of the symmetrised matrix. `name` says
// which ("the prior covariance"); a failure is an InputError naming `source`, the file it came
// from, or an InvalidArgument when it came from no file.
Eigen::LLT<Eigen::MatrixXd> factor_covariance(const Matrix<double>& covariance, index_t size,
                                              const std::string& name, const std::string& source,
                                              const std::string& what) {
  const auto refuse = [&](const std::string& problem) {
    if (!source.empty()) {
      throw InputError(source, name + " " + problem);
    }
    throw InvalidArgument(name + " " + problem);
  };
  if (covariance.rows() != size || covariance.cols() != size) {
    refuse("must be " + dims_text(size, size) + " (" + what + "), got " +
           dims_text(covariance.rows(), covariance.cols()));
  }
  const Eigen::Map<const Eigen::MatrixXd> matrix(covariance.data(), size, size);
  if (!matrix.allFinite()) {
    refuse("has a non-finite entry");
  }
  const double scale = matrix.cwiseAbs().maxCoeff();
  if ((matrix - matrix.transpose()).cwiseAbs().maxCoeff() > 1e-10 * scale) {
    refuse("is not symmetric");
  }
  Eigen::LLT<Eigen::MatrixXd> factor(0.5 * (matrix + matrix.transpose()));
  if (factor.info() != Eigen::Success) {
    refuse("is not positive definite");
  }
  return factor;
}

// log det from a Cholesky factor: the diagonal of L squared.
double log_determinant(const Eigen::LLT<Eigen::MatrixXd>& factor) {
  return 2.0 * factor.matrixLLT().diagonal().array().log().sum();
}

Eigen::MatrixXd inverse(const Eigen::LLT<Eigen::MatrixXd>& factor) {
  const index_t size = factor.rows();
  Eigen::MatrixXd result = factor.solve(Eigen::MatrixXd::Identity(size, size));
  // The solve is symmetric only to rounding; downstream Cholesky factorisations want exact.
  return 0.5 * (result + result.transpose());
}

// f(first, last) for blocks of rows, on every thread: the model's O(n d) passes over a dataset,
// which at 10^7 x 20 are 1.6 GB each. Each block is f's own rows.
template <class F>
void for_each_row_block(index_t n, F&& f) {
  constexpr index_t kRowsPerBlock = index_t{1} << 16;
  const index_t blocks = (n + kRowsPerBlock - 1) / kRowsPerBlock;
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (index_t block = 0; block < blocks; ++block) {
    const index_t first = block * kRowsPerBlock;
    f(first, std::min(n, first + kRowsPerBlock));
  }
}

// for_each_row_block for blocks that each say whether they met something (a bad value): true
// when any of them did.
template <class F>
bool any_row_block(index_t n, F&& f) {
  std::atomic<bool> any{false};
  for_each_row_block(n, [&](index_t first, index_t last) {
    if (f(first, last)) {
      any.store(true, std::memory_order_relaxed);
    }
  });
  return any.load(std::memory_order_relaxed);
}

// An n-vector of the model, uninitialised (its pages advised huge when the process asks for them:
// support/huge_pages.hpp): the caller fills it by for_each_row_block, so the first touch is
// spread over the threads too.
Eigen::VectorXd rows_vector(index_t n) {
  Eigen::VectorXd v(n);
  support::advise_huge_pages(v.data(), static_cast<std::size_t>(n) * sizeof(double));
  return v;
}

// The dataset's shape and share. Its covariates' values are each model's to check, first of all
// (report_bad_covariate, or set_covariate_design as it copies or reads them).
void validate_dataset(const Dataset& data) {
  const index_t n = data.rows();
  if (n < 1 && !data.is_share()) {
    throw InputError(data.source, "the dataset has no rows");
  }
  if (data.total_rows < 0 || data.first_row < 0 ||
      (data.total_rows != 0 && data.first_row + n > data.total_rows)) {
    throw InvalidArgument("the dataset's share, rows " + std::to_string(data.first_row) + " ... " +
                          std::to_string(data.first_row + n - 1) + ", is not within its " +
                          std::to_string(data.total_rows) + " rows");
  }
  if (!data.response.empty() && static_cast<index_t>(data.response.size()) != n) {
    throw InvalidArgument("the dataset has " + std::to_string(data.response.size()) +
                          " responses for " + std::to_string(n) + " rows");
  }
  if (!data.covariate_names.empty() &&
      static_cast<index_t>(data.covariate_names.size()) != data.dims()) {
    throw InvalidArgument("the dataset has " + std::to_string(data.covariate_names.size()) +
                          " covariate names for " + std::to_string(data.dims()) + " covariates");
  }
}

// Throws at the first covariate that is not finite, in column order, if there is one.
void report_bad_covariate(const Dataset& data) {
  // The CSV reader already rejects NaN and Inf; a dataset built in code may not have been read.
  // Checked on every thread (a pass over 1.6 GB at 10^7 x 20), for the first in column order.
  const index_t n = data.rows();
  const index_t bad =
      support::first_non_finite_in_columns(data.covariates.data(), n, data.dims(), n);
  if (bad < 0) {
    return;
  }
  const index_t c = bad / n;
  const index_t i = bad % n;
  const double value = data.covariates(i, c);
  const std::string name = data.covariate_names.empty()
                               ? "x" + std::to_string(c + 1)
                               : data.covariate_names[static_cast<std::size_t>(c)];
  // The file column of a covariate is not recorded in the Dataset, so only the line is given;
  // the name says which cell. Without lines (in memory, .npy) the row is named.
  const std::string where = data.first_data_line > 0
                                ? ""
                                : " at row " + std::to_string(data.first_row + i) + " (0-based)";
  throw InputError(
      data.source,
      "covariate '" + name + "' is " + format_number(value) + ", not a finite number" + where,
      line_of(data, i));
}

void require_response(const Dataset& data, ModelKind kind) {
  // An empty share (more ranks than blocks) cannot tell; a rank that holds rows can, and the
  // ranks share the lowest rank's error (coreset::on_every_rank).
  if (data.response.empty() && !(data.is_share() && data.rows() == 0)) {
    throw InputError(data.source, "the " + to_string(kind) + " model needs a response column");
  }
}

std::vector<std::string> covariate_names(const Dataset& data) {
  if (!data.covariate_names.empty()) {
    return data.covariate_names;
  }
  std::vector<std::string> names;
  for (index_t c = 0; c < data.dims(); ++c) {
    names.push_back("x" + std::to_string(c + 1));
  }
  return names;
}

// z_n = [x_n, 1] (or x_n without the intercept): the design of logistic, poisson and plain
// linear regression, its intercept the design's unit column (models/design.hpp). Borrowed, the
// covariates are read in place and checked for non-finite values on every thread; copied, they
// are checked as they are copied (support::copy_testing_finite): one pass over them instead of a
// check and then a copy. A bad value is reported as validate_dataset would
// (report_bad_covariate: the first in column order).
void set_covariate_design(Model& model, const Dataset& data, bool intercept,
                          CovariateStorage storage) {
  const index_t n = data.rows();
  const index_t dims = data.dims();
  model.parameter_names = covariate_names(data);
  if (intercept) {
    model.parameter_names.push_back("intercept");
  }
  if (storage == CovariateStorage::borrowed) {
    report_bad_covariate(data);
    model.design = Design::borrowed(data.covariates.data(), n, dims, n, intercept);
    return;
  }
  Eigen::MatrixXd copy(n, dims);
  // Copied by row blocks on every thread: at 10^7 rows the copy's cost is mostly the first touch
  // of fresh pages, which one thread took about a second over (huge pages when the process asks
  // for them: support/huge_pages.hpp).
  support::advise_huge_pages(copy.data(), static_cast<std::size_t>(copy.size()) * sizeof(double));
  const bool any_bad = any_row_block(n, [&](index_t first, index_t last) {
    bool bad = false;
    for (index_t c = 0; c < dims; ++c) {
      bad |= support::copy_testing_finite(data.covariates.column(c) + first, last - first,
                                          copy.col(c).data() + first);
    }
    return bad;
  });
  if (any_bad) {
    report_bad_covariate(data);
  }
  model.design = Design(std::move(copy), intercept);
}

// Labels must all be in {-1, 1} or all in {0, 1} (set_logistic_response maps 0 -> -1). The
// encoding is fixed by the first 0 or -1 (or by the job, for a share of a distributed build), so
// a file mixing both is reported at the first row that breaks it. Walks the rows in order and
// throws at the first bad label; returns when there is none.
void report_bad_label(const Dataset& data, std::optional<double> job_label) {
  bool encoding_known = job_label.has_value();
  double negative_label = job_label.value_or(0.0);  // 0 or -1, once a non-positive label is seen
  for (index_t i = 0; i < data.rows(); ++i) {
    const double label = data.response[static_cast<std::size_t>(i)];
    if (label == 1.0) {
      continue;
    }
    // The message is built only on the error paths: formatting it for every negative label
    // cost seconds at 10^7 rows.
    const auto outside_domain = [&] {
      return "label " + format_number(label) +
             " is outside the logistic model's domain {-1, 1} or {0, 1}";
    };
    if (label != 0.0 && label != -1.0) {
      response_error(data, i, outside_domain());
    }
    if (!encoding_known) {
      encoding_known = true;
      negative_label = label;
    } else if (label != negative_label) {
      response_error(data, i,
                     outside_domain() + (negative_label == 0.0 ? " (earlier rows use {0, 1})"
                                                               : " (earlier rows use {-1, 1})"));
    }
  }
}

// The labels as +-1, checked on every thread. A dataset whose negative labels mix 0 and -1 (or
// differ from the job's) or that has a label outside {-1, 0, 1} is walked again in order by
// report_bad_label, which throws at the first row that breaks it.
void set_logistic_response(Model& model, const Dataset& data, std::optional<double> job_label) {
  model.response = rows_vector(data.rows());
  std::atomic<bool> outside{false};
  std::atomic<bool> saw_zero{job_label == 0.0};
  std::atomic<bool> saw_minus_one{job_label == -1.0};
  for_each_row_block(data.rows(), [&](index_t first, index_t last) {
    bool block_outside = false;
    bool block_zero = false;
    bool block_minus_one = false;
    for (index_t i = first; i < last; ++i) {
      const double label = data.response[static_cast<std::size_t>(i)];
      block_zero |= label == 0.0;
      block_minus_one |= label == -1.0;
      block_outside |= label != 1.0 && label != 0.0 && label != -1.0;
      model.response(i) = label == 1.0 ? 1.0 : -1.0;
    }
    // Set once per block, not per row: the flags' cache line is shared by the threads.
    if (block_outside) {
      outside.store(true, std::memory_order_relaxed);
    }
    if (block_zero) {
      saw_zero.store(true, std::memory_order_relaxed);
    }
    if (block_minus_one) {
      saw_minus_one.store(true, std::memory_order_relaxed);
    }
  });
  if (outside.load(std::memory_order_relaxed) ||
      (saw_zero.load(std::memory_order_relaxed) && saw_minus_one.load(std::memory_order_relaxed))) {
    report_bad_label(data, job_label);
  }
}

// Counts: finite non-negative integers. log(y!) goes into the offset, where it makes L_n the
// true log probability without costing anything per sample.
// What is wrong with `count` ("is negative", ...), or null when it is a valid count.
const char* count_problem(double count) {
  if (!std::isfinite(count)) {
    return "is not a finite number";
  }
  if (count < 0.0) {
    return "is negative";
  }
  if (count != std::floor(count)) {
    return "is not an integer";
  }
  return nullptr;
}

// Throws at the first count that count_problem refuses, the rows in order.
void report_bad_count(const Dataset& data) {
  for (index_t i = 0; i < data.rows(); ++i) {
    const double count = data.response[static_cast<std::size_t>(i)];
    if (const char* problem = count_problem(count)) {
      response_error(data, i, "count " + format_number(count) + " " + problem);
    }
  }
}

// log(count!) = lgamma(count + 1), by the reentrant lgamma_r (glibc, musl and the BSDs have it):
// std::lgamma writes the global signgam, a data race on the threads of set_poisson_response.
double log_factorial(double count) {
  int sign = 0;
  return ::lgamma_r(count + 1.0, &sign);
}

void set_poisson_response(Model& model, const Dataset& data) {
  model.response = rows_vector(data.rows());
  Eigen::VectorXd offset = rows_vector(data.rows());
  const bool any_bad = any_row_block(data.rows(), [&](index_t first, index_t last) {
    bool bad = false;
    for (index_t i = first; i < last; ++i) {
      const double count = data.response[static_cast<std::size_t>(i)];
      bad |= count_problem(count) != nullptr;
      model.response(i) = count;
      offset(i) = -log_factorial(count);
    }
    return bad;
  });
  if (any_bad) {
    report_bad_count(data);
  }
  model.offset = std::move(offset);
}

// Real responses copied and tested in one pass, as the covariates are; a bad one is then found
// in order for the message.
void set_real_response(Model& model, const Dataset& data) {
  const index_t n = data.rows();
  model.response = rows_vector(n);
  const bool any_bad = any_row_block(n, [&](index_t first, index_t last) {
    return support::copy_testing_finite(data.response.data() + first, last - first,
                                        model.response.data() + first);
  });
  if (any_bad) {
    const index_t bad = support::first_non_finite(data.response.data(), n);
    const double value = data.response[static_cast<std::size_t>(bad)];
    response_error(data, bad, "response " + format_number(value) + " is not a finite number");
  }
}

void validate_rbf(const RbfOptions& rbf, index_t dims) {
  if (dims < 1) {
    throw InvalidArgument("radial-basis features need at least one covariate");
  }
  for (const double scale : rbf.scales) {
    require_positive(scale, "every --rbf-scales value");
  }
  if (rbf.centers_per_scale < 0) {
    throw InvalidArgument("--rbf-centers must be >= 0 (got " +
                          std::to_string(rbf.centers_per_scale) + ")");
  }
  if (rbf.near_constant_basis) {
    require_positive(rbf.near_constant_scale, "--rbf-constant-scale");
  }
  if (!rbf.near_constant_basis && (rbf.scales.empty() || rbf.centers_per_scale == 0)) {
    throw InvalidArgument("the radial-basis options give no basis functions");
  }
}

// Radial-basis features (spec 3.5): b_k(x) = exp(-||x - mu_k||^2 / (2 s_k^2)) at the basis's
// centres (rbf_basis). Each row's features depend on that row and the basis alone, computed in
// a fixed order, so a share's rows get the bits the whole dataset's do.
void set_rbf_design(Model& model, const Dataset& data, const RbfBasis& basis) {
  const index_t n = data.rows();
  const index_t dims = data.dims();
  const auto features = static_cast<index_t>(basis.scales.size());
  Eigen::MatrixXd design(n, features);
  // One column per basis; each column is independent, so the threads never share a write.
#pragma omp parallel for schedule(static)
  for (index_t k = 0; k < features; ++k) {
    const double scale = basis.scales[static_cast<std::size_t>(k)];
    const double factor = -0.5 / (scale * scale);
    for (index_t i = 0; i < n; ++i) {
      double squared_distance = 0.0;
      for (index_t c = 0; c < dims; ++c) {
        const double difference = data.covariates(i, c) - basis.centres(k, c);
        squared_distance += difference * difference;
      }
      design(i, k) = std::exp(factor * squared_distance);
    }
  }
  model.design = Design(std::move(design));
  model.parameter_names.clear();
  for (index_t k = 0; k < features; ++k) {
    model.parameter_names.push_back("rbf" + std::to_string(k + 1));
  }
}

// The whole dataset's basis from its own rows (a share's comes from the ranks: WholeDataset).
RbfBasis rbf_basis_of(const Dataset& data, const RbfOptions& rbf, std::uint64_t seed) {
  const std::vector<index_t> rows = rbf_centre_rows(rbf, data.dims(), data.rows(), seed);
  Eigen::MatrixXd centres(static_cast<index_t>(rows.size()), data.dims());
  for (std::size_t p = 0; p < rows.size(); ++p) {
    for (index_t c = 0; c < data.dims(); ++c) {
      centres(static_cast<index_t>(p), c) = data.covariates(rows[p], c);
    }
  }
  return rbf_basis(rbf, centres, exact_covariate_sums(data), data.rows());
}

// The Gaussian mean model (spec 3.1): x_n ~ N(theta, Sigma). Expanding the quadratic,
//   L_n = x_n^T Sigma^{-1} theta - 1/2 theta^T Sigma^{-1} theta + c_n,
// so z_n = Sigma^{-1} x_n, the identity link, Q = Sigma^{-1}, and c_n holds the rest.
void set_gaussian_model(Model& model, const Dataset& data, const ModelOptions& options) {
  const index_t n = data.rows();
  const index_t dims = data.dims();
  if (dims < 1) {
    throw InvalidArgument("the gaussian model has no parameters (the dataset has no covariates)");
  }
  Matrix<double> covariance = options.noise_covariance;
  if (covariance.rows() == 0 && covariance.cols() == 0) {
    covariance = Matrix<double>(dims, dims);
    for (index_t c = 0; c < dims; ++c) {
      covariance(c, c) = options.noise_sd * options.noise_sd;
    }
  }
  const auto factor =
      factor_covariance(covariance, dims, "the noise covariance", options.noise_covariance_source,
                        "one row and column per covariate");
  const Eigen::MatrixXd precision = inverse(factor);
  const Eigen::Map<const Eigen::MatrixXd> x(data.covariates.data(), n, dims);
  const double constant =
      -0.5 * static_cast<double>(dims) * kLog2Pi - 0.5 * log_determinant(factor);
  Eigen::MatrixXd design(n, dims);
  Eigen::VectorXd offset(n);
  // Row n of X Sigma^{-1} is (Sigma^{-1} x_n)^T because Sigma^{-1} is symmetric. Taken over
  // contiguous blocks of kRowSumBlock rows, which a rank's share starts on, so that a share's
  // rows get the bits the whole dataset's do (a product's kernels depend on the operands'
  // shapes and strides).
  Eigen::MatrixXd block;
  Eigen::MatrixXd product;
  for (index_t first = 0; first < n; first += kRowSumBlock) {
    const index_t count = std::min(kRowSumBlock, n - first);
    block = x.middleRows(first, count);
    product.noalias() = block * precision;
    design.middleRows(first, count) = product;
    // x_n^T Sigma^{-1} x_n = x_n . z_n, from the design just computed.
    offset.segment(first, count) =
        -0.5 * (block.cwiseProduct(product)).rowwise().sum().array() + constant;
  }
  model.design = Design(std::move(design));
  model.offset = std::move(offset);
  model.shared_quadratic = precision;
  // The mean model has no response: a response column in the file, if any, is ignored (every
  // covariate is a coordinate of x_n), and the link takes y = 0.
  model.response = Eigen::VectorXd::Zero(n);
  model.parameter_names = covariate_names(data);
}

void set_prior(Model& model, const ModelOptions& options) {
  const index_t d = model.dim();
  if (options.prior_covariance.rows() == 0 && options.prior_covariance.cols() == 0) {
    const double variance = options.prior_sd * options.prior_sd;
    model.prior_precision = Eigen::MatrixXd::Identity(d, d) / variance;
    model.prior_log_normalizer = -0.5 * static_cast<double>(d) * (kLog2Pi + std::log(variance));
    return;
  }
  // Name the parameters in the error when there are few enough to read.
  std::string what = "one row and column per parameter";
  if (model.parameter_names.size() <= 8) {
    for (std::size_t p = 0; p < model.parameter_names.size(); ++p) {
      what += (p == 0 ? ": " : ", ") + model.parameter_names[p];
    }
  }
  const auto factor = factor_covariance(options.prior_covariance, d, "the prior covariance",
                                        options.prior_covariance_source, what);
  model.prior_precision = inverse(factor);
  model.prior_log_normalizer =
      -0.5 * static_cast<double>(d) * kLog2Pi - 0.5 * log_determinant(factor);
}

// A standard deviation whose square is still a positive finite double, since the model works
// with variances and precisions.
void require_standard_deviation(double value, const char* option) {
  require_positive(value, option);
  const double variance = value * value;
  if (!(variance > 0.0) || !std::isfinite(variance) || !std::isfinite(1.0 / variance)) {
    throw InvalidArgument(std::string(option) + " " + format_number(value) +
                          " is out of range (its square must be a positive finite number)");
  }
}

void validate_options(const ModelOptions& options) {
  require_standard_deviation(options.prior_sd, "--prior-sd");
  require_standard_deviation(options.noise_sd, "--noise-sd");
  const bool has_noise_covariance =
      options.noise_covariance.rows() != 0 || options.noise_covariance.cols() != 0;
  if (has_noise_covariance && options.kind != ModelKind::gaussian) {
    throw InvalidArgument(
        "--noise-covariance applies only to the gaussian model (the " + to_string(options.kind) +
        " model " + (options.kind == ModelKind::linear ? "takes --noise-sd)" : "has no noise)"));
  }
  if (options.rbf.enabled && options.kind != ModelKind::linear) {
    throw InvalidArgument("radial-basis features apply only to the linear model");
  }
}

}  // namespace

std::vector<index_t> rbf_centre_rows(const RbfOptions& rbf, index_t dims, index_t n,
                                     std::uint64_t seed) {
  validate_rbf(rbf, dims);
  std::vector<index_t> centres;
  std::mt19937_64 engine(seed);
  const index_t per_scale = rbf_centres_per_scale(rbf, n);
  for (std::size_t scale = 0; scale < rbf.scales.size(); ++scale) {
    if (per_scale == n) {  // every row, in order
      for (index_t j = 0; j < n; ++j) {
        centres.push_back(j);
      }
      continue;
    }
    // The shuffle of 0 ... n - 1 holds only the entries it moved, so every rank of a huge
    // dataset draws in O(centres) memory rather than O(n).
    std::unordered_map<index_t, index_t> moved;
    const auto at = [&](index_t p) {
      const auto it = moved.find(p);
      return it == moved.end() ? p : it->second;
    };
    for (index_t j = 0; j < per_scale; ++j) {
      const auto pick = j + static_cast<index_t>(
                                support::uniform_below(engine, static_cast<std::uint64_t>(n - j)));
      const index_t chosen = at(pick);
      moved[pick] = at(j);
      moved[j] = chosen;
      centres.push_back(chosen);
    }
  }
  return centres;
}

std::vector<support::ExactSum> exact_covariate_sums(const Dataset& data) {
  std::vector<support::ExactSum> sums(static_cast<std::size_t>(data.dims()));
  for (index_t c = 0; c < data.dims(); ++c) {
    const double* column = data.covariates.column(c);
    for (index_t i = 0; i < data.rows(); ++i) {
      sums[static_cast<std::size_t>(c)].add(column[i]);
    }
  }
  return sums;
}

RbfBasis rbf_basis(const RbfOptions& rbf, const Eigen::MatrixXd& centre_covariates,
                   const std::vector<support::ExactSum>& covariate_sums, index_t n) {
  // centre_covariates holds min(n, centers_per_scale) rows per scale, scale after scale.
  const index_t per_scale =
      rbf.scales.empty() ? 0 : centre_covariates.rows() / static_cast<index_t>(rbf.scales.size());
  RbfBasis basis;
  basis.centres = centre_covariates;
  for (const double scale : rbf.scales) {
    basis.scales.insert(basis.scales.end(), static_cast<std::size_t>(per_scale), scale);
  }
  if (rbf.near_constant_basis) {
    // At the covariate means, as the paper says ([CODE] draws it from the data, spec A15). It
    // is ~1 everywhere, so it plays the intercept's role and no constant column is appended.
    const index_t dims = centre_covariates.cols();
    basis.centres.conservativeResize(basis.centres.rows() + 1, dims);
    for (index_t c = 0; c < dims; ++c) {
      basis.centres(basis.centres.rows() - 1, c) =
          covariate_sums[static_cast<std::size_t>(c)].value() / static_cast<double>(n);
    }
    basis.scales.push_back(rbf.near_constant_scale);
  }
  return basis;
}

Model without_rows(const Model& model) {
  // Field by field: a copy of the whole model first would copy the whole response and offset.
  Model empty;
  empty.kind = model.kind;
  empty.link = model.link;
  empty.shared_quadratic = model.shared_quadratic;
  empty.noise_precision = model.noise_precision;
  empty.prior_precision = model.prior_precision;
  empty.prior_log_normalizer = model.prior_log_normalizer;
  empty.parameter_names = model.parameter_names;
  return empty;
}

Model rows_of(const Model& model, index_t first, index_t count) {
  Model share = without_rows(model);
  share.design = model.design.middle_rows(first, count);
  share.response = model.response.segment(first, count);
  share.offset = model.offset.segment(first, count);
  share.first_row = model.first_row + first;
  share.total_rows = model.all_rows();
  return share;
}

LabelEncoding logistic_label_encoding(const Dataset& data) {
  for (std::size_t i = 0; i < data.response.size(); ++i) {
    const double label = data.response[i];
    if (label == 0.0 || label == -1.0) {
      return {data.first_row + static_cast<index_t>(i), label};
    }
  }
  return {};
}

Model make_model(const Dataset& data, const ModelOptions& options, std::uint64_t seed,
                 const WholeDataset& whole, CovariateStorage storage) {
  validate_options(options);
  validate_dataset(data);
  const index_t n = data.rows();

  Model model;
  model.kind = options.kind;
  // Every model checks its covariates first (set_covariate_design as it takes them, the others
  // before they read them: report_bad_covariate), then its response.
  switch (options.kind) {
    case ModelKind::logistic:
      model.link = Link::logistic;
      set_covariate_design(model, data, options.intercept, storage);
      require_response(data, options.kind);
      set_logistic_response(model, data, whole.negative_label);
      model.offset = RowOffsets::shared(n, 0.0);
      break;
    case ModelKind::poisson:
      model.link = Link::poisson;
      set_covariate_design(model, data, options.intercept, storage);
      require_response(data, options.kind);
      set_poisson_response(model, data);
      break;
    case ModelKind::gaussian:
      report_bad_covariate(data);
      model.link = Link::identity;
      set_gaussian_model(model, data, options);
      break;
    case ModelKind::linear:
    default: {
      model.link = Link::gaussian;
      if (options.rbf.enabled) {
        report_bad_covariate(data);
        require_response(data, ModelKind::linear);
        validate_rbf(options.rbf, data.dims());
        if (!whole.rbf && data.is_share()) {
          // The centres are drawn from all rows and the near-constant basis sits at their mean.
          throw InvalidArgument(
              "the linear model's RBF features of a share of the dataset need the whole "
              "dataset's basis, from every rank (WholeDataset::rbf)");
        }
        set_rbf_design(model, data, whole.rbf ? *whole.rbf : rbf_basis_of(data, options.rbf, seed));
      } else {
        set_covariate_design(model, data, options.intercept, storage);
        require_response(data, ModelKind::linear);
      }
      set_real_response(model, data);
      const double variance = options.noise_sd * options.noise_sd;
      model.noise_precision = 1.0 / variance;
      model.offset = RowOffsets::shared(n, -0.5 * (kLog2Pi + std::log(variance)));
      break;
    }
  }
  if (model.dim() < 1) {
    throw InvalidArgument("the " + to_string(options.kind) +
                          " model has no parameters (no covariates and no intercept)");
  }
  set_prior(model, options);
  model.first_row = data.first_row;
  model.total_rows = data.total_rows;
  return model;
}

void validate_projection_inputs(const Model& model, const Eigen::MatrixXd& samples) {
  if (samples.rows() < 1) {
    throw InvalidArgument("the projection needs at least one parameter sample");
  }
  if (samples.cols() != model.dim()) {
    throw InvalidArgument("the parameter samples have " + std::to_string(samples.cols()) +
                          " columns but the model has " + std::to_string(model.dim()) +
                          " parameters");
  }
  if (!samples.allFinite()) {
    throw InvalidArgument("the parameter samples contain a non-finite value");
  }
  if (model.response.size() != model.rows() || model.offset.size() != model.rows()) {
    throw InvalidArgument("the model's response and offset do not match its design");
  }
}

}  // namespace models
}  // namespace coreset
