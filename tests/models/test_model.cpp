// make_model (spec 3.1, 3.5-3.7): the design, response, offset and shared quadratic of every
// model, the prior, the errors for data outside a model's domain (with file, line and column),
// the model names, and the built-in synthetic logistic data.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/error.hpp"
#include "coreset/model.hpp"
#include "models/link.hpp"
#include "models/model.hpp"
#include "support/random.hpp"

namespace coreset::models {
namespace {

const double kLog2Pi = std::log(2.0 * M_PI);

// A dataset as the CSV reader would produce it from "data.csv" whose first data row is on
// line 2 and whose response is the third field.
Dataset hand_dataset(const std::vector<std::vector<double>>& rows,
                     const std::vector<double>& response) {
  Dataset data;
  const auto n = static_cast<index_t>(rows.size());
  const auto dims = static_cast<index_t>(rows.empty() ? 0 : rows[0].size());
  data.covariates = Matrix<double>(n, dims);
  for (index_t i = 0; i < n; ++i) {
    for (index_t c = 0; c < dims; ++c) {
      data.covariates(i, c) = rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)];
    }
  }
  data.response = response;
  for (index_t c = 0; c < dims; ++c) {
    data.covariate_names.push_back("c" + std::to_string(c + 1));
  }
  data.response_name = "y";
  data.source = "data.csv";
  data.first_data_line = 2;
  data.response_column = 3;
  return data;
}

Dataset two_covariates(const std::vector<double>& response) {
  std::vector<std::vector<double>> rows;
  for (std::size_t i = 0; i < response.size(); ++i) {
    rows.push_back({0.5 * static_cast<double>(i), 1.0 - static_cast<double>(i)});
  }
  return hand_dataset(rows, response);
}

ModelOptions options_for(ModelKind kind) {
  ModelOptions options;
  options.kind = kind;
  return options;
}

// The InputError that building `data` under `options` throws (a test failure if none), the
// same whether the model copies the covariates or reads them in place (a failure if not).
InputError input_error(const Dataset& data, const ModelOptions& options) {
  std::vector<InputError> errors;
  for (const CovariateStorage storage : {CovariateStorage::copied, CovariateStorage::borrowed}) {
    try {
      make_model(data, options, 0, {}, storage);
      ADD_FAILURE() << "make_model did not throw InputError";
      return InputError("", "");
    } catch (const InputError& error) {
      errors.push_back(error);
    }
  }
  EXPECT_EQ(std::string(errors[0].what()), std::string(errors[1].what()));
  EXPECT_EQ(errors[0].line(), errors[1].line());
  return errors[0];
}

std::string invalid_argument(const Dataset& data, const ModelOptions& options) {
  try {
    make_model(data, options, 0);
  } catch (const InvalidArgument& error) {
    return error.what();
  }
  ADD_FAILURE() << "make_model did not throw InvalidArgument";
  return "";
}

// L_n(theta) assembled from the model's pieces, the form every consumer evaluates.
double assembled_log_likelihood(const Model& model, index_t n, const Eigen::VectorXd& theta) {
  const double a = model.design.row(n).dot(theta);
  double value = evaluate_link(model.link, a, model.response(n), model.noise_precision).value +
                 model.offset[n];
  if (model.shared_quadratic.size() > 0) {
    value -= 0.5 * theta.dot(model.shared_quadratic * theta);
  }
  return value;
}

Eigen::Map<const Eigen::MatrixXd> covariates_of(const Dataset& data) {
  return {data.covariates.data(), data.rows(), data.dims()};
}

// ---- logistic

TEST(ModelLogistic, DesignIsCovariatesThenIntercept) {
  const Dataset data = two_covariates({1, -1, 1});
  const Model model = make_model(data, options_for(ModelKind::logistic), 0);
  ASSERT_EQ(model.rows(), 3);
  ASSERT_EQ(model.dim(), 3);
  EXPECT_EQ(model.design.dense().leftCols(2), covariates_of(data));
  EXPECT_EQ(model.design.dense().col(2), Eigen::VectorXd::Ones(3));
  EXPECT_EQ(model.parameter_names, (std::vector<std::string>{"c1", "c2", "intercept"}));
  EXPECT_EQ(model.kind, ModelKind::logistic);
  EXPECT_EQ(model.link, Link::logistic);
  // Zero on every row, and not stored (models/row_offsets.hpp).
  EXPECT_FALSE(model.offset.stored());
  EXPECT_EQ(model.offset.size(), 3);
  EXPECT_EQ(model.offset.dense(), Eigen::VectorXd::Zero(3));
  EXPECT_EQ(model.shared_quadratic.size(), 0);
  EXPECT_EQ(model.response, Eigen::Vector3d(1, -1, 1));
}

// A GPU rank projects the model of its own rows: every row's log-likelihood, gradient and Hessian
// must be the whole model's for that row, and the share must say where its rows lie.
TEST(ModelRows, AShareOfRowsIsTheWholeModelsOnThoseRows) {
  ModelOptions options = options_for(ModelKind::linear);
  const Dataset data = two_covariates({0.5, -1.0, 2.0, 0.25, 3.0});
  const Model model = make_model(data, options, 0);
  const Model share = rows_of(model, 1, 3);
  ASSERT_EQ(share.rows(), 3);
  EXPECT_EQ(share.dim(), model.dim());
  EXPECT_EQ(share.first_row, 1);
  EXPECT_EQ(share.all_rows(), 5);
  EXPECT_TRUE(share.is_share());
  EXPECT_EQ(share.kind, model.kind);
  EXPECT_EQ(share.link, model.link);
  EXPECT_EQ(share.noise_precision, model.noise_precision);
  EXPECT_EQ(share.prior_precision, model.prior_precision);
  EXPECT_EQ(share.parameter_names, model.parameter_names);
  const Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(model.dim(), -0.5, 0.7);
  for (index_t i = 0; i < share.rows(); ++i) {
    Eigen::VectorXd gradient_share;
    Eigen::VectorXd gradient_whole;
    Eigen::MatrixXd hessian_share;
    Eigen::MatrixXd hessian_whole;
    EXPECT_EQ(log_likelihood(share, i, theta, &gradient_share, &hessian_share),
              log_likelihood(model, i + 1, theta, &gradient_whole, &hessian_whole))
        << "row " << i;
    EXPECT_EQ(gradient_share, gradient_whole);
    EXPECT_EQ(hessian_share, hessian_whole);
  }
  // A share of a share counts from the whole dataset.
  const Model inner = rows_of(share, 2, 1);
  EXPECT_EQ(inner.first_row, 3);
  EXPECT_EQ(inner.all_rows(), 5);
  EXPECT_EQ(inner.design.row(0), model.design.row(3));
  EXPECT_EQ(rows_of(model, 5, 0).rows(), 0);
  // The linear model's offsets are shared by every row, and so are the share's.
  EXPECT_FALSE(share.offset.stored());
  EXPECT_EQ(share.offset.size(), 3);
  EXPECT_EQ(share.offset.shared_value(), model.offset.shared_value());
}

