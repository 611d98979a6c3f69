// The Laplace fit (spec 4.1, T36) and the closed-form posteriors of the conjugate models (eqs. 20
// and 23, T37): the closed forms against the spec's formulas evaluated literally, Laplace against
// the closed forms, and for logistic and Poisson regression the defining properties of the fit.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "helpers/eigen_expect.hpp"
#include "helpers/random_eigen.hpp"
#include "models/model.hpp"
#include "posterior/posterior.hpp"

namespace coreset::posterior {
namespace {

/// ||a - b|| <= tolerance * max(0.0, ||b||).
void expect_relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double tolerance,
                     const std::string& what) {
  test::expect_matrix_near(a, b, tolerance, 0.0, what);
}

using test::kPi;
using test::random_matrix;
using test::random_spd;

using models::Model;

double sigmoid(double a) {
  return 1.0 / (1.0 + std::exp(-a));
}

/// The Gaussian mean model of spec 3.1 with its ingredients kept for the literal eq. 20.
struct GaussianMeanProblem {
  Model model;
  Eigen::MatrixXd x;  // n x d, row n = x_n
  Eigen::MatrixXd sigma;
  Eigen::MatrixXd sigma0;
};

GaussianMeanProblem gaussian_mean_problem(Eigen::Index n, Eigen::Index d, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  GaussianMeanProblem problem;
  problem.sigma = random_spd(d, rng);
  problem.sigma0 = 3.0 * random_spd(d, rng);
  const Eigen::LLT<Eigen::MatrixXd> chol(problem.sigma);
  const Eigen::VectorXd truth = random_matrix(d, 1, rng);
  problem.x = (random_matrix(n, d, rng) * chol.matrixU()).rowwise() + truth.transpose();
  const Eigen::MatrixXd q = problem.sigma.inverse();
  Model& model = problem.model;
  model.kind = ModelKind::gaussian;
  model.link = models::Link::identity;
  model.design = problem.x * q;  // row n = (Sigma^{-1} x_n)^T
  model.response = Eigen::VectorXd::Zero(n);
  model.offset = Eigen::VectorXd::Constant(n, -2.0);  // constant in theta: irrelevant here
  model.shared_quadratic = q;
  model.prior_precision = problem.sigma0.inverse();
  model.prior_log_normalizer = -1.0;
  return problem;
}

Model linear_model(Eigen::Index n, Eigen::Index d, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  Model model;
  model.kind = ModelKind::linear;
  model.link = models::Link::gaussian;
  model.noise_precision = 1.0 / (0.3 * 0.3);
  const Eigen::MatrixXd z = random_matrix(n, d, rng);
  model.design = z;
  const Eigen::VectorXd beta = random_matrix(d, 1, rng);
  model.response = z * beta;
  for (Eigen::Index i = 0; i < n; ++i) {
    model.response[i] += 0.3 * normal(rng);
  }
  model.offset = Eigen::VectorXd::Constant(n, 0.5 * std::log(model.noise_precision / (2 * kPi)));
  model.prior_precision = random_spd(d, rng);
  return model;
}

/// Synthetic logistic regression of spec 3.6: x ~ N(0, I_2), z = [x, 1], theta = [3, 3, 0].
Model logistic_model(Eigen::Index n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Model model;
  model.kind = ModelKind::logistic;
  model.link = models::Link::logistic;
  // The intercept as make_model holds it: the design's unit column.
  model.design = models::Design(random_matrix(n, 3, rng).leftCols(2), true);
  const Eigen::Vector3d truth(3.0, 3.0, 0.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  model.response.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    model.response[i] = uniform(rng) < sigmoid(model.design.row(i).dot(truth)) ? 1.0 : -1.0;
  }
  model.offset = Eigen::VectorXd::Zero(n);
  model.prior_precision = Eigen::MatrixXd::Identity(3, 3);
  model.prior_log_normalizer = -1.5 * std::log(2 * kPi);
  return model;
}

/// Synthetic Poisson regression of spec 3.7: x ~ N(0, 1), z = [x, 1], y ~ Poisson(softplus).
Model poisson_model(Eigen::Index n, const Eigen::Vector2d& truth, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Model model;
  model.kind = ModelKind::poisson;
  model.link = models::Link::poisson;
  model.design = models::Design(random_matrix(n, 2, rng).leftCols(1), true);
  model.response.resize(n);
  Eigen::VectorXd offset(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double lambda = std::log1p(std::exp(model.design.row(i).dot(truth)));
    std::poisson_distribution<int> count(lambda);
    const int y = count(rng);
    model.response[i] = y;
    offset[i] = -std::lgamma(y + 1.0);
  }
  model.offset = offset;
  model.prior_precision = Eigen::MatrixXd::Identity(2, 2);
  return model;
}

/// k distinct ascending indices with weights around n / k (what a coreset of the data looks like).
Coreset random_coreset(index_t n, index_t k, std::mt19937_64& rng) {
  std::vector<index_t> all(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    all[static_cast<std::size_t>(i)] = i;
  }
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(static_cast<std::size_t>(k));
  std::sort(all.begin(), all.end());
  const double scale = static_cast<double>(n) / static_cast<double>(k);
  std::uniform_real_distribution<double> uniform(0.5 * scale, 1.5 * scale);
  Coreset coreset;
  coreset.indices = all;
  for (std::size_t p = 0; p < all.size(); ++p) {
    coreset.weights.push_back(uniform(rng));
  }
  return coreset;
}

bool is_symmetric_positive_definite(const Eigen::MatrixXd& m) {
  return (m - m.transpose()).norm() == 0.0 &&
         Eigen::LLT<Eigen::MatrixXd>(m).info() == Eigen::Success;
}

/// The weights of each case: the full data, a random coreset, and an empty coreset.
struct WeightCase {
  std::string name;
  const Coreset* weights;
};

// ---- closed forms ----

TEST(ExactPosterior, GaussianMeanMatchesSpecEquation20Literally) {
  // Sigma_w = (Sigma0^{-1} + (sum w) Sigma^{-1})^{-1}, mu_w = Sigma_w Sigma^{-1} sum w_n x_n,
  // evaluated with explicit inverses from the raw x_n, Sigma and Sigma0 (not the design).
  const GaussianMeanProblem problem = gaussian_mean_problem(50, 4, 1);
  std::mt19937_64 rng(2);
  const Coreset coreset = random_coreset(50, 7, rng);
  for (const Coreset* weights : {static_cast<const Coreset*>(nullptr), &coreset}) {
    double total = 0.0;
    Eigen::VectorXd weighted_sum = Eigen::VectorXd::Zero(4);
    for (Eigen::Index p = 0; p < (weights ? weights->size() : 50); ++p) {
      const auto i = weights ? weights->indices[static_cast<std::size_t>(p)] : p;
      const double w = weights ? weights->weights[static_cast<std::size_t>(p)] : 1.0;
      total += w;
      weighted_sum += w * problem.x.row(i).transpose();
    }
    const Eigen::MatrixXd sigma_inv = problem.sigma.inverse();
    const Eigen::MatrixXd sigma_w = (problem.sigma0.inverse() + total * sigma_inv).inverse();
    const Eigen::VectorXd mu_w = sigma_w * (sigma_inv * weighted_sum);
    const Gaussian exact = exact_posterior(problem.model, weights);
    expect_relative(exact.mean, mu_w, 1e-10, "mean");
    expect_relative(exact.covariance, sigma_w, 1e-10, "covariance");
    EXPECT_TRUE(is_symmetric_positive_definite(exact.covariance));
  }
}

TEST(ExactPosterior, LinearMatchesSpecEquation23Literally) {
  // Sigma_w = (Sigma0^{-1} + sigma^{-2} sum w b b^T)^{-1}, mu_w = Sigma_w sigma^{-2} sum w y b.
  const Model model = linear_model(60, 5, 3);
  std::mt19937_64 rng(4);
  const Coreset coreset = random_coreset(60, 9, rng);
  for (const Coreset* weights : {static_cast<const Coreset*>(nullptr), &coreset}) {
    Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(5, 5);
    Eigen::VectorXd moment = Eigen::VectorXd::Zero(5);
    for (Eigen::Index p = 0; p < (weights ? weights->size() : 60); ++p) {
      const auto i = weights ? weights->indices[static_cast<std::size_t>(p)] : p;
      const double w = weights ? weights->weights[static_cast<std::size_t>(p)] : 1.0;
      const Eigen::VectorXd b = model.design.row(i).transpose();
      gram += w * b * b.transpose();
      moment += w * model.response[i] * b;
    }
    const double inv_sigma2 = model.noise_precision;
    const Eigen::MatrixXd sigma_w = (model.prior_precision + inv_sigma2 * gram).inverse();
    const Eigen::VectorXd mu_w = sigma_w * (inv_sigma2 * moment);
    const Gaussian exact = exact_posterior(model, weights);
    expect_relative(exact.mean, mu_w, 1e-10, "mean");
    expect_relative(exact.covariance, sigma_w, 1e-10, "covariance");
  }
}

TEST(ExactPosterior, EmptyCoresetGivesThePrior) {
  const GaussianMeanProblem problem = gaussian_mean_problem(20, 3, 5);
  const Coreset empty;
  const Gaussian prior = exact_posterior(problem.model, &empty);
  EXPECT_EQ(prior.mean, Eigen::VectorXd::Zero(3));
  expect_relative(prior.covariance, problem.sigma0, 1e-12, "covariance");
}

TEST(ExactPosterior, RejectsModelsWithoutClosedForm) {
  EXPECT_THROW(exact_posterior(logistic_model(10, 1), nullptr), InvalidArgument);
  EXPECT_THROW(exact_posterior(poisson_model(10, {1.0, 0.0}, 1), nullptr), InvalidArgument);
  Model mismatched = linear_model(10, 2, 1);
  mismatched.link = models::Link::logistic;  // a linear model whose link is not quadratic
  EXPECT_THROW(exact_posterior(mismatched, nullptr), InvalidArgument);
  const Coreset out_of_range{{3, 10}, {1.0, 1.0}};
  EXPECT_THROW(exact_posterior(linear_model(10, 2, 1), &out_of_range), InvalidArgument);
}

// ---- Laplace = closed form on the conjugate models (T37) ----

TEST(LaplaceConjugate, EqualsTheClosedFormForGaussianMeanAndLinearModels) {
  const GaussianMeanProblem gaussian = gaussian_mean_problem(80, 6, 7);
  const Model linear = linear_model(120, 7, 8);
  std::mt19937_64 rng(9);
  for (const Model* model : {&gaussian.model, &linear}) {
    const Coreset coreset = random_coreset(model->rows(), 11, rng);
    const Coreset empty;
    for (const WeightCase& c : {WeightCase{"full data", nullptr}, WeightCase{"coreset", &coreset},
                                WeightCase{"empty coreset", &empty}}) {
      const std::string what = to_string(model->kind) + ", " + c.name;
      const Gaussian exact = exact_posterior(*model, c.weights);
      const LaplaceFit fit = laplace(*model, c.weights);
      if (c.weights == &empty) {
        EXPECT_EQ(fit.posterior.mean, Eigen::VectorXd::Zero(model->dim())) << what;
        EXPECT_EQ(fit.iterations, 0) << what;
      } else {
        expect_relative(fit.posterior.mean, exact.mean, 1e-9, what + " mean");
        // One Newton step solves a quadratic; the second iteration only confirms it.
        EXPECT_LE(fit.iterations, 2) << what;
      }
      expect_relative(fit.posterior.covariance, exact.covariance, 1e-9, what + " covariance");
    }
  }
}

// ---- Laplace on logistic and Poisson regression (T36) ----

/// Checks the defining properties of a Laplace fit: grad lj_w = 0 at the mode (relative to the
/// size of the terms that cancel in it), and covariance = (-grad^2 lj_w)^{-1} there, symmetric
/// positive definite.
void expect_laplace_properties(const Model& model, const Coreset* weights, const LaplaceFit& fit,
                               const std::string& what) {
  const Eigen::VectorXd& mode = fit.posterior.mean;
  ASSERT_TRUE(mode.allFinite()) << what;
  Eigen::VectorXd gradient;
  Eigen::MatrixXd negative_hessian;
  models::log_joint(model, weights, mode, &gradient, &negative_hessian);
  double scale = (model.prior_precision * mode).norm();
  const index_t k = weights ? weights->size() : model.rows();
  for (index_t p = 0; p < k; ++p) {
    const auto q = static_cast<std::size_t>(p);
    const index_t n = weights ? weights->indices[q] : p;
    Eigen::VectorXd g;
    models::log_likelihood(model, n, mode, &g);
    scale += (weights ? weights->weights[q] : 1.0) * g.norm();
  }
  EXPECT_LT(gradient.norm(), 1e-8 * std::max(1.0, scale)) << what << " scale " << scale;
  EXPECT_NEAR(fit.gradient_norm, gradient.norm(), 1e-12 * std::max(1.0, scale)) << what;
  const Eigen::MatrixXd& covariance = fit.posterior.covariance;
  EXPECT_TRUE(is_symmetric_positive_definite(covariance)) << what;
  const Eigen::Index d = model.dim();
  EXPECT_LE((covariance * negative_hessian - Eigen::MatrixXd::Identity(d, d)).norm(), 1e-9) << what;
}

TEST(Laplace, LogisticModeHasZeroGradientAndInverseHessianCovariance) {
  const Model model = logistic_model(500, 21);
  std::mt19937_64 rng(22);
  const Coreset coreset = random_coreset(500, 25, rng);
  for (const WeightCase& c : {WeightCase{"full data", nullptr}, WeightCase{"coreset", &coreset}}) {
    const LaplaceFit fit = laplace(model, c.weights);
    expect_laplace_properties(model, c.weights, fit, "logistic, " + c.name);
    EXPECT_LE(fit.iterations, 20) << c.name;  // Newton, not a first-order crawl
  }
  // The full-data mode recovers the direction of the generating theta = [3, 3, 0].
  const Eigen::VectorXd mode = laplace(model, nullptr).posterior.mean;
  EXPECT_GT(mode[0], 1.0);
  EXPECT_GT(mode[1], 1.0);
  EXPECT_LT(std::abs(mode[2]), 1.0);
}

TEST(Laplace, PoissonModeHasZeroGradientAndInverseHessianCovariance) {
  std::mt19937_64 rng(31);
  for (const Eigen::Vector2d& truth : {Eigen::Vector2d(1.0, 0.0), Eigen::Vector2d(2.0, 4.0)}) {
    const Model model = poisson_model(500, truth, 32);
    const Coreset coreset = random_coreset(500, 25, rng);
    for (const WeightCase& c :
         {WeightCase{"full data", nullptr}, WeightCase{"coreset", &coreset}}) {
      const LaplaceFit fit = laplace(model, c.weights);
      expect_laplace_properties(model, c.weights, fit, "poisson, " + c.name);
    }
  }
}

TEST(Laplace, EmptyCoresetGivesExactlyThePrior) {
  Model model = logistic_model(50, 41);
  // A diagonal of powers of 4: its Cholesky factor and inverse are exact in binary, so "exactly
  // the prior" can be tested with ==.
  model.prior_precision = Eigen::Vector3d(4.0, 0.25, 16.0).asDiagonal();
  const Coreset empty;
  const Coreset zero_weights{{1, 5, 9}, {0.0, 0.0, 0.0}};
  for (const Coreset* weights : {&empty, &zero_weights}) {
    const LaplaceFit fit = laplace(model, weights);
    EXPECT_EQ(fit.posterior.mean, Eigen::VectorXd::Zero(3));
    const Eigen::MatrixXd prior_covariance = Eigen::Vector3d(0.25, 4.0, 0.0625).asDiagonal();
    EXPECT_EQ(fit.posterior.covariance, prior_covariance);
    EXPECT_EQ(fit.iterations, 0);
    EXPECT_EQ(fit.gradient_norm, 0.0);
  }
  // A general prior covariance, to round-off.
  std::mt19937_64 rng(42);
  const Eigen::MatrixXd prior_covariance = random_spd(3, rng);
  model.prior_precision = prior_covariance.inverse();
  const LaplaceFit fit = laplace(model, &empty);
  EXPECT_EQ(fit.posterior.mean, Eigen::VectorXd::Zero(3));
  expect_relative(fit.posterior.covariance, prior_covariance, 1e-12, "prior covariance");
}

/// Perfectly separable data: y = sign(x_1) with |x_1| >= 0.5. The likelihood alone has no
/// maximiser (it increases without bound along theta_1), so only the prior keeps the mode finite.
Model separable_model(double prior_precision) {
  Model model = logistic_model(200, 51);
  Eigen::MatrixXd covariates = model.design.stored();
  for (Eigen::Index i = 0; i < model.rows(); ++i) {
    double& x = covariates(i, 0);
    x = x >= 0.0 ? x + 0.5 : x - 0.5;
    model.response[i] = x > 0.0 ? 1.0 : -1.0;
  }
  model.design = models::Design(std::move(covariates), true);
  model.prior_precision = prior_precision * Eigen::MatrixXd::Identity(3, 3);
  return model;
}

TEST(Laplace, SeparableLogisticDataConvergesBecauseOfThePrior) {
  double previous_norm = 0.0;
  for (const double precision : {1.0, 1e-2, 1e-4}) {
    const Model model = separable_model(precision);
    const LaplaceFit fit = laplace(model, nullptr);
    const std::string what = "prior precision " + std::to_string(precision);
    expect_laplace_properties(model, nullptr, fit, what);
    EXPECT_GT(fit.posterior.mean[0], 0.0) << what;
    // A weaker prior lets the mode run further along the separating direction.
    EXPECT_GT(fit.posterior.mean.norm(), previous_norm) << what;
    previous_norm = fit.posterior.mean.norm();
  }
}

TEST(Laplace, IterationCapThrowsNumericalErrorSayingDidNotConverge) {
  const Model model = separable_model(1e-4);
  LaplaceOptions options;
  options.max_iterations = 1;
  try {
    laplace(model, nullptr, options);
    FAIL() << "no exception";
  } catch (const NumericalError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("did not converge"), std::string::npos) << message;
    EXPECT_NE(message.find("1 iterations"), std::string::npos) << message;
    EXPECT_NE(message.find("gradient norm"), std::string::npos) << message;
  }
}

