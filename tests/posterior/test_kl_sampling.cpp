// KL divergences between Gaussians (spec 4.3, T33) against hand-derived values and invariances,
// and Gaussian sampling: moments, reproducibility, and independence from the sample count.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>
#include <cmath>
#include <random>
#include <string>

#include "coreset/error.hpp"
#include "helpers/random_eigen.hpp"
#include "models/model.hpp"
#include "posterior/posterior.hpp"

namespace coreset::posterior {
namespace {

using test::random_matrix;
using test::random_spd;

Gaussian random_gaussian(Eigen::Index d, std::mt19937_64& rng) {
  return {random_matrix(d, 1, rng), random_spd(d, rng)};
}

Gaussian gaussian1(double mean, double variance) {
  return {Eigen::VectorXd::Constant(1, mean), Eigen::MatrixXd::Constant(1, 1, variance)};
}

// ---- KL ----

TEST(KlDivergence, IsZeroBetweenIdenticalDistributions) {
  std::mt19937_64 rng(1);
  for (const Eigen::Index d : {1, 2, 6, 30}) {
    const Gaussian p = random_gaussian(d, rng);
    const double kl = kl_divergence(p, p);
    EXPECT_GE(kl, 0.0);
    EXPECT_LE(kl, 1e-12 * static_cast<double>(d)) << "d = " << d;
  }
}

TEST(KlDivergence, IsNonNegativeAndPositiveForDistinctPairs) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Index d = 1 + trial % 7;
    const Gaussian p = random_gaussian(d, rng);
    const Gaussian q = random_gaussian(d, rng);
    EXPECT_GT(kl_divergence(p, q), 0.0) << "trial " << trial;
    EXPECT_GT(kl_divergence(q, p), 0.0) << "trial " << trial;
  }
}

TEST(KlDivergence, OneDimensionalHandValue) {
  // KL(N(0, 1) || N(1, 2)), variance 2:
  //   tr(Sq^{-1} Sp) = 1/2, (mq - mp)^2 / Sq = 1/2, d = 1, log det Sq - log det Sp = ln 2,
  //   KL = 1/2 (1/2 + 1/2 - 1 + ln 2) = ln(2) / 2 = 0.34657...
  EXPECT_NEAR(kl_divergence(gaussian1(0.0, 1.0), gaussian1(1.0, 2.0)), 0.5 * std::log(2.0), 1e-15);
  // The reverse, KL(N(1, 2) || N(0, 1)): tr = 2, Mahalanobis = 1, log-det difference = -ln 2,
  //   KL = 1/2 (2 + 1 - 1 - ln 2) = 1 - ln(2) / 2 = 0.65343...: KL is not symmetric.
  EXPECT_NEAR(kl_divergence(gaussian1(1.0, 2.0), gaussian1(0.0, 1.0)), 1.0 - 0.5 * std::log(2.0),
              1e-15);
}

TEST(KlDivergence, TwoDimensionalHandValueWithCorrelation) {
  // p = N((0.5, 0.5), Sp), Sp = [[2, 1], [1, 2]], det Sp = 3;
  // q = N((1.5, -0.5), Sq), Sq = [[1, 0.5], [0.5, 2]], det Sq = 2 - 1/4 = 7/4,
  //   Sq^{-1} = (4/7) [[2, -0.5], [-0.5, 1]] = [[8/7, -2/7], [-2/7, 4/7]].
  // tr(Sq^{-1} Sp) = (8/7)(2) + (-2/7)(1) + (-2/7)(1) + (4/7)(2) = (16 - 4 + 8) / 7 = 20/7.
  // mq - mp = (1, -1): Sq^{-1} (1, -1) = (10/7, -6/7), dotted with (1, -1): 16/7.
  // log det Sq - log det Sp = ln(7/4) - ln 3 = ln(7/12).
  // KL = 1/2 (20/7 + 16/7 - 2 + ln(7/12)) = 1/2 (22/7 + ln(7/12)) = 11/7 + ln(7/12)/2 = 1.30193...
  Gaussian p{Eigen::Vector2d(0.5, 0.5), Eigen::Matrix2d{{2.0, 1.0}, {1.0, 2.0}}};
  Gaussian q{Eigen::Vector2d(1.5, -0.5), Eigen::Matrix2d{{1.0, 0.5}, {0.5, 2.0}}};
  EXPECT_NEAR(kl_divergence(p, q), 11.0 / 7.0 + 0.5 * std::log(7.0 / 12.0), 1e-14);
}

