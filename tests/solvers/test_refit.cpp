// The final refit (SolverOptions::refit): the NNLS solver against brute force over every active
// set, f never rising for any algorithm, the KKT conditions of NNLS at the refit weights, and
// exact recovery of planted weights on the true support.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "coreset/solver.hpp"
#include "cpu/cpu_backend.hpp"
#include "helpers/random_problem.hpp"
#include "solvers/nnls.hpp"
#include "solvers/refit.hpp"

namespace coreset {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr Algorithm kEveryAlgorithm[] = {Algorithm::iht,         Algorithm::aiht,
                                         Algorithm::aiht2,       Algorithm::giga,
                                         Algorithm::frank_wolfe, Algorithm::importance_sampling,
                                         Algorithm::uniform};

MatrixXd to_eigen(const Matrix<double>& phi) {
  return Eigen::Map<const MatrixXd>(phi.data(), phi.rows(), phi.cols());
}

// min ||y - A x||^2 over x >= 0 by enumeration: the optimum is the least-squares solution on
// some support P with every entry >= 0, and every such candidate is feasible.
double brute_force_nnls(const MatrixXd& a, const VectorXd& y) {
  const int m = static_cast<int>(a.cols());
  double best = y.squaredNorm();
  for (int mask = 1; mask < (1 << m); ++mask) {
    std::vector<int> cols;
    for (int j = 0; j < m; ++j) {
      if (mask & (1 << j)) {
        cols.push_back(j);
      }
    }
    MatrixXd sub(a.rows(), static_cast<Eigen::Index>(cols.size()));
    for (std::size_t p = 0; p < cols.size(); ++p) {
      sub.col(static_cast<Eigen::Index>(p)) = a.col(cols[p]);
    }
    const VectorXd z = sub.completeOrthogonalDecomposition().solve(y);
    if (z.minCoeff() >= 0.0) {
      best = std::min(best, (y - sub * z).squaredNorm());
    }
  }
  return best;
}

// KKT of NNLS at x (gradient g = -2 A^T (y - A x)): g_j >= -tol where x_j = 0, |g_j| <= tol
// where x_j > 0, with tol relative to the column and the target.
void expect_kkt(const MatrixXd& a, const VectorXd& y, const VectorXd& x, const std::string& what) {
  const VectorXd gradient = -2.0 * a.transpose() * (y - a * x);
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    const double tol = 1e-8 * a.col(j).norm() * std::max(1.0, y.norm());
    EXPECT_GE(x[j], 0.0) << what << " entry " << j;
    if (x[j] > 0.0) {
      EXPECT_LE(std::abs(gradient[j]), tol) << what << " entry " << j;
    } else {
      EXPECT_GE(gradient[j], -tol) << what << " entry " << j;
    }
  }
}

TEST(Nnls, MatchesBruteForceFromAnyFeasibleStart) {
  std::mt19937_64 generator(1);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Index rows = 2 + trial % 9;  // some with fewer rows than columns
    const Eigen::Index cols = 1 + trial % 7;
    MatrixXd a(rows, cols);
    for (Eigen::Index i = 0; i < a.size(); ++i) {
      a.data()[i] = normal(generator);
    }
    if (trial % 5 == 0 && cols > 2) {
      a.col(2) = a.col(0);  // a duplicate column
    }
    if (trial % 7 == 0) {
      a.col(cols - 1).setZero();  // a zero column
    }
    VectorXd y(rows);
    for (Eigen::Index i = 0; i < rows; ++i) {
      y[i] = normal(generator);
    }
    VectorXd start = VectorXd::Zero(cols);
    if (trial % 2 == 1) {
      for (Eigen::Index j = 0; j < cols; ++j) {
        start[j] = std::abs(normal(generator));
      }
    }
    const solvers::NnlsResult fit = solvers::nnls(a, y, start);
    const std::string what = "trial " + std::to_string(trial);
    EXPECT_TRUE(fit.optimal) << what;
    const double f = (y - a * fit.x).squaredNorm();
    EXPECT_NEAR(f, brute_force_nnls(a, y), 1e-9 * (1.0 + y.squaredNorm())) << what;
    EXPECT_LE(f, (y - a * start).squaredNorm() * (1 + 1e-12) + 1e-300) << what;
    expect_kkt(a, y, fit.x, what);
  }
}