// What a model of some of another's rows starts from: every constant of the model, no row, and
// no place in a dataset (a share's without_rows is a whole model of no rows until given some).
TEST(ModelRows, WithoutRowsKeepsEveryConstantAndNoRow) {
  const Dataset data = two_covariates({0.5, -1.0, 2.0, 0.25, 3.0});
  const Model model = make_model(data, options_for(ModelKind::gaussian), 0);
  ASSERT_GT(model.shared_quadratic.size(), 0);  // the Gaussian model has every field set
  ASSERT_NE(model.prior_log_normalizer, 0.0);
  const Model share = rows_of(model, 1, 3);
  for (const Model* from : {&model, &share}) {
    const Model empty = without_rows(*from);
    EXPECT_EQ(empty.kind, model.kind);
    EXPECT_EQ(empty.link, model.link);
    EXPECT_EQ(empty.shared_quadratic, model.shared_quadratic);
    EXPECT_EQ(empty.noise_precision, model.noise_precision);
    EXPECT_EQ(empty.prior_precision, model.prior_precision);
    EXPECT_EQ(empty.prior_log_normalizer, model.prior_log_normalizer);
    EXPECT_EQ(empty.parameter_names, model.parameter_names);
    EXPECT_EQ(empty.rows(), 0);
    EXPECT_EQ(empty.response.size(), 0);
    EXPECT_EQ(empty.offset.size(), 0);
    EXPECT_EQ(empty.first_row, 0);
    EXPECT_FALSE(empty.is_share());
  }
}

// Only the models whose offsets differ from row to row store them (Poisson: -log y_n!; the
// Gaussian mean: -x_n^T Sigma^-1 x_n / 2 plus a constant); the logistic model's 0 and the linear
// model's normalising constant are one value for every row (models/row_offsets.hpp). Either way
// there is one offset a row, and a share of the rows keeps the form.
TEST(ModelOffsets, OnlyTheModelsWhoseOffsetsDifferByRowStoreThem) {
  const Dataset data = two_covariates({1.0, 0.0, 1.0, 0.0});  // labels, counts and reals
  for (const ModelKind kind :
       {ModelKind::logistic, ModelKind::linear, ModelKind::poisson, ModelKind::gaussian}) {
    const Model model = make_model(data, options_for(kind), 0);
    const bool stored = kind == ModelKind::poisson || kind == ModelKind::gaussian;
    EXPECT_EQ(model.offset.size(), 4) << to_string(kind);
    EXPECT_EQ(model.offset.stored(), stored) << to_string(kind);
    EXPECT_EQ(rows_of(model, 1, 2).offset.stored(), stored) << to_string(kind);
    EXPECT_EQ(rows_of(model, 4, 0).offset.stored(), stored) << to_string(kind) << ", no rows";
    if (!stored) {
      const double expected = kind == ModelKind::logistic ? 0.0 : -0.5 * kLog2Pi;  // noise sd 1
      EXPECT_DOUBLE_EQ(model.offset.shared_value(), expected) << to_string(kind);
    }
  }
}

// Read in place or copied, the covariates give the same model; read in place, the design holds
// no copy (its stored columns are the dataset's) and never the intercept's ones, and a share of
// the model reads the dataset's rows where they are. The models that compute their design
// (the Gaussian mean, RBF features) keep their own either way.
TEST(ModelLogistic, BorrowedCovariatesAreReadInPlaceAndGiveTheCopiedModel) {
  const Dataset data = two_covariates({1, 0, 1, 1, 0});
  struct Case {
    ModelKind kind;
    bool rbf;
    bool intercept;
  };
  const Case cases[] = {{ModelKind::logistic, false, true}, {ModelKind::logistic, false, false},
                        {ModelKind::poisson, false, true},  {ModelKind::linear, false, true},
                        {ModelKind::linear, true, true},    {ModelKind::gaussian, false, true}};
  for (const Case& c : cases) {
    ModelOptions options = options_for(c.kind);
    options.rbf.enabled = c.rbf;
    options.rbf.centers_per_scale = 2;
    options.intercept = c.intercept;
    const std::string label =
        to_string(c.kind) + (c.rbf ? " rbf" : "") + (c.intercept ? "" : " without intercept");
    const Model copied = make_model(data, options, 3, {}, CovariateStorage::copied);
    const Model borrowed = make_model(data, options, 3, {}, CovariateStorage::borrowed);
    EXPECT_EQ(borrowed.design.dense(), copied.design.dense()) << label;
    EXPECT_EQ(borrowed.response, copied.response) << label;
    EXPECT_EQ(borrowed.offset.dense(), copied.offset.dense()) << label;
    EXPECT_EQ(borrowed.offset.stored(), copied.offset.stored()) << label;
    EXPECT_EQ(borrowed.parameter_names, copied.parameter_names) << label;
    EXPECT_NE(copied.design.stored().data(), data.covariates.data()) << label;
    const bool of_covariates = c.kind != ModelKind::gaussian && !c.rbf;
    EXPECT_EQ(borrowed.design.stored().data() == data.covariates.data(), of_covariates) << label;
    if (of_covariates) {
      EXPECT_EQ(borrowed.design.stored_cols(), data.dims()) << label;
      EXPECT_EQ(borrowed.design.has_unit_column(), c.intercept) << label;
      const Model share = rows_of(borrowed, 2, 3);
      EXPECT_EQ(share.design.stored().data(), data.covariates.data() + 2) << label;
      EXPECT_EQ(share.design.dense(), copied.design.dense().middleRows(2, 3)) << label;
    }
  }
}