TEST(KlDivergence, IsInvariantUnderACommonAffineMap) {
  // KL(A p + b || A q + b) = KL(p || q) for invertible A: catches a trace or Mahalanobis term
  // computed with the wrong factor or a transpose, which hand values on small cases can miss.
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Index d = 2 + trial % 5;
    const Gaussian p = random_gaussian(d, rng);
    const Gaussian q = random_gaussian(d, rng);
    const Eigen::MatrixXd a =
        random_matrix(d, d, rng) + 2.0 * Eigen::MatrixXd::Identity(d, d);  // invertible a.s.
    const Eigen::VectorXd b = random_matrix(d, 1, rng);
    const auto map = [&](const Gaussian& g) {
      const Eigen::MatrixXd covariance = a * g.covariance * a.transpose();
      return Gaussian{a * g.mean + b, 0.5 * (covariance + covariance.transpose())};
    };
    const double kl = kl_divergence(p, q);
    EXPECT_NEAR(kl_divergence(map(p), map(q)), kl, 1e-9 * (1.0 + kl)) << "trial " << trial;
  }
}

TEST(KlDivergence, MatchesTheDirectFormulaWithExplicitInverses) {
  std::mt19937_64 rng(4);
  for (const Eigen::Index d : {3, 8}) {
    const Gaussian p = random_gaussian(d, rng);
    const Gaussian q = random_gaussian(d, rng);
    const Eigen::MatrixXd q_inv = q.covariance.inverse();
    const Eigen::VectorXd diff = q.mean - p.mean;
    const double expected =
        0.5 * ((q_inv * p.covariance).trace() + diff.dot(q_inv * diff) - static_cast<double>(d) +
               std::log(q.covariance.determinant()) - std::log(p.covariance.determinant()));
    EXPECT_NEAR(kl_divergence(p, q), expected, 1e-10 * (1.0 + expected)) << "d = " << d;
  }
}

TEST(KlDivergence, UnitWeightsGiveTheFullPosteriorInBothDirections) {
  // T33 on the Gaussian mean model: pi_1 (a coreset listing every datapoint with weight 1) is pi,
  // so KL vanishes both ways, while a proper subset gives KL > 0 and w = 0 gives the prior.
  std::mt19937_64 rng(5);
  const Eigen::Index n = 40;
  const Eigen::Index d = 3;
  models::Model model;
  model.kind = ModelKind::gaussian;
  model.link = models::Link::identity;
  const Eigen::MatrixXd sigma = random_spd(d, rng);
  model.shared_quadratic = sigma.inverse();
  model.design = (random_matrix(n, d, rng).array() + 1.0).matrix() * model.shared_quadratic;
  model.response = Eigen::VectorXd::Zero(n);
  model.offset = Eigen::VectorXd::Zero(n);
  model.prior_precision = Eigen::MatrixXd::Identity(d, d);

  Coreset ones;
  Coreset half;
  for (index_t i = 0; i < n; ++i) {
    ones.indices.push_back(i);
    ones.weights.push_back(1.0);
    if (i % 2 == 0) {
      half.indices.push_back(i);
      half.weights.push_back(1.0);
    }
  }
  const Gaussian full = exact_posterior(model, nullptr);
  const Gaussian unit = exact_posterior(model, &ones);
  EXPECT_LE(kl_divergence(full, unit), 1e-12);
  EXPECT_LE(kl_divergence(unit, full), 1e-12);
  EXPECT_GT(kl_divergence(full, exact_posterior(model, &half)), 1e-3);

  const Coreset empty;
  const Gaussian prior{Eigen::VectorXd::Zero(d), Eigen::MatrixXd::Identity(d, d)};
  EXPECT_LE(kl_divergence(prior, exact_posterior(model, &empty)), 1e-15);
  EXPECT_GT(kl_divergence(full, prior), 1.0);
}

TEST(KlDivergence, RejectsMismatchedOrInvalidArguments) {
  std::mt19937_64 rng(6);
  const Gaussian p2 = random_gaussian(2, rng);
  const Gaussian p3 = random_gaussian(3, rng);
  EXPECT_THROW(kl_divergence(p2, p3), InvalidArgument);
  EXPECT_THROW(kl_divergence(p3, p2), InvalidArgument);
  Gaussian ragged = p3;
  ragged.covariance = Eigen::MatrixXd::Identity(2, 2);
  EXPECT_THROW(kl_divergence(ragged, p3), InvalidArgument);
  Gaussian singular = p2;
  singular.covariance << 1.0, 1.0, 1.0, 1.0;
  EXPECT_THROW(kl_divergence(singular, p2), NumericalError);
  EXPECT_THROW(kl_divergence(p2, singular), NumericalError);
}

