// The projection Phi of spec 1.3 (T38): every column centred, entries equal to the direct
// formula for every model, float equal to double to float precision, y = Phi 1 equal to the
// centred sum of log-likelihoods, and results independent of the thread count.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/dataset.hpp"
#include "coreset/error.hpp"
#include "coreset/model.hpp"
#include "cpu/projection.hpp"
#include "models/link.hpp"
#include "models/model.hpp"
#include "support/random.hpp"

namespace coreset::cpu {
using models::Link;
using models::make_model;
using models::Model;
namespace {

// Larger than one block of the implementation (1024 datapoints) and not a multiple of it, so the
// tests cover several full blocks and a partial one.
constexpr index_t kRows = 2500;
constexpr index_t kSamples = 40;

struct NamedModel {
  std::string name;
  Model model;
};

// One model of every kind (and RBF linear regression) on random data.
std::vector<NamedModel> every_model(index_t n = kRows) {
  support::NormalGenerator random(11);
  const auto dataset = [&](index_t dims, bool counts) {
    Dataset data;
    data.covariates = Matrix<double>(n, dims);
    for (index_t c = 0; c < dims; ++c) {
      for (index_t i = 0; i < n; ++i) {
        data.covariates(i, c) = random();
      }
    }
    for (index_t i = 0; i < n; ++i) {
      data.response.push_back(counts ? std::floor(10.0 * random.uniform()) : random());
    }
    data.source = "test data";
    return data;
  };
  std::vector<NamedModel> models;

  Dataset logistic = dataset(2, false);
  for (double& y : logistic.response) {
    y = y > 0 ? 1.0 : -1.0;
  }
  ModelOptions options;
  options.kind = ModelKind::logistic;
  models.push_back({"logistic", make_model(logistic, options, 0)});

  options.kind = ModelKind::poisson;
  models.push_back({"poisson", make_model(dataset(2, true), options, 0)});

  options.kind = ModelKind::gaussian;
  options.noise_covariance = Matrix<double>(3, 3);
  const double sigma[3][3] = {{1.5, 0.2, 0.0}, {0.2, 0.8, -0.1}, {0.0, -0.1, 0.6}};
  for (index_t r = 0; r < 3; ++r) {
    for (index_t c = 0; c < 3; ++c) {
      options.noise_covariance(r, c) = sigma[r][c];
    }
  }
  models.push_back({"gaussian", make_model(dataset(3, false), options, 0)});

  options = ModelOptions();
  options.kind = ModelKind::linear;
  options.noise_sd = 0.7;
  models.push_back({"linear", make_model(dataset(2, false), options, 0)});

  options.rbf.enabled = true;
  options.rbf.scales = {0.5, 1.0};
  options.rbf.centers_per_scale = 5;
  models.push_back({"linear rbf", make_model(dataset(2, false), options, 0)});
  return models;
}

Eigen::MatrixXd random_samples(index_t count, index_t dims, std::uint64_t seed) {
  support::NormalGenerator random(seed);
  Eigen::MatrixXd samples(count, dims);
  for (index_t j = 0; j < count; ++j) {
    for (index_t k = 0; k < dims; ++k) {
      samples(j, k) = 0.5 * random();
    }
  }
  return samples;
}

// L_n(theta_j) for all n, j straight from the definition: row n = datapoint n (n x S).
Eigen::MatrixXd direct_log_likelihoods(const Model& model, const Eigen::MatrixXd& samples) {
  Eigen::MatrixXd loglik(model.rows(), samples.rows());
  for (index_t j = 0; j < samples.rows(); ++j) {
    const Eigen::VectorXd theta = samples.row(j).transpose();
    double quadratic = 0.0;
    if (model.shared_quadratic.size() > 0) {
      quadratic = 0.5 * theta.dot(model.shared_quadratic * theta);
    }
    for (index_t n = 0; n < model.rows(); ++n) {
      const double a = model.design.row(n).dot(theta);
      loglik(n, j) = evaluate_link(model.link, a, model.response(n), model.noise_precision).value -
                     quadratic + model.offset[n];
    }
  }
  return loglik;
}

// Spec 1.3 written out: ghat_n = (L_n(theta_j) - mean_j L_n) / sqrt(S).
Eigen::MatrixXd direct_phi(const Eigen::MatrixXd& loglik) {
  const auto s = static_cast<double>(loglik.cols());
  Eigen::MatrixXd phi = loglik.transpose();
  for (index_t n = 0; n < phi.cols(); ++n) {
    phi.col(n) = (phi.col(n).array() - phi.col(n).mean()) / std::sqrt(s);
  }
  return phi;
}

template <class T>
Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> as_eigen(const Matrix<T>& m) {
  return {m.data(), m.rows(), m.cols()};
}

template <class T>
bool same_bits(const Matrix<T>& a, const Matrix<T>& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(),
                     sizeof(T) * static_cast<std::size_t>(a.rows() * a.cols())) == 0;
}

TEST(ProjectionColumns, EveryColumnSumsToZero) {
  for (const auto& [name, model] : every_model()) {
    const Eigen::MatrixXd samples = random_samples(kSamples, model.dim(), 1);
    const Matrix<double> phi = projection<double>(model, samples, 2);
    ASSERT_EQ(phi.rows(), kSamples);
    ASSERT_EQ(phi.cols(), model.rows());
    for (index_t n = 0; n < phi.cols(); ++n) {
      const auto column = as_eigen(phi).col(n);
      EXPECT_LE(std::abs(column.sum()), 1e-12 * column.cwiseAbs().sum() + 1e-300)
          << name << " column " << n;
    }
  }
}

TEST(ProjectionColumns, EqualTheDirectFormulaForEveryModel) {
  for (const auto& [name, model] : every_model()) {
    const Eigen::MatrixXd samples = random_samples(kSamples, model.dim(), 2);
    const Eigen::MatrixXd loglik = direct_log_likelihoods(model, samples);
    const Eigen::MatrixXd expected = direct_phi(loglik);
    const Matrix<double> phi = projection<double>(model, samples, 2);
    // Rounding in the dot products differs by a few ulps of the largest log-likelihood.
    const double tolerance = 1e-12 * (1.0 + loglik.cwiseAbs().maxCoeff());
    EXPECT_LE((as_eigen(phi) - expected).cwiseAbs().maxCoeff(), tolerance) << name;
    // The columns are not all zero (the comparison is not vacuous).
    EXPECT_GT(expected.cwiseAbs().maxCoeff(), 1e-3) << name;
  }
}

TEST(ProjectionColumns, FloatEqualsDoubleToFloatPrecision) {
  for (const auto& [name, model] : every_model()) {
    const Eigen::MatrixXd samples = random_samples(kSamples, model.dim(), 3);
    const Matrix<double> phi = projection<double>(model, samples, 2);
    const Matrix<float> phi_float = projection<float>(model, samples, 2);
    ASSERT_EQ(phi_float.rows(), phi.rows());
    ASSERT_EQ(phi_float.cols(), phi.cols());
    double worst = 0.0;
    for (index_t n = 0; n < phi.cols(); ++n) {
      for (index_t j = 0; j < phi.rows(); ++j) {
        const double exact = phi(j, n);
        // Rounding to nearest float is within 2^-24 relative (plus the denormal range).
        const double error = std::abs(static_cast<double>(phi_float(j, n)) - exact);
        worst = std::max(worst, error / (std::abs(exact) + 1e-37));
      }
    }
    EXPECT_LE(worst, 0x1.0p-24) << name;
  }
}

TEST(ProjectionColumns, ColumnSumIsTheCentredScaledTotalLogLikelihood) {
  for (const auto& [name, model] : every_model()) {
    const Eigen::MatrixXd samples = random_samples(kSamples, model.dim(), 4);
    const Matrix<double> phi = projection<double>(model, samples, 2);
    const Eigen::VectorXd y = as_eigen(phi).rowwise().sum();  // y = Phi 1
    const Eigen::VectorXd total = direct_log_likelihoods(model, samples).colwise().sum();
    const Eigen::VectorXd expected =
        (total.array() - total.mean()) / std::sqrt(static_cast<double>(kSamples));
    const double tolerance = 1e-12 * static_cast<double>(model.rows()) *
                             (1.0 + total.cwiseAbs().maxCoeff() / static_cast<double>(kRows));
    EXPECT_LE((y - expected).cwiseAbs().maxCoeff(), tolerance) << name;
  }
}

// A distributed build's rank projects only its datapoints (datapoint_range's blocks): every
// column must be the bits of the same column of the whole Phi, at every S (block widths from 8
// to kReductionBlock) and for every model; a block off the kReductionBlock grid is refused.
TEST(ProjectionRange, ARanksDatapointsAreTheSameColumnsOfTheWholePhi) {
  const index_t n = 3 * kReductionBlock + 45;
  for (const index_t s : {index_t{7}, index_t{300}, index_t{5000}}) {
    const index_t width = projection_block_width(s);
    EXPECT_EQ(kReductionBlock % width, 0) << s;
    for (const auto& [name, model] : every_model(n)) {
      const Eigen::MatrixXd samples = random_samples(s, model.dim(), 8);
      const Matrix<float> whole = projection<float>(model, samples, 2);
      for (const int ranks : {2, 3}) {
        for (int r = 0; r < ranks; ++r) {
          const DatapointRange range = datapoint_range(n, r, ranks);
          const Matrix<float> part = projection<float>(model, samples, 2, nullptr, range);
          ASSERT_EQ(part.cols(), range.count);
          ASSERT_EQ(part.rows(), s);
          EXPECT_EQ(std::memcmp(part.data(), whole.column(range.first),
                                sizeof(float) * static_cast<std::size_t>(s * range.count)),
                    0)
              << name << ", S = " << s << ", rank " << r << " of " << ranks;
        }
      }
    }
  }
  const Model model = every_model(n).front().model;
  const Eigen::MatrixXd samples = random_samples(10, model.dim(), 8);
  EXPECT_THROW(projection<double>(model, samples, 1, nullptr, DatapointRange{100, 50}),
               InvalidArgument);
  EXPECT_THROW(projection<double>(model, samples, 1, nullptr, DatapointRange{0, n + 1}),
               InvalidArgument);
}

TEST(ProjectionThreads, ResultDoesNotDependOnTheThreadCount) {
  for (const auto& [name, model] : every_model(5000)) {
    const Eigen::MatrixXd samples = random_samples(kSamples, model.dim(), 5);
    EXPECT_TRUE(
        same_bits(projection<double>(model, samples, 1), projection<double>(model, samples, 3)))
        << name;
    EXPECT_TRUE(
        same_bits(projection<float>(model, samples, 1), projection<float>(model, samples, 3)))
        << name;
  }
}

// projection_into must overwrite every value of a reused Phi (here poisoned with NaN, which a
// skipped element would leave behind), keep its storage when the shape fits, and take a new one
// of the right shape when it does not.
template <class T>
void expect_projection_into_matches(const std::string& name, const Model& model) {
  const Eigen::MatrixXd samples = random_samples(kSamples, model.dim(), 9);
  const Matrix<T> expected = projection<T>(model, samples, 2);

  Matrix<T> reused(kSamples, model.rows());
  std::fill(reused.data(), reused.data() + reused.rows() * reused.cols(),
            std::numeric_limits<T>::quiet_NaN());
  const T* storage = reused.data();
  projection_into(model, samples, 2, reused);
  EXPECT_EQ(reused.data(), storage) << name << ": an S x n Phi must be reused";
  EXPECT_TRUE(same_bits(reused, expected)) << name;

  // The same buffer again with other samples, then the first ones: the values follow the samples.
  projection_into(model, random_samples(kSamples, model.dim(), 10), 2, reused);
  EXPECT_FALSE(same_bits(reused, expected)) << name;
  projection_into(model, samples, 2, reused);
  EXPECT_TRUE(same_bits(reused, expected)) << name;

  for (const auto& [rows, cols] : {std::pair<index_t, index_t>{kSamples + 1, model.rows()},
                                   {kSamples, model.rows() - 1},
                                   {0, 0}}) {
    Matrix<T> wrong_shape(rows, cols);
    projection_into(model, samples, 2, wrong_shape);
    EXPECT_TRUE(same_bits(wrong_shape, expected)) << name << " from " << rows << " x " << cols;
  }
}

TEST(ProjectionInto, ReusesAnSxNPhiAndOverwritesEveryValue) {
  for (const auto& [name, model] : every_model()) {
    expect_projection_into_matches<double>(name, model);
    expect_projection_into_matches<float>(name, model);
  }
}

// The logistic projection folds the labels into the design rows before the product, which must
// leave Phi a function of the margins y (z . theta) alone: labels +-2 on a design halved (exact
// scalings) give the same margins, so the same bits; a fold that dropped or misapplied the labels
// would not.
TEST(ProjectionLogistic, DependsOnTheLabelsOnlyThroughTheMargins) {
  Model unit_labels = every_model().front().model;
  ASSERT_EQ(unit_labels.link, Link::logistic);
  Model doubled_labels = unit_labels;
  doubled_labels.design = 0.5 * unit_labels.design.dense();
  doubled_labels.response *= 2.0;
  const Eigen::MatrixXd samples = random_samples(kSamples, unit_labels.dim(), 12);
  EXPECT_TRUE(same_bits(projection<double>(unit_labels, samples, 2),
                        projection<double>(doubled_labels, samples, 2)));
  EXPECT_TRUE(same_bits(projection<float>(unit_labels, samples, 2),
                        projection<float>(doubled_labels, samples, 2)));
}

TEST(ProjectionFromLoglik, CentresAndScalesAHandMatrix) {
  // Datapoint 0 at the 4 samples: 1, 2, 3, 6 (mean 3); datapoint 1: 5, 5, 5, 5 (mean 5);
  // datapoint 2: -4, 0, 4, 8 (mean 2). Scale 1/sqrt(4) = 1/2; every value exact in binary.
  Matrix<double> loglik(3, 4);
  const double values[3][4] = {{1, 2, 3, 6}, {5, 5, 5, 5}, {-4, 0, 4, 8}};
  for (index_t n = 0; n < 3; ++n) {
    for (index_t j = 0; j < 4; ++j) {
      loglik(n, j) = values[n][j];
    }
  }
  const double expected[3][4] = {{-1, -0.5, 0, 1.5}, {0, 0, 0, 0}, {-3, -1, 1, 3}};
  const Matrix<double> phi = projection_from_loglik(loglik);
  ASSERT_EQ(phi.rows(), 4);
  ASSERT_EQ(phi.cols(), 3);
  Matrix<float> loglik_float(3, 4);
  for (index_t n = 0; n < 3; ++n) {
    for (index_t j = 0; j < 4; ++j) {
      loglik_float(n, j) = static_cast<float>(values[n][j]);
    }
  }
  const Matrix<float> phi_float = projection_from_loglik(loglik_float);
  for (index_t n = 0; n < 3; ++n) {
    for (index_t j = 0; j < 4; ++j) {
      EXPECT_EQ(phi(j, n), expected[n][j]) << j << ", " << n;
      EXPECT_EQ(phi_float(j, n), static_cast<float>(expected[n][j])) << j << ", " << n;
    }
  }
}

TEST(ProjectionFromLoglik, AgreesWithTheModelProjection) {
  const NamedModel poisson = every_model()[1];
  const Eigen::MatrixXd samples = random_samples(kSamples, poisson.model.dim(), 6);
  const Eigen::MatrixXd loglik = direct_log_likelihoods(poisson.model, samples);
  Matrix<double> user(loglik.rows(), loglik.cols());
  Eigen::Map<Eigen::MatrixXd>(user.data(), user.rows(), user.cols()) = loglik;
  const Matrix<double> from_loglik = projection_from_loglik(user);
  const Matrix<double> from_model = projection<double>(poisson.model, samples, 2);
  EXPECT_LE((as_eigen(from_loglik) - as_eigen(from_model)).cwiseAbs().maxCoeff(),
            1e-12 * (1.0 + loglik.cwiseAbs().maxCoeff()));
}

TEST(ProjectionFromLoglik, RejectsNonFiniteAndEmptyMatrices) {
  Matrix<double> loglik(2, 3);
  loglik(1, 2) = std::nan("");
  try {
    projection_from_loglik(loglik);
    ADD_FAILURE() << "a NaN log-likelihood was accepted";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("datapoint 1, draw 2"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(projection_from_loglik(Matrix<double>(0, 3)), InvalidArgument);
  const double values[2] = {1.0, 2.0};
  EXPECT_THROW(projection_from_loglik(values, 1, 2, -1, 1), InvalidArgument);
  EXPECT_THROW(projection_from_loglik(static_cast<const double*>(nullptr), 1, 2, 1, 1),
               InvalidArgument);
  // One draw centred over itself is all zeros: refused, not solved as y = 0.
  try {
    projection_from_loglik(Matrix<double>(5, 1));
    ADD_FAILURE() << "one draw was accepted";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("two draws (got 5 datapoints, 1 draws)"),
              std::string::npos)
        << error.what();
  }
}

// Finite log-likelihoods whose mean overflows: a NumericalError naming the datapoint, not a
// non-finite Phi found later.
TEST(ProjectionFromLoglik, ValuesWhoseMeanOverflowsAreANumericalError) {
  Matrix<double> loglik(4, 3);
  loglik(2, 0) = 1e308;
  loglik(2, 1) = 1e308;
  try {
    projection_from_loglik(loglik);
    ADD_FAILURE() << "no error";
  } catch (const NumericalError& error) {
    EXPECT_NE(std::string(error.what()).find("datapoint 2 (0-based) overflow"), std::string::npos)
        << error.what();
  }
}

// The strided entry point reads every layout a NumPy caller hands over (n x S or S x n, C or
// Fortran order, a slice with gaps) and gives the Phi of the column-major n x S matrix.
TEST(ProjectionFromLoglik, EveryStridedLayoutGivesTheSamePhi) {
  const index_t n = 70, s = 9;  // not multiples of the transposition's 64-wide tiles
  Matrix<double> loglik(n, s);
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < s; ++j) {
      loglik(i, j) = std::sin(0.37 * static_cast<double>(i) + 1.3 * static_cast<double>(j));
    }
  }
  const Matrix<double> reference = projection_from_loglik(loglik);
  // Datapoint-major (C-order n x S), with a gap of 3 after each datapoint's draws.
  std::vector<double> datapoint_major(static_cast<std::size_t>(n * (s + 3)), std::nan(""));
  // Draw-major (C-order S x n, ArviZ's draws flattened), and the same with every other element.
  std::vector<double> draw_major(static_cast<std::size_t>(s * n));
  std::vector<double> spaced(static_cast<std::size_t>(2 * s * n), std::nan(""));
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < s; ++j) {
      datapoint_major[static_cast<std::size_t>(i * (s + 3) + j)] = loglik(i, j);
      draw_major[static_cast<std::size_t>(j * n + i)] = loglik(i, j);
      spaced[static_cast<std::size_t>(2 * (j * n + i))] = loglik(i, j);
    }
  }
  const Matrix<double> layouts[] = {
      projection_from_loglik(datapoint_major.data(), n, s, s + 3, 1),
      projection_from_loglik(draw_major.data(), n, s, 1, n),
      projection_from_loglik(spaced.data(), n, s, 2, 2 * n),
  };
  for (const Matrix<double>& phi : layouts) {
    ASSERT_EQ(phi.rows(), s);
    ASSERT_EQ(phi.cols(), n);
    EXPECT_EQ(std::vector<double>(phi.data(), phi.data() + n * s),
              std::vector<double>(reference.data(), reference.data() + n * s));
  }
}