// log_likelihood's predictor is z_n . theta summed in column order (each product rounded, then
// added in turn), as it was when z_n was a strided row of a stored design: the public
// log_likelihoods keep their bits.
TEST(ModelLogistic, LogLikelihoodSumsThePredictorInColumnOrder) {
  std::vector<std::vector<double>> rows;
  std::vector<double> labels;
  std::mt19937_64 rng(8);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int i = 0; i < 40; ++i) {
    std::vector<double> row;
    for (int c = 0; c < 20; ++c) {
      row.push_back(normal(rng));
    }
    rows.push_back(row);
    labels.push_back(i % 2 == 0 ? 1.0 : 0.0);
  }
  const Model model = make_model(hand_dataset(rows, labels), options_for(ModelKind::logistic), 0);
  ASSERT_EQ(model.dim(), 21);
  Eigen::VectorXd theta(21);
  for (index_t c = 0; c < 21; ++c) {
    theta[c] = 0.3 * normal(rng);
  }
  for (index_t n = 0; n < 40; ++n) {
    volatile double a = model.design(n, 0) * theta[0];  // no contraction into an fma
    for (index_t c = 1; c < 21; ++c) {
      volatile double product = model.design(n, c) * theta[c];
      a = a + product;
    }
    const double want = evaluate_link(Link::logistic, a, model.response[n], 1.0).value;
    EXPECT_EQ(log_likelihood(model, n, theta), want + model.offset[n]) << "row " << n;
  }
}

TEST(ModelLogistic, InterceptCanBeLeftOut) {
  ModelOptions options = options_for(ModelKind::logistic);
  options.intercept = false;
  const Model model = make_model(two_covariates({1, -1}), options, 0);
  EXPECT_EQ(model.dim(), 2);
  EXPECT_EQ(model.parameter_names, (std::vector<std::string>{"c1", "c2"}));
}

TEST(ModelLogistic, UnnamedCovariatesAreNumbered) {
  Dataset data = two_covariates({1, -1});
  data.covariate_names.clear();
  const Model model = make_model(data, options_for(ModelKind::logistic), 0);
  EXPECT_EQ(model.parameter_names, (std::vector<std::string>{"x1", "x2", "intercept"}));
}

TEST(ModelLogistic, ZeroOneLabelsMapToMinusOneOne) {
  const Model model = make_model(two_covariates({0, 1, 1, 0}), options_for(ModelKind::logistic), 0);
  EXPECT_EQ(model.response, Eigen::Vector4d(-1, 1, 1, -1));
  const Model ones = make_model(two_covariates({1, 1}), options_for(ModelKind::logistic), 0);
  EXPECT_EQ(ones.response, Eigen::Vector2d(1, 1));
}

TEST(ModelLogistic, LabelOutsideDomainNamesFileLineAndColumn) {
  const InputError error =
      input_error(two_covariates({1, -1, 0.5}), options_for(ModelKind::logistic));
  EXPECT_EQ(error.file(), "data.csv");
  EXPECT_EQ(error.line(), 4);  // row 2 of data starting on line 2
  EXPECT_EQ(error.column(), 3);
  EXPECT_STREQ(error.what(),
               "data.csv:4:3: label 0.5 is outside the logistic model's domain {-1, 1} or {0, 1}");
}

TEST(ModelLogistic, MixedLabelEncodingsAreRejectedWhereTheyMix) {
  const InputError error =
      input_error(two_covariates({1, 0, 1, -1}), options_for(ModelKind::logistic));
  EXPECT_EQ(error.line(), 5);
  EXPECT_EQ(error.column(), 3);
  EXPECT_NE(std::string(error.what()).find("label -1 is outside"), std::string::npos)
      << error.what();
}

TEST(ModelLogistic, DatasetNotFromAFileHasNoLine) {
  Dataset data = two_covariates({1, 2});
  data.first_data_line = 0;
  data.response_column = 0;
  data.source = "built-in";
  const InputError error = input_error(data, options_for(ModelKind::logistic));
  EXPECT_EQ(error.line(), 0);
  EXPECT_STREQ(error.what(),
               "built-in: label 2 is outside the logistic model's domain {-1, 1} or {0, 1}");
}

TEST(ModelLogistic, MissingResponseNamesTheFile) {
  Dataset data = two_covariates({1, 1});
  data.response.clear();
  const InputError error = input_error(data, options_for(ModelKind::logistic));
  EXPECT_EQ(error.file(), "data.csv");
  EXPECT_EQ(error.line(), 0);
  EXPECT_STREQ(error.what(), "data.csv: the logistic model needs a response column");
}

// ---- poisson

TEST(ModelPoisson, CountsKeepTheirValuesAndLogFactorialIsInTheOffset) {
  const Model model = make_model(two_covariates({0, 2, 5}), options_for(ModelKind::poisson), 0);
  EXPECT_EQ(model.link, Link::poisson);
  EXPECT_EQ(model.dim(), 3);
  EXPECT_EQ(model.response, Eigen::Vector3d(0, 2, 5));
  EXPECT_DOUBLE_EQ(model.offset[0], 0.0);
  EXPECT_DOUBLE_EQ(model.offset[1], -std::log(2.0));
  EXPECT_DOUBLE_EQ(model.offset[2], -std::log(120.0));
  // L_n is the Poisson log probability: at theta with softplus(z . theta) = lambda.
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(3);
  theta(2) = std::log(std::exp(4.0) - 1.0);  // intercept only: lambda = 4 for every row
  EXPECT_NEAR(assembled_log_likelihood(model, 2, theta),
              5.0 * std::log(4.0) - 4.0 - std::log(120.0), 1e-12);
}

TEST(ModelPoisson, NegativeCountIsAnInputError) {
  const InputError error = input_error(two_covariates({1, -1}), options_for(ModelKind::poisson));
  EXPECT_EQ(error.line(), 3);
  EXPECT_EQ(error.column(), 3);
  EXPECT_STREQ(error.what(), "data.csv:3:3: count -1 is negative");
}

TEST(ModelPoisson, FractionalCountIsAnInputError) {
  const InputError error =
      input_error(two_covariates({1, 4, 2.5}), options_for(ModelKind::poisson));
  EXPECT_EQ(error.line(), 4);
  EXPECT_STREQ(error.what(), "data.csv:4:3: count 2.5 is not an integer");
}

TEST(ModelPoisson, NonFiniteCountIsAnInputError) {
  const InputError error =
      input_error(two_covariates({HUGE_VAL, 1}), options_for(ModelKind::poisson));
  EXPECT_EQ(error.line(), 2);
  EXPECT_STREQ(error.what(), "data.csv:2:3: count inf is not a finite number");
}