// For every algorithm: the refit keeps a subset of the support, f does not rise, the reported
// objectives are f before and after, and the weights satisfy the KKT conditions of NNLS on the
// algorithm's support (in double and in float).
TEST(Refit, NeverRaisesTheObjectiveAndSatisfiesKktForEveryAlgorithm) {
  const Matrix<double> phi = test::gaussian_matrix(60, 400, 3);
  Matrix<float> phi32(60, 400);
  std::transform(phi.data(), phi.data() + 60 * 400, phi32.data(),
                 [](double v) { return static_cast<float>(v); });
  const MatrixXd a_all = to_eigen(phi);
  const VectorXd y = a_all.rowwise().sum();
  for (const Algorithm algorithm : kEveryAlgorithm) {
    for (const index_t k : {1, 7, 25}) {
      const std::string what = to_string(algorithm) + " k=" + std::to_string(k);
      SolverOptions options;
      options.algorithm = algorithm;
      options.k = k;
      options.seed = 5;
      const SolveResult plain = solve(phi.view(), nullptr, options);
      EXPECT_EQ(plain.objective_before_refit, plain.objective) << what;
      options.refit = true;
      const SolveResult refit = solve(phi.view(), nullptr, options);
      EXPECT_NEAR(refit.objective_before_refit, plain.objective, 1e-10 * plain.objective) << what;
      EXPECT_LE(refit.objective, refit.objective_before_refit) << what;
      EXPECT_NEAR(refit.objective, objective(phi.view(), nullptr, refit.coreset),
                  1e-10 * (1 + refit.objective))
          << what;
      EXPECT_NEAR(refit.relative_error, std::sqrt(refit.objective) / refit.target_norm, 1e-12)
          << what;
      EXPECT_EQ(refit.objective_history, plain.objective_history) << what;
      EXPECT_TRUE(std::includes(plain.coreset.indices.begin(), plain.coreset.indices.end(),
                                refit.coreset.indices.begin(), refit.coreset.indices.end()))
          << what;
      // KKT on the algorithm's support T: columns of T, refit weights (0 where dropped).
      const auto& support = plain.coreset.indices;
      MatrixXd a(60, static_cast<Eigen::Index>(support.size()));
      VectorXd x = VectorXd::Zero(a.cols());
      for (std::size_t p = 0; p < support.size(); ++p) {
        a.col(static_cast<Eigen::Index>(p)) = a_all.col(support[p]);
        const auto at =
            std::find(refit.coreset.indices.begin(), refit.coreset.indices.end(), support[p]);
        if (at != refit.coreset.indices.end()) {
          x[static_cast<Eigen::Index>(p)] =
              refit.coreset.weights[static_cast<std::size_t>(at - refit.coreset.indices.begin())];
        }
      }
      expect_kkt(a, y, x, what);
      for (const double w : refit.coreset.weights) {
        EXPECT_GT(w, 0.0) << what;
      }

      options.refit = false;
      const SolveResult plain32 = solve(phi32.view(), nullptr, options);
      options.refit = true;
      const SolveResult refit32 = solve(phi32.view(), nullptr, options);
      EXPECT_LE(refit32.objective, refit32.objective_before_refit) << what << " float";
      EXPECT_NEAR(refit32.objective_before_refit, plain32.objective, 1e-5 * plain32.objective)
          << what << " float";
    }
  }
}