// ---- sampling ----

Gaussian sampling_target() {
  // A correlated 3-D Gaussian with unequal scales.
  Eigen::MatrixXd covariance(3, 3);
  covariance << 2.0, 0.6, -0.3,  //
      0.6, 1.0, 0.2,             //
      -0.3, 0.2, 0.5;
  return {Eigen::Vector3d(1.0, -2.0, 0.5), covariance};
}

TEST(Sampling, MomentsMatchWithinFiveStandardErrors) {
  const Gaussian target = sampling_target();
  const Eigen::Index count = 200000;
  const Eigen::MatrixXd samples = draw_samples(target, count, 12345);
  ASSERT_EQ(samples.rows(), count);
  ASSERT_EQ(samples.cols(), 3);
  ASSERT_TRUE(samples.allFinite());
  const auto n = static_cast<double>(count);
  const Eigen::VectorXd mean = samples.colwise().mean().transpose();
  const Eigen::MatrixXd centred = samples.rowwise() - mean.transpose();
  const Eigen::MatrixXd covariance = centred.transpose() * centred / (n - 1.0);
  const Eigen::MatrixXd& s = target.covariance;
  for (Eigen::Index i = 0; i < 3; ++i) {
    // The sample mean has standard error sqrt(S_ii / n).
    EXPECT_NEAR(mean[i], target.mean[i], 5.0 * std::sqrt(s(i, i) / n)) << "mean " << i;
    for (Eigen::Index j = 0; j < 3; ++j) {
      // For Gaussian data, Var(x_i x_j) = S_ii S_jj + S_ij^2, so the sample covariance has
      // standard error sqrt((S_ii S_jj + S_ij^2) / n).
      const double se = std::sqrt((s(i, i) * s(j, j) + s(i, j) * s(i, j)) / n);
      EXPECT_NEAR(covariance(i, j), s(i, j), 5.0 * se) << "covariance " << i << ", " << j;
    }
  }
}

TEST(Sampling, SameSeedGivesIdenticalSamplesAndDifferentSeedsDiffer) {
  const Gaussian target = sampling_target();
  const Eigen::MatrixXd a = draw_samples(target, 1000, 7);
  const Eigen::MatrixXd b = draw_samples(target, 1000, 7);
  const Eigen::MatrixXd c = draw_samples(target, 1000, 8);
  EXPECT_EQ(a, b);
  // Different seeds: no sample in common (equality anywhere would be a seeding bug).
  for (Eigen::Index j = 0; j < 1000; ++j) {
    EXPECT_NE(a.row(j), c.row(j)) << "row " << j;
  }
}

TEST(Sampling, SampleJDoesNotDependOnTheSampleCount) {
  // Sample j uses normals j*d .. j*d + d - 1, so a longer run extends a shorter one.
  const Gaussian target = sampling_target();
  const Eigen::MatrixXd short_run = draw_samples(target, 10, 99);
  const Eigen::MatrixXd long_run = draw_samples(target, 1000, 99);
  EXPECT_EQ(short_run, long_run.topRows(10));
}

TEST(Sampling, ZeroCountAndInvalidArguments) {
  const Gaussian target = sampling_target();
  const Eigen::MatrixXd none = draw_samples(target, 0, 1);
  EXPECT_EQ(none.rows(), 0);
  EXPECT_EQ(none.cols(), 3);
  EXPECT_THROW(draw_samples(target, -1, 1), InvalidArgument);
  Gaussian ragged = target;
  ragged.mean = Eigen::Vector2d(0.0, 0.0);
  EXPECT_THROW(draw_samples(ragged, 10, 1), InvalidArgument);
  Gaussian indefinite = target;
  indefinite.covariance(0, 0) = -1.0;
  EXPECT_THROW(draw_samples(indefinite, 10, 1), NumericalError);
}

TEST(Sampling, DegenerateOneDimensionalCase) {
  // d = 1: theta_j = mean + sqrt(variance) eps_j exactly.
  const Eigen::MatrixXd samples = draw_samples(gaussian1(3.0, 4.0), 5, 11);
  const Eigen::MatrixXd standard = draw_samples(gaussian1(0.0, 1.0), 5, 11);
  for (Eigen::Index j = 0; j < 5; ++j) {
    EXPECT_DOUBLE_EQ(samples(j, 0), 3.0 + 2.0 * standard(j, 0));
  }
}

}  // namespace
}  // namespace coreset::posterior