TEST(ModelPoisson, MissingResponseIsAnInputError) {
  Dataset data = two_covariates({1, 1});
  data.response.clear();
  EXPECT_STREQ(input_error(data, options_for(ModelKind::poisson)).what(),
               "data.csv: the poisson model needs a response column");
}

// ---- gaussian mean model

// log N(x; theta, Sigma), evaluated directly.
double gaussian_log_density(const Eigen::VectorXd& x, const Eigen::VectorXd& theta,
                            const Eigen::MatrixXd& sigma) {
  const Eigen::VectorXd r = x - theta;
  const auto d = static_cast<double>(x.size());
  return -0.5 * d * kLog2Pi - 0.5 * std::log(sigma.determinant()) -
         0.5 * r.dot(sigma.inverse() * r);
}

TEST(ModelGaussian, IsotropicNoiseGivesTheGaussianLogDensity) {
  const Dataset data = hand_dataset({{1, 2, 3}, {-1, 0.5, 2}, {0, 0, 0}}, {});
  ModelOptions options = options_for(ModelKind::gaussian);
  options.noise_sd = 2.0;
  const Model model = make_model(data, options, 0);
  EXPECT_EQ(model.link, Link::identity);
  ASSERT_EQ(model.dim(), 3);  // no intercept: the parameter is the mean
  EXPECT_EQ(model.parameter_names, (std::vector<std::string>{"c1", "c2", "c3"}));
  EXPECT_TRUE(model.shared_quadratic.isApprox(Eigen::MatrixXd::Identity(3, 3) / 4.0, 1e-15));
  EXPECT_TRUE(model.design.dense().isApprox(covariates_of(data) / 4.0, 1e-15));
  EXPECT_EQ(model.response, Eigen::VectorXd::Zero(3));
  const Eigen::MatrixXd sigma = 4.0 * Eigen::MatrixXd::Identity(3, 3);
  const Eigen::Vector3d theta(0.3, -1.2, 2.0);
  for (index_t n = 0; n < 3; ++n) {
    const Eigen::VectorXd x = covariates_of(data).row(n).transpose();
    EXPECT_NEAR(assembled_log_likelihood(model, n, theta), gaussian_log_density(x, theta, sigma),
                1e-12);
  }
}

TEST(ModelGaussian, FullNoiseCovarianceGivesTheGaussianLogDensity) {
  const Dataset data = hand_dataset({{1, 2}, {-1, 0.5}, {3, -2}}, {7, 8, 9});
  ModelOptions options = options_for(ModelKind::gaussian);
  options.noise_covariance = Matrix<double>(2, 2);
  options.noise_covariance(0, 0) = 2.0;
  options.noise_covariance(0, 1) = 0.5;
  options.noise_covariance(1, 0) = 0.5;
  options.noise_covariance(1, 1) = 1.0;
  const Model model = make_model(data, options, 0);
  Eigen::Matrix2d sigma;
  sigma << 2.0, 0.5, 0.5, 1.0;
  EXPECT_TRUE(model.shared_quadratic.isApprox(sigma.inverse(), 1e-14));
  // The response column is ignored by the mean model.
  EXPECT_EQ(model.response, Eigen::VectorXd::Zero(3));
  const Eigen::Vector2d theta(-0.7, 1.1);
  for (index_t n = 0; n < 3; ++n) {
    const Eigen::VectorXd x = covariates_of(data).row(n).transpose();
    EXPECT_NEAR(assembled_log_likelihood(model, n, theta), gaussian_log_density(x, theta, sigma),
                1e-12);
  }
}

TEST(ModelGaussian, BadNoiseCovarianceIsAnInvalidArgument) {
  const Dataset data = hand_dataset({{1, 2}, {3, 4}}, {});
  ModelOptions options = options_for(ModelKind::gaussian);

  options.noise_covariance = Matrix<double>(3, 3);
  EXPECT_NE(invalid_argument(data, options).find("must be 2 x 2"), std::string::npos);

  options.noise_covariance = Matrix<double>(2, 2);
  options.noise_covariance(0, 0) = 1.0;
  options.noise_covariance(1, 1) = 1.0;
  options.noise_covariance(0, 1) = 0.5;  // (1, 0) stays 0
  EXPECT_NE(invalid_argument(data, options).find("not symmetric"), std::string::npos);

  options.noise_covariance(1, 0) = 2.0;
  options.noise_covariance(0, 1) = 2.0;  // eigenvalues 3 and -1
  EXPECT_NE(invalid_argument(data, options).find("not positive definite"), std::string::npos);
}

// ---- linear regression

TEST(ModelLinear, PlainDesignWithGaussianNoise) {
  const Dataset data = two_covariates({0.25, -3, 8});
  ModelOptions options = options_for(ModelKind::linear);
  options.noise_sd = 0.5;
  const Model model = make_model(data, options, 0);
  EXPECT_EQ(model.link, Link::gaussian);
  EXPECT_EQ(model.dim(), 3);
  EXPECT_EQ(model.design.dense().col(2), Eigen::VectorXd::Ones(3));
  EXPECT_EQ(model.response, Eigen::Vector3d(0.25, -3, 8));
  EXPECT_DOUBLE_EQ(model.noise_precision, 4.0);
  const Eigen::Vector3d theta(1.0, -2.0, 0.5);
  for (index_t n = 0; n < 3; ++n) {
    const double mean = model.design.row(n).dot(theta);
    const double r = model.response(n) - mean;
    const double density = -0.5 * std::log(2.0 * M_PI * 0.25) - r * r / (2.0 * 0.25);
    EXPECT_NEAR(assembled_log_likelihood(model, n, theta), density, 1e-12);
  }
}

TEST(ModelLinear, NoiseCovarianceIsRejected) {
  ModelOptions options = options_for(ModelKind::linear);
  options.noise_covariance = Matrix<double>(2, 2);
  EXPECT_NE(invalid_argument(two_covariates({1, 2}), options).find("--noise-covariance"),
            std::string::npos);
}

TEST(ModelLinear, MissingResponseIsAnInputError) {
  Dataset data = two_covariates({1, 2});
  data.response.clear();
  EXPECT_STREQ(input_error(data, options_for(ModelKind::linear)).what(),
               "data.csv: the linear model needs a response column");
}

TEST(ModelLinear, NonFiniteResponseIsAnInputError) {
  const InputError error =
      input_error(two_covariates({1, std::nan("")}), options_for(ModelKind::linear));
  EXPECT_EQ(error.line(), 3);
  EXPECT_EQ(error.column(), 3);
}

