// L_n and the weighted log joint (spec 4.1, T35): values against the models' textbook formulas,
// derivatives against central finite differences for every link, the weighted sums against
// explicit loops, and the structure of the negative Hessian.
#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "helpers/eigen_expect.hpp"
#include "helpers/random_eigen.hpp"
#include "models/link.hpp"
#include "models/model.hpp"
#include "models/row_sums.hpp"
#include "support/eigen.hpp"

namespace coreset::models {
namespace {

/// ||a - b|| <= tolerance * max(1.0, ||b||).
void expect_close(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double tolerance,
                  const std::string& what) {
  test::expect_matrix_near(a, b, tolerance, 1.0, what);
}

using test::kPi;
using test::random_matrix;
using test::random_spd;

/// The four model shapes, built by hand (make_model belongs to another file).
enum class Shape { logistic, poisson, gaussian_mean, linear };

std::string name(Shape shape) {
  switch (shape) {
    case Shape::logistic:
      return "logistic";
    case Shape::poisson:
      return "poisson";
    case Shape::gaussian_mean:
      return "gaussian-mean";
    case Shape::linear:
    default:
      return "linear";
  }
}

const std::vector<Shape> kShapes = {Shape::logistic, Shape::poisson, Shape::gaussian_mean,
                                    Shape::linear};

Model build_model(Shape shape, Eigen::Index n, Eigen::Index d, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Model model;
  Eigen::MatrixXd z = random_matrix(n, d, rng);
  model.design = z;
  model.response = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd offset = Eigen::VectorXd::Zero(n);
  switch (shape) {
    case Shape::logistic: {
      model.kind = ModelKind::logistic;
      model.link = Link::logistic;
      // The intercept as make_model holds it: the design's unit column, not stored.
      model.design = Design(z.leftCols(d - 1), true);
      std::bernoulli_distribution coin(0.5);
      for (Eigen::Index i = 0; i < n; ++i) {
        model.response[i] = coin(rng) ? 1.0 : -1.0;
      }
      break;
    }
    case Shape::poisson: {
      model.kind = ModelKind::poisson;
      model.link = Link::poisson;
      z.col(d - 1).setOnes();  // the intercept, stored
      model.design = z;
      std::poisson_distribution<int> counts(1.5);
      for (Eigen::Index i = 0; i < n; ++i) {
        // Every fourth count is 0, so the y = 0 branch is always covered.
        const int y = i % 4 == 0 ? 0 : counts(rng);
        model.response[i] = y;
        offset[i] = -std::lgamma(y + 1.0);
      }
      break;
    }
    case Shape::gaussian_mean: {
      // x_n ~ N(mu, Sigma); z_n = Sigma^{-1} x_n, Q = Sigma^{-1}, c_n = -x_n^T Sigma^{-1} x_n / 2
      // plus the normaliser, so L_n = log N(x_n; theta, Sigma) exactly.
      model.kind = ModelKind::gaussian;
      model.link = Link::identity;
      const Eigen::MatrixXd sigma = random_spd(d, rng);
      const Eigen::MatrixXd q = sigma.inverse();
      const Eigen::MatrixXd x = random_matrix(n, d, rng);
      z = x * q;
      model.design = z;
      model.shared_quadratic = q;
      const double log_det = std::log(sigma.determinant());
      for (Eigen::Index i = 0; i < n; ++i) {
        offset[i] = -0.5 * x.row(i).dot(z.row(i)) -
                    0.5 * static_cast<double>(d) * std::log(2.0 * kPi) - 0.5 * log_det;
      }
      break;
    }
    case Shape::linear:
    default: {
      model.kind = ModelKind::linear;
      model.link = Link::gaussian;
      model.noise_precision = 2.5;
      std::normal_distribution<double> normal(0.0, 1.0);
      const Eigen::VectorXd beta = random_matrix(d, 1, rng);
      model.response = z * beta;
      for (Eigen::Index i = 0; i < n; ++i) {
        model.response[i] += normal(rng) / std::sqrt(model.noise_precision);
        offset[i] = 0.5 * std::log(model.noise_precision / (2.0 * kPi));
      }
      break;
    }
  }
  // The logistic and linear offsets are one value for every row, unstored, as make_model holds
  // them (models/row_offsets.hpp); the others stored.
  const bool shared = shape == Shape::logistic || shape == Shape::linear;
  model.offset = shared ? RowOffsets::shared(n, offset[0]) : RowOffsets(offset);
  model.prior_precision = random_spd(d, rng);
  model.prior_log_normalizer = -1.75;
  return model;
}

/// theta whose linear predictor on datapoint `row` is exactly `target`: the minimum-norm such
/// theta, so |z_row . theta| = |target| while the other predictors stay comparable.
Eigen::VectorXd theta_with_predictor(const Model& model, Eigen::Index row, double target) {
  const Eigen::VectorXd z = model.design.row(row).transpose();
  return target * z / z.squaredNorm();
}

/// Central differences of f: R^d -> R at theta.
template <class F>
Eigen::VectorXd numeric_gradient(F f, const Eigen::VectorXd& theta, double h) {
  Eigen::VectorXd g(theta.size());
  for (Eigen::Index i = 0; i < theta.size(); ++i) {
    Eigen::VectorXd plus = theta;
    Eigen::VectorXd minus = theta;
    plus[i] += h;
    minus[i] -= h;
    g[i] = (f(plus) - f(minus)) / (2.0 * h);
  }
  return g;
}

/// The test points: random theta of moderate size, and theta putting datapoint 0's predictor at
/// +-50 where the links' stable branches take over.
std::vector<Eigen::VectorXd> test_thetas(const Model& model, std::mt19937_64& rng) {
  std::vector<Eigen::VectorXd> thetas;
  for (int t = 0; t < 3; ++t) {
    thetas.push_back(0.7 * random_matrix(model.dim(), 1, rng));
  }
  thetas.push_back(theta_with_predictor(model, 0, 50.0));
  thetas.push_back(theta_with_predictor(model, 0, -50.0));
  return thetas;
}

Coreset random_coreset(index_t n, index_t k, std::mt19937_64& rng) {
  std::vector<index_t> all(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    all[static_cast<std::size_t>(i)] = i;
  }
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(static_cast<std::size_t>(k));
  std::sort(all.begin(), all.end());
  std::uniform_real_distribution<double> uniform(0.2, 5.0);
  Coreset coreset;
  coreset.indices = all;
  for (std::size_t p = 0; p < all.size(); ++p) {
    coreset.weights.push_back(uniform(rng));
  }
  return coreset;
}

TEST(LogJoint, ValuesMatchTheModelsFormulas) {
  // Each L_n against its textbook density, so a sign or scale slip in a link is caught even
  // though the finite-difference tests only check derivatives against values.
  std::mt19937_64 rng(11);
  for (const Shape shape : kShapes) {
    const Model model = build_model(shape, 12, 3, 100 + static_cast<int>(shape));
    const Eigen::VectorXd theta = 0.8 * random_matrix(3, 1, rng);
    for (Eigen::Index n = 0; n < model.rows(); ++n) {
      const double a = model.design.row(n).dot(theta);
      const double y = model.response[n];
      double expected = 0.0;
      switch (shape) {
        case Shape::logistic:
          expected = -std::log1p(std::exp(-y * a));  // log P(y | a)
          break;
        case Shape::poisson: {
          const double lambda = std::log1p(std::exp(a));
          expected = y * std::log(lambda) - lambda - std::lgamma(y + 1.0);
          break;
        }
        case Shape::gaussian_mean: {
          // log N(x_n; theta, Sigma) with x_n = Sigma z_n.
          const Eigen::MatrixXd sigma = model.shared_quadratic.inverse();
          const Eigen::VectorXd x = sigma * model.design.row(n).transpose();
          const Eigen::VectorXd r = x - theta;
          expected = -0.5 * r.dot(model.shared_quadratic * r) - 1.5 * std::log(2.0 * kPi) -
                     0.5 * std::log(sigma.determinant());
          break;
        }
        case Shape::linear: {
          const double p = model.noise_precision;
          expected = 0.5 * std::log(p / (2.0 * kPi)) - 0.5 * p * (y - a) * (y - a);
          break;
        }
      }
      EXPECT_NEAR(log_likelihood(model, n, theta), expected, 1e-12 * (1.0 + std::abs(expected)))
          << name(shape) << " n = " << n;
    }
  }
}

TEST(LogJoint, LikelihoodGradientMatchesFiniteDifferences) {
  std::mt19937_64 rng(12);
  for (const Shape shape : kShapes) {
    const Model model = build_model(shape, 8, 4, 200 + static_cast<int>(shape));
    for (const Eigen::VectorXd& theta : test_thetas(model, rng)) {
      for (Eigen::Index n = 0; n < model.rows(); ++n) {
        Eigen::VectorXd gradient;
        log_likelihood(model, n, theta, &gradient);
        const auto value = [&](const Eigen::VectorXd& t) { return log_likelihood(model, n, t); };
        // h = 1e-5: truncation O(h^2 f''') ~ 1e-10, cancellation O(eps |f| / h) ~ 1e-11 |f|.
        const Eigen::VectorXd numeric = numeric_gradient(value, theta, 1e-5);
        const double scale = 1.0 + std::abs(value(theta));
        EXPECT_LE((gradient - numeric).norm(), 1e-6 * scale)
            << name(shape) << " n = " << n << " a = " << model.design.row(n).dot(theta)
            << "\n analytic " << gradient.transpose() << "\n numeric  " << numeric.transpose();
      }
    }
  }
}

TEST(LogJoint, LikelihoodHessianMatchesFiniteDifferencesOfTheGradient) {
  std::mt19937_64 rng(13);
  for (const Shape shape : kShapes) {
    const Model model = build_model(shape, 8, 4, 300 + static_cast<int>(shape));
    for (const Eigen::VectorXd& theta : test_thetas(model, rng)) {
      for (Eigen::Index n = 0; n < model.rows(); ++n) {
        Eigen::VectorXd gradient;
        Eigen::MatrixXd hessian;
        log_likelihood(model, n, theta, &gradient, &hessian);
        Eigen::MatrixXd numeric(theta.size(), theta.size());
        for (Eigen::Index j = 0; j < theta.size(); ++j) {
          const auto component = [&](const Eigen::VectorXd& t) {
            Eigen::VectorXd g;
            log_likelihood(model, n, t, &g);
            return g[j];
          };
          numeric.col(j) = numeric_gradient(component, theta, 1e-5);
        }
        const double scale = 1.0 + gradient.norm();
        EXPECT_LE((hessian - numeric).norm(), 1e-6 * scale)
            << name(shape) << " n = " << n << " a = " << model.design.row(n).dot(theta)
            << "\n analytic\n"
            << hessian << "\n numeric\n"
            << numeric;
        EXPECT_EQ((hessian - hessian.transpose()).norm(), 0.0) << name(shape);
      }
    }
  }
}

TEST(LogJoint, LinkPartIsConcaveAndEverythingFiniteAtExtremePredictors) {
  // |a| = 1e3: exp(1e3) overflows, so any unguarded exp in a link shows up as inf or nan.
  for (const Shape shape : kShapes) {
    const Model model = build_model(shape, 6, 3, 400 + static_cast<int>(shape));
    for (const double target : {-1e3, -50.0, -30.5, -29.5, 0.0, 29.5, 50.0, 1e3}) {
      const Eigen::VectorXd theta = theta_with_predictor(model, 0, target);
      Eigen::VectorXd gradient;
      Eigen::MatrixXd hessian;
      const double value = log_likelihood(model, 0, theta, &gradient, &hessian);
      EXPECT_TRUE(std::isfinite(value)) << name(shape) << " a = " << target;
      EXPECT_TRUE(gradient.allFinite()) << name(shape) << " a = " << target;
      EXPECT_TRUE(hessian.allFinite()) << name(shape) << " a = " << target;
      // The Hessian of the link part is ell'' z z^T with ell'' <= 0 (Poisson concavity, T35).
      Eigen::MatrixXd link_part = hessian;
      if (model.shared_quadratic.size() != 0) {
        link_part += model.shared_quadratic;
      }
      const Eigen::VectorXd z = model.design.row(0).transpose();
      EXPECT_LE(z.dot(link_part * z), 1e-12 * z.squaredNorm()) << name(shape) << " a = " << target;
    }
  }
  // The saturated logistic values: log sigma(1e3) = 0 and log sigma(-1e3) = -1e3.
  Model model = build_model(Shape::logistic, 1, 2, 7);
  model.response[0] = 1.0;
  const Eigen::VectorXd theta = theta_with_predictor(model, 0, 1e3);
  EXPECT_EQ(log_likelihood(model, 0, theta), 0.0);
  EXPECT_NEAR(log_likelihood(model, 0, -theta), -1e3, 1e-9);
}

TEST(LogJoint, WeightedSumEqualsExplicitSumOverTheCoreset) {
  std::mt19937_64 rng(14);
  for (const Shape shape : kShapes) {
    const Model model = build_model(shape, 40, 4, 500 + static_cast<int>(shape));
    const Coreset coreset = random_coreset(40, 13, rng);
    for (const Eigen::VectorXd& theta : test_thetas(model, rng)) {
      // log prior + sum_n w_n L_n and its derivatives, one datapoint at a time.
      double expected = model.prior_log_normalizer - 0.5 * theta.dot(model.prior_precision * theta);
      Eigen::VectorXd expected_gradient = -model.prior_precision * theta;
      Eigen::MatrixXd expected_negative_hessian = model.prior_precision;
      for (std::size_t p = 0; p < coreset.indices.size(); ++p) {
        Eigen::VectorXd g;
        Eigen::MatrixXd h;
        expected += coreset.weights[p] * log_likelihood(model, coreset.indices[p], theta, &g, &h);
        expected_gradient += coreset.weights[p] * g;
        expected_negative_hessian -= coreset.weights[p] * h;
      }
      Eigen::VectorXd gradient;
      Eigen::MatrixXd negative_hessian;
      const double value = log_joint(model, &coreset, theta, &gradient, &negative_hessian);
      EXPECT_NEAR(value, expected, 1e-11 * (1.0 + std::abs(expected))) << name(shape);
      expect_close(gradient, expected_gradient, 1e-11, name(shape) + " gradient");
      expect_close(negative_hessian, expected_negative_hessian, 1e-11,
                   name(shape) + " negative Hessian");
      // The value alone, and with the derivatives, are the same number.
      EXPECT_EQ(log_joint(model, &coreset, theta), value);
    }
  }
}

TEST(LogJoint, GradientOfTheLogJointMatchesFiniteDifferences) {
  // Covers the prior and the shared quadratic scaled by the total weight, which the
  // per-datapoint tests do not see.
  std::mt19937_64 rng(15);
  for (const Shape shape : kShapes) {
    const Model model = build_model(shape, 30, 3, 600 + static_cast<int>(shape));
    const Coreset coreset = random_coreset(30, 9, rng);
    for (const Coreset* weights : {static_cast<const Coreset*>(nullptr), &coreset}) {
      const Eigen::VectorXd theta = 0.5 * random_matrix(3, 1, rng);
      Eigen::VectorXd gradient;
      Eigen::MatrixXd negative_hessian;
      const double value = log_joint(model, weights, theta, &gradient, &negative_hessian);
      const auto f = [&](const Eigen::VectorXd& t) { return log_joint(model, weights, t); };
      const Eigen::VectorXd numeric = numeric_gradient(f, theta, 1e-5);
      EXPECT_LE((gradient - numeric).norm(), 1e-6 * (1.0 + std::abs(value))) << name(shape);
      Eigen::MatrixXd numeric_hessian(3, 3);
      for (Eigen::Index j = 0; j < 3; ++j) {
        const auto component = [&](const Eigen::VectorXd& t) {
          Eigen::VectorXd g;
          log_joint(model, weights, t, &g);
          return -g[j];
        };
        numeric_hessian.col(j) = numeric_gradient(component, theta, 1e-5);
      }
      EXPECT_LE((negative_hessian - numeric_hessian).norm(), 1e-6 * (1.0 + gradient.norm()))
          << name(shape);
    }
  }
}

TEST(LogJoint, FullDataEqualsCoresetOfEveryIndexWithWeightOne) {
  std::mt19937_64 rng(16);
  for (const Shape shape : kShapes) {
    const Model model = build_model(shape, 50, 5, 700 + static_cast<int>(shape));
    Coreset all;
    for (index_t i = 0; i < 50; ++i) {
      all.indices.push_back(i);
      all.weights.push_back(1.0);
    }
    for (const Eigen::VectorXd& theta : test_thetas(model, rng)) {
      Eigen::VectorXd g_full;
      Eigen::VectorXd g_all;
      Eigen::MatrixXd h_full;
      Eigen::MatrixXd h_all;
      const double full = log_joint(model, nullptr, theta, &g_full, &h_full);
      const double every = log_joint(model, &all, theta, &g_all, &h_all);
      EXPECT_NEAR(full, every, 1e-12 * (1.0 + std::abs(full))) << name(shape);
      expect_close(g_full, g_all, 1e-12, name(shape) + " gradient");
      expect_close(h_full, h_all, 1e-12, name(shape) + " negative Hessian");
    }
  }
}

// The sums over datapoints are split into parts fixed by n and d alone, so the thread count
// cannot move a bit. A product over all rows at once (the code before models/row_sums.hpp) was
// blocked by Eigen for the thread count and failed this at d = 41 (README, "Reproducibility").
TEST(LogJoint, BitwiseTheSameForAnyThreadCount) {
  std::mt19937_64 rng(21);
  const int saved = omp_get_max_threads();
  for (const Shape shape : kShapes) {
    // More rows than one block and columns enough for Eigen's product kernels to block.
    const Model model =
        build_model(shape, 3 * kRowSumBlock + 17, 41, 900 + static_cast<int>(shape));
    const Eigen::VectorXd theta = 0.05 * random_matrix(41, 1, rng);
    std::vector<double> values;
    std::vector<Eigen::VectorXd> gradients;
    std::vector<Eigen::MatrixXd> hessians;
    for (const int threads : {1, 2, 3, 5}) {
      omp_set_num_threads(threads);
      Eigen::VectorXd g;
      Eigen::MatrixXd h;
      values.push_back(log_joint(model, nullptr, theta, &g, &h));
      gradients.push_back(g);
      hessians.push_back(h);
    }
    for (std::size_t t = 1; t < values.size(); ++t) {
      EXPECT_EQ(values[t], values[0]) << name(shape);
      EXPECT_TRUE(gradients[t] == gradients[0]) << name(shape) << " gradient";
      EXPECT_TRUE(hessians[t] == hessians[0]) << name(shape) << " negative Hessian";
    }
  }
  omp_set_num_threads(saved);
}

// Offsets shared by every row (the logistic and linear models', unstored) and the same values
// stored give the same bits: in the sums over all rows, over a coreset's rows, over a block of
// rows and in one row's log-likelihood. A shared offset dropped, or added once instead of once
// a row, moves the value by far more than a bit.
TEST(LogJoint, SharedOffsetsGiveTheBitsOfTheSameOffsetsStored) {
  std::mt19937_64 rng(23);
  for (const Shape shape : {Shape::logistic, Shape::linear}) {
    const Model shared =
        build_model(shape, 3 * kRowSumBlock + 17, 4, 950 + static_cast<int>(shape));
    ASSERT_FALSE(shared.offset.stored()) << name(shape);
    Model stored = shared;
    stored.offset = shared.offset.dense();
    ASSERT_TRUE(stored.offset.stored()) << name(shape);
    const Eigen::VectorXd theta = 0.3 * random_matrix(4, 1, rng);
    const Coreset coreset{{3, 300, 700}, {1.5, 0.25, 4.0}};
    for (const Coreset* weights : {static_cast<const Coreset*>(nullptr), &coreset}) {
      Eigen::VectorXd g_shared;
      Eigen::VectorXd g_stored;
      Eigen::MatrixXd h_shared;
      Eigen::MatrixXd h_stored;
      const double v_shared = log_joint(shared, weights, theta, &g_shared, &h_shared);
      const double v_stored = log_joint(stored, weights, theta, &g_stored, &h_stored);
      const std::string what = name(shape) + (weights == nullptr ? ", all rows" : ", a coreset");
      EXPECT_EQ(v_shared, v_stored) << what;
      EXPECT_TRUE(g_shared == g_stored) << what;
      EXPECT_TRUE(h_shared == h_stored) << what;
      EXPECT_EQ(log_joint(shared, weights, theta), v_stored) << what << ", the value alone";
    }
    const ExactRowSums block =
        exact_link_sums(shared, kRowSumBlock, 2 * kRowSumBlock, theta, true, true);
    const ExactRowSums block_stored =
        exact_link_sums(stored, kRowSumBlock, 2 * kRowSumBlock, theta, true, true);
    const RowSums rounded = round_row_sums(block, 4, true, true);
    const RowSums rounded_stored = round_row_sums(block_stored, 4, true, true);
    EXPECT_EQ(rounded.value, rounded_stored.value) << name(shape);
    EXPECT_TRUE(rounded.vector == rounded_stored.vector) << name(shape);
    EXPECT_EQ(log_likelihood(shared, 5, theta), log_likelihood(stored, 5, theta)) << name(shape);
  }
}

// The blocked sums agree with the plain formulas: a wrong block boundary (a row summed twice or
// skipped) moves the sums by a whole term, far outside this tolerance.
TEST(RowSums, MatchTheDirectSumsAcrossBlockBoundaries) {
  std::mt19937_64 rng(22);
  for (const index_t n : {index_t{1}, kRowSumBlock - 1, kRowSumBlock, 2 * kRowSumBlock + 1}) {
    const Eigen::MatrixXd design = random_matrix(n, 4, rng);
    const Eigen::VectorXd v = random_matrix(n, 1, rng);
    const Eigen::VectorXd gw = random_matrix(n, 1, rng);
    const Eigen::VectorXd cw = random_matrix(n, 1, rng).cwiseAbs();
    const RowSums sums = sum_over_rows(
        design, true, true,
        [&](index_t first, const simd::RowBlock& block, Eigen::VectorXd& g, Eigen::VectorXd& c) {
          const index_t count = block.rows;
          g = gw.segment(first, count);
          c = cw.segment(first, count);
          return v.segment(first, count).sum();
        });
    EXPECT_NEAR(sums.value, v.sum(), 1e-10 * static_cast<double>(n)) << n;
    expect_close(sums.vector, design.transpose() * gw, 1e-10, "vector");
    expect_close(sums.matrix, design.transpose() * cw.asDiagonal() * design, 1e-10, "matrix");
  }
}

// Eigen would otherwise block its products for the caches of the CPU it runs on, and the same
// binary would give another coreset on another machine (support/eigen.hpp).
TEST(EigenProducts, ArePlannedForFixedCachesAndOneThread) {
  EXPECT_TRUE(support::eigen_products_pinned);
  EXPECT_EQ(Eigen::l1CacheSize(), support::kEigenL1Bytes);
  EXPECT_EQ(Eigen::l2CacheSize(), support::kEigenL2Bytes);
  EXPECT_EQ(Eigen::l3CacheSize(), support::kEigenL3Bytes);
  EXPECT_EQ(Eigen::nbThreads(), 1);
}

TEST(LogJoint, IntegerWeightsEqualDuplicatedDatapoints) {
  // w_n = 2 on every datapoint is the same as the data listed twice with w = 1: catches a weight
  // applied to the value but not to a derivative (or to the link but not to the quadratic).
  std::mt19937_64 rng(17);
  for (const Shape shape : kShapes) {
    const Model model = build_model(shape, 20, 3, 800 + static_cast<int>(shape));
    Model doubled = model;
    const Eigen::MatrixXd rows = model.design.dense();
    Eigen::MatrixXd twice_rows(40, 3);
    twice_rows << rows, rows;
    doubled.design = twice_rows;
    doubled.response.resize(40);
    doubled.response << model.response, model.response;
    // Stored, where the logistic and linear models' are shared: either way, the same sums.
    Eigen::VectorXd twice_offsets(40);
    twice_offsets << model.offset.dense(), model.offset.dense();
    doubled.offset = twice_offsets;
    Coreset twice;
    for (index_t i = 0; i < 20; ++i) {
      twice.indices.push_back(i);
      twice.weights.push_back(2.0);
    }
    const Eigen::VectorXd theta = 0.6 * random_matrix(3, 1, rng);
    Eigen::VectorXd g1;
    Eigen::VectorXd g2;
    Eigen::MatrixXd h1;
    Eigen::MatrixXd h2;
    const double v1 = log_joint(model, &twice, theta, &g1, &h1);
    const double v2 = log_joint(doubled, nullptr, theta, &g2, &h2);
    EXPECT_NEAR(v1, v2, 1e-12 * (1.0 + std::abs(v2))) << name(shape);
    expect_close(g1, g2, 1e-12, name(shape) + " gradient");
    expect_close(h1, h2, 1e-12, name(shape) + " negative Hessian");
  }
}

TEST(LogJoint, EmptyCoresetIsTheLogPrior) {
  std::mt19937_64 rng(18);
  for (const Shape shape : kShapes) {
    const Model model = build_model(shape, 10, 3, 900 + static_cast<int>(shape));
    const Coreset empty;
    const Eigen::VectorXd theta = random_matrix(3, 1, rng);
    Eigen::VectorXd gradient;
    Eigen::MatrixXd negative_hessian;
    const double value = log_joint(model, &empty, theta, &gradient, &negative_hessian);
    EXPECT_DOUBLE_EQ(value,
                     model.prior_log_normalizer - 0.5 * theta.dot(model.prior_precision * theta));
    expect_close(gradient, -model.prior_precision * theta, 1e-15, name(shape));
    expect_close(negative_hessian, model.prior_precision, 1e-15, name(shape));
  }
}

TEST(LogJoint, NegativeHessianIsSymmetricPositiveDefinite) {
  // -grad^2 lj_w = P0 + (PSD data part): exactly symmetric, and no eigenvalue below P0's
  // smallest (a sign error in any data term would push one below it).
  std::mt19937_64 rng(19);
  for (const Shape shape : kShapes) {
    const Model model = build_model(shape, 60, 4, 1000 + static_cast<int>(shape));
    const Coreset coreset = random_coreset(60, 15, rng);
    const double prior_min =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(model.prior_precision).eigenvalues()[0];
    for (const Coreset* weights : {static_cast<const Coreset*>(nullptr), &coreset}) {
      std::vector<Eigen::VectorXd> thetas = test_thetas(model, rng);
      thetas.push_back(theta_with_predictor(model, 0, 1e3));
      for (const Eigen::VectorXd& theta : thetas) {
        Eigen::VectorXd gradient;
        Eigen::MatrixXd h;
        log_joint(model, weights, theta, &gradient, &h);
        ASSERT_TRUE(h.allFinite()) << name(shape);
        EXPECT_EQ((h - h.transpose()).norm(), 0.0) << name(shape);
        EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(h).info(), Eigen::Success) << name(shape);
        const Eigen::MatrixXd data_part = h - model.prior_precision;
        const double data_min =
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(data_part).eigenvalues()[0];
        EXPECT_GE(data_min, -1e-10 * (1.0 + data_part.norm())) << name(shape);
        EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(h).eigenvalues()[0],
                  prior_min * (1.0 - 1e-10))
            << name(shape);
      }
    }
  }
}