// Refitting on the true support of a planted problem gives the planted weights, from any
// positive start, and through solve() the refit makes an early-stopped solver exact.
TEST(Refit, RecoversThePlantedWeightsOnTheTrueSupport) {
  const auto problem = test::planted_problem(200, 600, 12, 7);
  cpu::CpuBackend<double> backend(problem.phi.view(), 1);
  SolveResult result;
  result.coreset.indices = problem.support;
  result.coreset.weights.assign(problem.support.size(), 1.0);
  result.target_norm = std::sqrt(test::squared_norm(problem.y));
  result.objective = objective(problem.phi.view(), problem.y.data(), result.coreset);
  solvers::refit_on_support(backend, problem.y, result);
  ASSERT_EQ(result.coreset.indices, problem.support);
  for (std::size_t p = 0; p < problem.weights.size(); ++p) {
    EXPECT_NEAR(result.coreset.weights[p], problem.weights[p], 1e-10);
  }
  EXPECT_LT(result.relative_error, 1e-12);
  EXPECT_GT(result.objective_before_refit, 1.0);

  for (const Algorithm algorithm : {Algorithm::aiht, Algorithm::aiht2}) {
    SolverOptions options;
    options.algorithm = algorithm;
    options.k = 12;
    options.max_iterations = 60;
    options.tolerance = 1e-3;  // stops early with the right support but rough weights
    options.refit = true;
    const SolveResult early = solve(problem.phi.view(), problem.y.data(), options);
    ASSERT_EQ(early.coreset.indices, problem.support) << to_string(algorithm);
    EXPECT_GT(early.objective_before_refit, 1e-12) << to_string(algorithm);
    for (std::size_t p = 0; p < problem.weights.size(); ++p) {
      EXPECT_NEAR(early.coreset.weights[p], problem.weights[p], 1e-10) << to_string(algorithm);
    }
  }
}

// With noise the refit on a support whose unconstrained least-squares fit is positive is that
// fit, computed here independently by QR.
TEST(Refit, EqualsTheLeastSquaresFitWhenThatIsPositive) {
  auto problem = test::planted_problem(300, 500, 8, 9);
  std::mt19937_64 generator(4);
  std::normal_distribution<double> noise(0.0, 0.01);
  for (double& v : problem.y) {
    v += noise(generator);
  }
  SolverOptions options;
  options.k = 8;
  options.refit = true;
  const SolveResult result = solve(problem.phi.view(), problem.y.data(), options);
  ASSERT_EQ(result.coreset.indices, problem.support);
  MatrixXd a(300, 8);
  for (int p = 0; p < 8; ++p) {
    a.col(p) = to_eigen(problem.phi).col(problem.support[p]);
  }
  const VectorXd fit = a.householderQr().solve(Eigen::Map<const VectorXd>(problem.y.data(), 300));
  ASSERT_GT(fit.minCoeff(), 0.0);
  for (int p = 0; p < 8; ++p) {
    EXPECT_NEAR(result.coreset.weights[p], fit[p], 1e-10);
  }
}

TEST(Refit, EmptyCoresetsAndDuplicateColumnsEndCleanly) {
  const Matrix<double> phi = test::gaussian_matrix(20, 50, 11);
  const std::vector<double> zero(20, 0.0);
  for (const Algorithm algorithm : kEveryAlgorithm) {
    SolverOptions options;
    options.algorithm = algorithm;
    options.k = 5;
    options.refit = true;
    const SolveResult result = solve(phi.view(), zero.data(), options);
    EXPECT_TRUE(std::isfinite(result.objective)) << to_string(algorithm);
    EXPECT_LE(result.objective, result.objective_before_refit) << to_string(algorithm);
  }
  // Two copies of a column in the support: the least-squares subproblem is singular; the
  // minimum-norm solution shares the weight and f is still the optimum.
  Matrix<double> twins = test::gaussian_matrix(15, 4, 12);
  std::copy(twins.column(0), twins.column(0) + 15, twins.column(1));
  cpu::CpuBackend<double> backend(twins.view(), 1);
  std::vector<double> y(15, 0.0);
  backend.column_sums(y);
  SolveResult result;
  result.coreset.indices = {0, 1, 2, 3};
  result.coreset.weights = {0.5, 0.25, 3.0, 0.1};
  result.target_norm = std::sqrt(test::squared_norm(y));
  result.objective = objective(twins.view(), y.data(), result.coreset);
  solvers::refit_on_support(backend, y, result);
  EXPECT_LT(result.relative_error, 1e-12);
  double twin_total = 0.0;
  for (std::size_t p = 0; p < result.coreset.indices.size(); ++p) {
    EXPECT_TRUE(std::isfinite(result.coreset.weights[p]));
    if (result.coreset.indices[p] < 2) {
      twin_total += result.coreset.weights[p];
    }
  }
  EXPECT_NEAR(twin_total, 2.0, 1e-10);
}

}  // namespace
}  // namespace coreset