// 400 points in the unit square: far enough apart to be distinct, close enough that no basis
// value underflows.
Dataset unit_square(index_t n, unsigned seed) {
  std::vector<std::vector<double>> rows;
  std::vector<double> response;
  unsigned state = seed;
  const auto next = [&state] {
    state = state * 1103515245u + 12345u;
    return static_cast<double>((state >> 8) & 0xFFFF) / 65536.0;
  };
  for (index_t i = 0; i < n; ++i) {
    rows.push_back({next(), next()});
    response.push_back(next());
  }
  return hand_dataset(rows, response);
}

TEST(ModelLinear, RadialBasisFeaturesFollowSpec35) {
  const Dataset data = unit_square(400, 1);
  ModelOptions options = options_for(ModelKind::linear);
  options.rbf.enabled = true;
  const Model model = make_model(data, options, 42);
  ASSERT_EQ(model.dim(), 6 * 50 + 1);
  EXPECT_EQ(model.parameter_names.front(), "rbf1");
  EXPECT_EQ(model.parameter_names.back(), "rbf301");
  EXPECT_GT(model.design.dense().minCoeff(), 0.0);
  EXPECT_LE(model.design.dense().maxCoeff(), 1.0);

  const auto x = covariates_of(data);
  const std::vector<double>& scales = options.rbf.scales;
  for (std::size_t block = 0; block < scales.size(); ++block) {
    std::set<index_t> centres;
    for (index_t k = static_cast<index_t>(block) * 50; k < static_cast<index_t>(block + 1) * 50;
         ++k) {
      // The centre is a data row: its own basis value is exactly exp(0) = 1.
      index_t centre = -1;
      for (index_t i = 0; i < 400; ++i) {
        if (model.design(i, k) == 1.0) {
          centre = i;
        }
      }
      ASSERT_GE(centre, 0) << "basis " << k << " is not centred on a data row";
      centres.insert(centre);
      for (const index_t i : {index_t{0}, index_t{17}, index_t{399}}) {
        const double expected = std::exp(-(x.row(i) - x.row(centre)).squaredNorm() /
                                         (2.0 * scales[block] * scales[block]));
        EXPECT_NEAR(model.design(i, k), expected, 1e-15) << "basis " << k << " row " << i;
      }
    }
    EXPECT_EQ(centres.size(), 50u) << "centres of scale " << scales[block] << " repeat";
  }
  // The near-constant basis, centred at the covariate means, replaces the intercept.
  const Eigen::RowVectorXd mean = x.colwise().mean();
  for (index_t i = 0; i < 400; ++i) {
    EXPECT_NEAR(model.design(i, 300),
                std::exp(-(x.row(i) - mean).squaredNorm() / (2.0 * 100.0 * 100.0)), 1e-15);
  }
}

// The near-constant basis sits at the covariate means summed exactly and rounded once, so that
// the ranks of a distributed build, each summing its own rows, find the same centre. Here a sum
// in row order loses the 1 added to 1e16 and would put the mean at 0.25; the exact mean is 0.5.
TEST(ModelLinear, TheNearConstantBasisSitsAtTheExactlySummedMean) {
  const Dataset data = hand_dataset({{1e16}, {1.0}, {-1e16}, {1.0}}, {0.0, 1.0, 2.0, 3.0});
  ModelOptions options = options_for(ModelKind::linear);
  options.rbf.enabled = true;
  options.rbf.scales = {};
  options.rbf.near_constant_scale = 1.0;
  const Model model = make_model(data, options, 0);
  ASSERT_EQ(model.dim(), 1);
  EXPECT_EQ(model.design(1, 0), std::exp(-0.5 * 0.5 * 0.5));
  EXPECT_EQ(model.design(3, 0), model.design(1, 0));
  EXPECT_EQ(model.design(0, 0), 0.0);
}

// The centres are the first min(n, m) entries of a partial Fisher-Yates shuffle of 0 ... n - 1
// per scale, one engine for all scales (spec 3.5): the draw that rbf_centre_rows makes in
// O(centres) memory must be the plain shuffle's, row for row.
TEST(ModelLinear, RadialBasisCentreRowsAreThePartialFisherYatesShuffles) {
  RbfOptions rbf;
  rbf.scales = {0.5, 1.0, 2.0};
  for (const index_t n : {index_t{7}, index_t{50}, index_t{1000}}) {
    rbf.centers_per_scale = 20;
    std::vector<index_t> expected;
    std::mt19937_64 engine(77);
    const index_t per_scale = std::min(n, rbf.centers_per_scale);
    for (std::size_t scale = 0; scale < rbf.scales.size(); ++scale) {
      std::vector<index_t> rows(static_cast<std::size_t>(n));
      std::iota(rows.begin(), rows.end(), index_t{0});
      for (index_t j = 0; per_scale < n && j < per_scale; ++j) {
        const auto pick = j + static_cast<index_t>(support::uniform_below(
                                  engine, static_cast<std::uint64_t>(n - j)));
        std::swap(rows[static_cast<std::size_t>(j)], rows[static_cast<std::size_t>(pick)]);
      }
      expected.insert(expected.end(), rows.begin(), rows.begin() + per_scale);
    }
    EXPECT_EQ(rbf_centre_rows(rbf, 2, n, 77), expected) << n << " rows";
  }
}

TEST(ModelLinear, RadialBasisCentresDependOnlyOnTheSeed) {
  const Dataset data = unit_square(400, 2);
  ModelOptions options = options_for(ModelKind::linear);
  options.rbf.enabled = true;
  const Model first = make_model(data, options, 7);
  const Model again = make_model(data, options, 7);
  EXPECT_EQ(first.design.dense(), again.design.dense());
  const Model other = make_model(data, options, 8);
  EXPECT_NE(first.design.dense(), other.design.dense());
}

TEST(ModelLinear, RadialBasisUsesEveryRowWhenThereAreFewerThanTheCentreCount) {
  ModelOptions options = options_for(ModelKind::linear);
  options.rbf.enabled = true;
  const Model model = make_model(unit_square(20, 3), options, 0);
  EXPECT_EQ(model.dim(), 6 * 20 + 1);
  options.rbf.near_constant_basis = false;
  options.rbf.scales = {0.5};
  EXPECT_EQ(make_model(unit_square(20, 3), options, 0).dim(), 20);
}