TEST(LogJoint, RejectsOutOfRangeIndicesAndMismatchedShapes) {
  const Model model = build_model(Shape::logistic, 10, 3, 1);
  const Eigen::VectorXd theta = Eigen::VectorXd::Zero(3);
  for (const index_t bad : {index_t{-1}, index_t{10}, index_t{1000}}) {
    const Coreset coreset{{0, bad}, {1.0, 1.0}};
    EXPECT_THROW(log_joint(model, &coreset, theta), InvalidArgument) << bad;
    EXPECT_THROW(log_likelihood(model, bad, theta), InvalidArgument) << bad;
  }
  const Coreset mismatched{{0, 1}, {1.0}};
  EXPECT_THROW(log_joint(model, &mismatched, theta), InvalidArgument);
  const Coreset negative{{0, 1}, {1.0, -0.5}};
  EXPECT_THROW(log_joint(model, &negative, theta), InvalidArgument);
  EXPECT_THROW(log_joint(model, nullptr, Eigen::VectorXd::Zero(2)), InvalidArgument);
  EXPECT_THROW(log_likelihood(model, 0, Eigen::VectorXd::Zero(4)), InvalidArgument);
  Model short_offset = model;
  short_offset.offset = Eigen::VectorXd::Zero(9);
  EXPECT_THROW(log_joint(short_offset, nullptr, theta), InvalidArgument);
  Model bad_prior = model;
  bad_prior.prior_precision = Eigen::MatrixXd::Identity(2, 2);
  EXPECT_THROW(log_joint(bad_prior, nullptr, theta), InvalidArgument);
  try {
    const Coreset coreset{{12}, {1.0}};
    log_joint(model, &coreset, theta);
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("12"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace coreset::models