TEST(Laplace, IndefinitePriorThrowsNumericalError) {
  Model model = logistic_model(20, 61);
  model.prior_precision = -Eigen::MatrixXd::Identity(3, 3);
  const Coreset empty;
  try {
    laplace(model, &empty);
    FAIL() << "no exception";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
  }
}

TEST(Laplace, RejectsInvalidOptions) {
  const Model model = logistic_model(20, 71);
  LaplaceOptions options;
  options.max_iterations = 0;
  EXPECT_THROW(laplace(model, nullptr, options), InvalidArgument);
  options = LaplaceOptions{};
  options.decrement_tolerance = -1.0;
  EXPECT_THROW(laplace(model, nullptr, options), InvalidArgument);
  options.decrement_tolerance = std::nan("");
  EXPECT_THROW(laplace(model, nullptr, options), InvalidArgument);
  const Coreset out_of_range{{0, 20}, {1.0, 1.0}};
  EXPECT_THROW(laplace(model, &out_of_range), InvalidArgument);
}

TEST(Laplace, ToleranceZeroStillReturnsTheModeAtRoundOff) {
  // With no tolerance Newton runs until round-off stops the line search; that must be reported
  // as convergence, not as a failure.
  const Model model = logistic_model(300, 81);
  LaplaceOptions options;
  options.decrement_tolerance = 0.0;
  const LaplaceFit fit = laplace(model, nullptr, options);
  expect_laplace_properties(model, nullptr, fit, "tolerance 0");
}

}  // namespace
}  // namespace coreset::posterior