TEST(ModelLinear, BadRadialBasisOptionsAreInvalidArguments) {
  const Dataset data = unit_square(10, 4);
  ModelOptions options = options_for(ModelKind::linear);
  options.rbf.enabled = true;
  options.rbf.scales = {0.5, -1.0};
  EXPECT_NE(invalid_argument(data, options).find("must be > 0"), std::string::npos);
  options.rbf.scales = {0.5};
  options.rbf.near_constant_scale = 0.0;
  EXPECT_NE(invalid_argument(data, options).find("must be > 0"), std::string::npos);
  ModelOptions logistic = options_for(ModelKind::logistic);
  logistic.rbf.enabled = true;
  EXPECT_NE(invalid_argument(two_covariates({1, -1}), logistic).find("only to the linear"),
            std::string::npos);
}

// ---- prior and options

TEST(ModelPrior, IsotropicPriorFromPriorSd) {
  ModelOptions options = options_for(ModelKind::logistic);
  options.prior_sd = 2.0;
  const Model model = make_model(two_covariates({1, -1}), options, 0);
  EXPECT_TRUE(model.prior_precision.isApprox(Eigen::MatrixXd::Identity(3, 3) / 4.0, 1e-15));
  EXPECT_NEAR(model.prior_log_normalizer, -1.5 * kLog2Pi - 3.0 * std::log(2.0), 1e-14);
}

TEST(ModelPrior, FullPriorCovarianceIsInverted) {
  ModelOptions options = options_for(ModelKind::logistic);
  Eigen::Matrix3d covariance;
  covariance << 2.0, 0.3, 0.0, 0.3, 1.0, -0.2, 0.0, -0.2, 0.5;
  options.prior_covariance = Matrix<double>(3, 3);
  Eigen::Map<Eigen::Matrix3d>(options.prior_covariance.data()) = covariance;
  const Model model = make_model(two_covariates({1, -1}), options, 0);
  EXPECT_TRUE(model.prior_precision.isApprox(covariance.inverse(), 1e-14));
  EXPECT_NEAR(model.prior_log_normalizer, -1.5 * kLog2Pi - 0.5 * std::log(covariance.determinant()),
              1e-14);
}

TEST(ModelPrior, PriorCovarianceOfTheWrongSizeNamesTheExpectedSize) {
  ModelOptions options = options_for(ModelKind::logistic);
  options.prior_covariance = Matrix<double>(2, 2);
  options.prior_covariance(0, 0) = options.prior_covariance(1, 1) = 1.0;
  const std::string message = invalid_argument(two_covariates({1, -1}), options);
  EXPECT_NE(message.find("the prior covariance must be 3 x 3"), std::string::npos) << message;
  EXPECT_NE(message.find("c1, c2, intercept"), std::string::npos) << message;
  // Read from a file: an input error naming it (the command's exit 3), whichever check fails.
  options.prior_covariance_source = "prior.csv";
  try {
    make_model(two_covariates({1, -1}), options, 0);
    ADD_FAILURE() << "a 2 x 2 prior covariance passed for 3 parameters";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("prior.csv: the prior covariance must be 3 x 3"),
              std::string::npos)
        << error.what();
  }
  ModelOptions gaussian = options_for(ModelKind::gaussian);
  gaussian.noise_covariance = Matrix<double>(2, 2);  // all zeros: not positive definite
  gaussian.noise_covariance_source = "noise.csv";
  EXPECT_THROW(make_model(two_covariates({1, -1}), gaussian, 0), InputError);
}

TEST(ModelPrior, NonPositiveOrNonFiniteScalesAreInvalidArguments) {
  const Dataset data = two_covariates({1, -1});
  for (const double bad : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    ModelOptions options = options_for(ModelKind::linear);
    options.prior_sd = bad;
    EXPECT_NE(invalid_argument(data, options).find("--prior-sd must be > 0"), std::string::npos)
        << bad;
    options.prior_sd = 1.0;
    options.noise_sd = bad;
    EXPECT_NE(invalid_argument(data, options).find("--noise-sd must be > 0"), std::string::npos)
        << bad;
  }
}

TEST(ModelValidation, EmptyDatasetIsAnInputError) {
  EXPECT_STREQ(input_error(two_covariates({}), options_for(ModelKind::gaussian)).what(),
               "data.csv: the dataset has no rows");
}

TEST(ModelValidation, NonFiniteCovariateNamesItsLine) {
  Dataset data = two_covariates({1, -1, 1});
  data.covariates(2, 1) = std::nan("");
  const InputError error = input_error(data, options_for(ModelKind::logistic));
  EXPECT_EQ(error.line(), 4);
  EXPECT_NE(std::string(error.what()).find("covariate 'c2' is nan"), std::string::npos)
      << error.what();
}

// Past 2^20 values the check runs on every thread; the message still names the first non-finite
// covariate in the serial order (column by column, then row), and a finite dataset of many
// blocks builds the model with its design copied block by block.
TEST(ModelValidation, ManyRowBlocksFindTheFirstNonFiniteCovariateInOrder) {
  const index_t n = 200003;  // three full blocks of 2^16 rows and a partial one
  std::vector<double> response(static_cast<std::size_t>(n));
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    response[static_cast<std::size_t>(i)] = i % 3 == 0 ? 1.0 : -1.0;
    const auto x = static_cast<double>(i);
    rows[static_cast<std::size_t>(i)] = {0.5 * x, 1.0 - x, 2.0, -x, 0.25 * x, 3.0};
  }
  Dataset data = hand_dataset(rows, response);
  ASSERT_GE(n * data.dims(), index_t{1} << 20);  // enough values for the threads to share
  const Model model = make_model(data, options_for(ModelKind::logistic), 0);
  ASSERT_EQ(model.design.rows(), n);
  for (const index_t i : {index_t{0}, index_t{65535}, index_t{65536}, n - 1}) {
    EXPECT_EQ(model.design(i, 0), data.covariates(i, 0)) << i;
    EXPECT_EQ(model.design(i, 1), data.covariates(i, 1)) << i;
    EXPECT_EQ(model.design(i, 5), data.covariates(i, 5)) << i;
    EXPECT_EQ(model.design(i, 6), 1.0) << i;  // the intercept
    EXPECT_EQ(model.response(i), response[static_cast<std::size_t>(i)]) << i;
  }
  data.covariates(199999, 1) = HUGE_VAL;  // in the last block, second column
  data.covariates(150000, 0) = std::nan("");
  data.covariates(70000, 1) = -HUGE_VAL;
  data.covariates(10, 5) = std::nan("");  // an earlier row of a later column
  const InputError error = input_error(data, options_for(ModelKind::logistic));
  EXPECT_EQ(error.line(), 150000 + 2);  // column c1 comes first, whatever the rows
  EXPECT_NE(std::string(error.what()).find("covariate 'c1' is nan"), std::string::npos)
      << error.what();
}