TEST(ProjectionCenterAndScale, SubtractsTheMeanAndDividesBySqrtCount) {
  std::vector<double> values = {2.0, 4.0, 9.0, 1.0};  // mean 4
  center_and_scale(values.data(), 4);
  EXPECT_EQ(values, (std::vector<double>{-1.0, 0.0, 2.5, -1.5}));
  std::vector<float> single = {7.0f};
  center_and_scale(single.data(), 1);
  EXPECT_EQ(single[0], 0.0f);
  // A float column is centred in double: the mean of these is not representable in float.
  std::vector<float> close = {1.0f, 1.0f + 0x1.0p-23f, 1.0f + 0x1.0p-22f};
  center_and_scale(close.data(), 3);
  const float step = static_cast<float>(0x1.0p-23 / std::sqrt(3.0));
  EXPECT_FLOAT_EQ(close[0], -step);
  EXPECT_EQ(close[1], 0.0f);
  EXPECT_FLOAT_EQ(close[2], step);
}

TEST(ProjectionValidation, RejectsBadSamplesAndNonFiniteLogLikelihoods) {
  const NamedModel linear = every_model(10)[3];
  EXPECT_THROW(projection<double>(linear.model, Eigen::MatrixXd::Zero(5, 2), 1), InvalidArgument);
  EXPECT_THROW(projection<double>(linear.model, Eigen::MatrixXd::Zero(0, 3), 1), InvalidArgument);
  Eigen::MatrixXd samples = Eigen::MatrixXd::Zero(5, 3);
  samples(2, 1) = std::nan("");
  EXPECT_THROW(projection<double>(linear.model, samples, 1), InvalidArgument);
  // A finite sample whose squared residual overflows: L = -inf, which Phi cannot hold.
  samples(2, 1) = 1e200;
  try {
    projection<float>(linear.model, samples, 1);
    ADD_FAILURE() << "an infinite log-likelihood was accepted";
  } catch (const NumericalError& error) {
    EXPECT_NE(std::string(error.what()).find("datapoint 0 (0-based) at parameter sample 2"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace coreset::cpu