// Every model reports a non-finite covariate before anything about its response (a missing one,
// a bad label or count), whether it checks the covariates as it copies them into the design
// (logistic, poisson, linear) or before it reads them (the Gaussian mean, RBF features).
TEST(ModelValidation, ACovariateErrorComesBeforeAnyResponseError) {
  struct Case {
    ModelKind kind;
    bool rbf;
    std::vector<double> response;  // empty: none; else with a bad value where the model has one
  };
  // The bad responses: 7 is not a label, -2 not a count.
  const Case cases[] = {
      {ModelKind::logistic, false, {}}, {ModelKind::logistic, false, {1, 7, 1}},
      {ModelKind::poisson, false, {}},  {ModelKind::poisson, false, {1, -2, 1}},
      {ModelKind::linear, false, {}},   {ModelKind::linear, true, {}},
      {ModelKind::gaussian, false, {}},
  };
  for (const Case& c : cases) {
    Dataset data = two_covariates(c.response.empty() ? std::vector<double>{1, 1, 1} : c.response);
    if (c.response.empty()) {
      data.response.clear();
    }
    data.covariates(1, 1) = -HUGE_VAL;
    ModelOptions options = options_for(c.kind);
    options.rbf.enabled = c.rbf;
    const InputError error = input_error(data, options);
    EXPECT_EQ(error.line(), 3) << to_string(c.kind) << (c.rbf ? " rbf" : "");
    EXPECT_NE(std::string(error.what()).find("covariate 'c2' is -inf"), std::string::npos)
        << to_string(c.kind) << (c.rbf ? " rbf" : "") << ": " << error.what();
  }
}

// Responses over many row blocks: checked on every thread, reported in row order.
constexpr index_t kManyRows = 200003;  // three full blocks of 2^16 rows and a partial one

std::vector<double> many_responses(double value) {
  return std::vector<double>(static_cast<std::size_t>(kManyRows), value);
}

TEST(ModelValidation, ManyRowBlocksMapEveryLabelAndZeroEveryOffset) {
  std::vector<double> labels = many_responses(1.0);
  for (index_t i = 0; i < kManyRows; i += 7) {
    labels[static_cast<std::size_t>(i)] = 0.0;
  }
  const Model model = make_model(two_covariates(labels), options_for(ModelKind::logistic), 0);
  for (index_t i = 0; i < kManyRows; ++i) {
    ASSERT_EQ(model.response(i), i % 7 == 0 ? -1.0 : 1.0) << i;
    ASSERT_EQ(model.offset[i], 0.0) << i;
  }
}

TEST(ModelValidation, ManyRowBlocksReportTheFirstBadLabelInOrder) {
  std::vector<double> labels = many_responses(1.0);
  labels[190000] = 7.0;  // in the last full block
  labels[140000] = 0.5;
  const InputError outside = input_error(two_covariates(labels), options_for(ModelKind::logistic));
  EXPECT_EQ(outside.line(), 140000 + 2);
  EXPECT_NE(std::string(outside.what()).find("label 0.5 is outside"), std::string::npos)
      << outside.what();
  // Each block alone is consistent; the encodings mix across blocks, first at row 150000.
  labels = many_responses(1.0);
  labels[70000] = 0.0;
  labels[150000] = -1.0;
  labels[199000] = 0.0;
  const InputError mixed = input_error(two_covariates(labels), options_for(ModelKind::logistic));
  EXPECT_EQ(mixed.line(), 150000 + 2);
  EXPECT_NE(std::string(mixed.what()).find("(earlier rows use {0, 1})"), std::string::npos)
      << mixed.what();
}

TEST(ModelValidation, ManyRowBlocksReportTheFirstBadCountInOrder) {
  std::vector<double> counts = many_responses(3.0);
  for (index_t i = 0; i < kManyRows; i += 1000) {
    counts[static_cast<std::size_t>(i)] = static_cast<double>(i / 1000);
  }
  const Model model = make_model(two_covariates(counts), options_for(ModelKind::poisson), 0);
  for (index_t i = 0; i < kManyRows; i += 997) {
    const double count = counts[static_cast<std::size_t>(i)];
    ASSERT_EQ(model.response(i), count) << i;
    ASSERT_EQ(model.offset[i], -std::lgamma(count + 1.0)) << i;
  }
  counts[180000] = -1.0;
  counts[100001] = 2.5;
  const InputError error = input_error(two_covariates(counts), options_for(ModelKind::poisson));
  EXPECT_EQ(error.line(), 100001 + 2);
  EXPECT_NE(std::string(error.what()).find("count 2.5 is not an integer"), std::string::npos)
      << error.what();
}

TEST(ModelValidation, ManyRowBlocksReportTheFirstNonFiniteResponseInOrder) {
  std::vector<double> responses = many_responses(0.25);
  const Model model = make_model(two_covariates(responses), options_for(ModelKind::linear), 0);
  const double offset = -0.5 * kLog2Pi;  // noise sd 1
  for (const index_t i : {index_t{0}, index_t{65536}, kManyRows - 1}) {
    EXPECT_EQ(model.response(i), 0.25) << i;
    EXPECT_NEAR(model.offset[i], offset, 1e-15) << i;
  }
  responses[199999] = std::nan("");
  responses[131072] = -HUGE_VAL;
  const InputError error = input_error(two_covariates(responses), options_for(ModelKind::linear));
  EXPECT_EQ(error.line(), 131072 + 2);
  EXPECT_NE(std::string(error.what()).find("response -inf is not a finite number"),
            std::string::npos)
      << error.what();
}

TEST(ModelValidation, ModelWithoutParametersIsRejected) {
  Dataset data = two_covariates({1, -1});
  data.covariates = Matrix<double>(2, 0);
  data.covariate_names.clear();
  ModelOptions options = options_for(ModelKind::logistic);
  options.intercept = false;
  EXPECT_NE(invalid_argument(data, options).find("no parameters"), std::string::npos);
  // With the intercept the same data is a valid one-parameter model.
  options.intercept = true;
  EXPECT_EQ(make_model(data, options, 0).dim(), 1);
}

// ---- names

TEST(ModelNames, RoundTripAndListTheAcceptedNames) {
  for (const ModelKind kind :
       {ModelKind::logistic, ModelKind::poisson, ModelKind::gaussian, ModelKind::linear}) {
    EXPECT_EQ(parse_model(to_string(kind)), kind);
  }
  EXPECT_EQ(to_string(ModelKind::poisson), "poisson");
  try {
    parse_model("probit");
    ADD_FAILURE() << "parse_model accepted 'probit'";
  } catch (const InvalidArgument& error) {
    EXPECT_STREQ(error.what(),
                 "unknown model 'probit' (expected one of: logistic, poisson, gaussian, linear)");
  }
}

// ---- synthetic data (spec 3.6)

bool same_bits(const Dataset& a, const Dataset& b) {
  return a.rows() == b.rows() && a.dims() == b.dims() &&
         std::memcmp(a.covariates.data(), b.covariates.data(),
                     sizeof(double) * static_cast<std::size_t>(a.rows() * a.dims())) == 0 &&
         a.response == b.response;
}

TEST(ModelSynthetic, SameSeedSameBitsOtherSeedOtherData) {
  const Dataset a = synthetic_logistic_dataset(1000, 5);
  const Dataset b = synthetic_logistic_dataset(1000, 5);
  const Dataset c = synthetic_logistic_dataset(1000, 6);
  EXPECT_TRUE(same_bits(a, b));
  EXPECT_FALSE(same_bits(a, c));
  // A shorter dataset is the prefix of a longer one.
  const Dataset prefix = synthetic_logistic_dataset(10, 5);
  for (index_t i = 0; i < 10; ++i) {
    EXPECT_EQ(prefix.covariates(i, 0), a.covariates(i, 0));
    EXPECT_EQ(prefix.covariates(i, 1), a.covariates(i, 1));
    EXPECT_EQ(prefix.response[static_cast<std::size_t>(i)],
              a.response[static_cast<std::size_t>(i)]);
  }
}

TEST(ModelSynthetic, DescribesItself) {
  const Dataset data = synthetic_logistic_dataset(3, 0);
  EXPECT_EQ(data.covariate_names, (std::vector<std::string>{"x1", "x2"}));
  EXPECT_EQ(data.response_name, "y");
  EXPECT_EQ(data.source, "built-in synthetic logistic data");
  EXPECT_EQ(data.first_data_line, 0);
  EXPECT_EQ(data.response_column, 0);
}

TEST(ModelSynthetic, FollowsTheGeneratingModel) {
  const Dataset data = synthetic_logistic_dataset(10000, 0);
  ASSERT_EQ(data.rows(), 10000);
  ASSERT_EQ(data.dims(), 2);
  const auto x = covariates_of(data);
  // x ~ N(0, I_2): means within ~5 standard errors (0.01), variances likewise (0.014).
  for (index_t c = 0; c < 2; ++c) {
    const double mean = x.col(c).mean();
    const double variance = (x.col(c).array() - mean).square().mean();
    EXPECT_NEAR(mean, 0.0, 0.05) << c;
    EXPECT_NEAR(variance, 1.0, 0.07) << c;
  }
  EXPECT_NEAR(x.col(0).dot(x.col(1)) / 10000.0, 0.0, 0.05);
  index_t positive = 0;
  index_t agrees = 0;  // labels on the side of the true boundary x1 + x2 = 0
  for (index_t i = 0; i < 10000; ++i) {
    const double y = data.response[static_cast<std::size_t>(i)];
    ASSERT_TRUE(y == 1.0 || y == -1.0);
    positive += y > 0 ? 1 : 0;
    agrees += (y > 0) == (x(i, 0) + x(i, 1) > 0) ? 1 : 0;
  }
  EXPECT_GT(positive, 3000);
  EXPECT_LT(positive, 7000);
  // With theta = (3, 3) the Bayes classifier is right with probability E[sigma(3 |x1 + x2|)],
  // about 0.878; labels drawn independently of x would agree half the time.
  EXPECT_GT(agrees, 8300);
  EXPECT_LT(agrees, 9100);
}

// The generator behind the synthetic data and the posterior sampling: uniforms are exact
// functions of the standard-defined mt19937_64 stream, and the normals are pinned so that a change
// of method or draw order (which would change every dataset and sample) cannot go unnoticed.
TEST(ModelRandom, NormalGeneratorIsPinnedToTheEngineStream) {
  support::NormalGenerator generator(12345);
  std::mt19937_64 engine(12345);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(generator.uniform(), static_cast<double>(engine() >> 11) * 0x1.0p-53);
  }
  support::NormalGenerator normals(0);
  EXPECT_DOUBLE_EQ(normals(), -0.48132337199836744);
  EXPECT_DOUBLE_EQ(normals(), 0.10191855551453786);
  EXPECT_DOUBLE_EQ(normals(), 0.064987953338865465);
  const Dataset data = synthetic_logistic_dataset(1, 0);
  EXPECT_DOUBLE_EQ(data.covariates(0, 0), -0.48132337199836744);
  EXPECT_DOUBLE_EQ(data.covariates(0, 1), 0.10191855551453786);
}

TEST(ModelRandom, NormalGeneratorHasStandardNormalMoments) {
  support::NormalGenerator generator(3);
  const int count = 200000;
  double sum = 0.0;
  double squares = 0.0;
  double fourth = 0.0;
  int beyond_two = 0;
  for (int i = 0; i < count; ++i) {
    const double z = generator();
    sum += z;
    squares += z * z;
    fourth += z * z * z * z;
    beyond_two += std::abs(z) > 2.0 ? 1 : 0;
  }
  // Standard errors: mean 0.0022, variance 0.0032, fourth moment 0.022, tail 0.0005.
  EXPECT_NEAR(sum / count, 0.0, 0.012);
  EXPECT_NEAR(squares / count, 1.0, 0.016);
  EXPECT_NEAR(fourth / count, 3.0, 0.11);
  EXPECT_NEAR(static_cast<double>(beyond_two) / count, 0.0455, 0.0025);
}

TEST(ModelSynthetic, BuildsALogisticModel) {
  const Model model =
      make_model(synthetic_logistic_dataset(50, 1), options_for(ModelKind::logistic), 0);
  EXPECT_EQ(model.dim(), 3);
  EXPECT_EQ(model.parameter_names, (std::vector<std::string>{"x1", "x2", "intercept"}));
}

}  // namespace
}  // namespace coreset::models
