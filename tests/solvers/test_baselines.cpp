// The baseline constructions giga, fw, is and uniform (spec 2.8-2.11) against the properties of
// spec 6.3 and 6.4: GIGA's and Frank-Wolfe's steps recomputed independently from the spec's
// formulas (dense Eigen, every quantity from Phi itself), importance sampling's and uniform
// sampling's unbiasedness over many seeds, and the invariants, precisions, thread counts and
// degenerate inputs every solver must handle.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "cpu/cpu_backend.hpp"
#include "helpers/error_message.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/solver_cases.hpp"
#include "solvers/baselines/frank_wolfe.hpp"
#include "solvers/baselines/giga.hpp"

namespace coreset {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr Algorithm kBaselines[] = {Algorithm::giga, Algorithm::frank_wolfe,
                                    Algorithm::importance_sampling, Algorithm::uniform};
constexpr Algorithm kGreedy[] = {Algorithm::giga, Algorithm::frank_wolfe};

SolverOptions options_for(Algorithm algorithm, index_t k, std::uint64_t seed = 0) {
  SolverOptions options = test::solver_options(algorithm, k);
  options.seed = seed;
  return options;
}

MatrixXd to_eigen(const Matrix<double>& phi) {
  return Eigen::Map<const MatrixXd>(phi.data(), phi.rows(), phi.cols());
}

VectorXd dense(const Coreset& c, index_t n) {
  VectorXd w = VectorXd::Zero(n);
  for (std::size_t p = 0; p < c.indices.size(); ++p) {
    w[c.indices[p]] = c.weights[p];
  }
  return w;
}

std::vector<double> column_sums(const Matrix<double>& phi) {
  const VectorXd y = to_eigen(phi).rowwise().sum();
  return {y.data(), y.data() + y.size()};
}

// Columns of uneven norms (so importance sampling differs from uniform sampling).
Matrix<double> uneven_matrix(index_t rows, index_t cols, std::uint64_t seed) {
  Matrix<double> phi = test::gaussian_matrix(rows, cols, seed);
  for (index_t j = 0; j < cols; ++j) {
    const double scale = 0.5 + static_cast<double>(j % 5);
    std::for_each(phi.column(j), phi.column(j) + rows, [&](double& v) { v *= scale; });
  }
  return phi;
}

void expect_valid(const SolveResult& result, index_t k, index_t n, const std::string& what) {
  const Coreset& c = result.coreset;
  ASSERT_EQ(c.indices.size(), c.weights.size()) << what;
  EXPECT_LE(c.size(), std::min(k, n)) << what;
  EXPECT_TRUE(std::is_sorted(c.indices.begin(), c.indices.end())) << what;
  EXPECT_EQ(std::adjacent_find(c.indices.begin(), c.indices.end()), c.indices.end()) << what;
  for (std::size_t p = 0; p < c.indices.size(); ++p) {
    EXPECT_GE(c.indices[p], 0) << what;
    EXPECT_LT(c.indices[p], n) << what;
    EXPECT_GT(c.weights[p], 0.0) << what;
    EXPECT_TRUE(std::isfinite(c.weights[p])) << what;
  }
  EXPECT_TRUE(std::isfinite(result.objective)) << what;
  EXPECT_TRUE(std::isfinite(result.relative_error)) << what;
  EXPECT_EQ(static_cast<int>(result.objective_history.size()), result.iterations) << what;
  EXPECT_TRUE(result.converged) << what;
  EXPECT_EQ(result.k, k) << what;
}

// ---- GIGA (spec 2.8, 6.3) ----

// ell(w) for weights v on the columns of Phi, and the spec's normalisation u/||u|| with 0/0 = 0.
VectorXd normalised(const VectorXd& u) {
  const double norm = u.norm();
  return norm > 0.0 ? VectorXd(u / norm) : VectorXd::Zero(u.size());
}

// Every step of GIGA recomputed from spec 2.8 lines 5-11 with the eq. 25/26 update: the choice
// is the argmax of <d_t, d_tn>, gamma_t maximises <ell, ell(w_{t+1})> over [0, 1] (T12, eq. 19),
// the one-step identity J_{t+1} = J_t (1 - <d_t, d_tn_t>^2) holds (T15), <ell(w_t), ell> rises
// from at least ||L|| / sigma (T13, T14), J_t stays under the sublinear envelope (T17), the
// history is ||y||^2 J_t (T15), and the returned scaling is optimal (T18) with relative error
// at most eta (T16).
TEST(Giga, EveryStepFollowsTheGeometryOfTheSpec) {
  for (const std::uint64_t seed : {1u, 2u}) {
    const Matrix<double> phi = uneven_matrix(30, 120, seed);
    const std::vector<double> y = column_sums(phi);
    const MatrixXd L = to_eigen(phi);
    const VectorXd target = Eigen::Map<const VectorXd>(y.data(), 30);
    const index_t n = L.cols();
    VectorXd sigma_n(n);
    MatrixXd ell_n(L.rows(), n);
    for (index_t j = 0; j < n; ++j) {
      sigma_n[j] = L.col(j).norm();
      ell_n.col(j) = L.col(j) / sigma_n[j];
    }
    const double sigma = sigma_n.sum();
    const VectorXd ell = target / target.norm();

    cpu::CpuBackend<double> backend(phi.view(), 1);
    std::vector<solvers::GreedyStep> steps;
    const SolveResult result =
        solvers::run_giga(backend, y, options_for(Algorithm::giga, 25),
                          [&](const solvers::GreedyStep& step) { steps.push_back(step); });
    ASSERT_EQ(result.stop_reason, StopReason::budget);
    ASSERT_EQ(result.iterations, 25);
    ASSERT_EQ(steps.size(), 25u);

    VectorXd ell_w = VectorXd::Zero(L.rows());  // ell(w_0) = 0
    double J = 1.0;
    double J1 = 0.0;
    double alignment = 0.0;
    for (std::size_t t = 0; t < steps.size(); ++t) {
      const solvers::GreedyStep& step = steps[t];
      SCOPED_TRACE("seed " + std::to_string(seed) + " step " + std::to_string(t));
      EXPECT_EQ(step.iteration, static_cast<int>(t + 1));
      // Lines 5-7: d_t, d_tn and the best geodesic, computed literally.
      const VectorXd d = normalised(ell - ell.dot(ell_w) * ell_w);
      VectorXd scores(n);
      for (index_t j = 0; j < n; ++j) {
        scores[j] = d.dot(normalised(ell_n.col(j) - ell_n.col(j).dot(ell_w) * ell_w));
      }
      const index_t chosen = step.chosen;
      EXPECT_GE(scores[chosen], scores.maxCoeff() - 1e-10);
      EXPECT_NEAR(step.score, scores[chosen], 1e-10);
      // T12 and eq. 19: gamma in [0, 1] maximises <ell, ell(w_{t+1})> on the geodesic.
      EXPECT_GE(step.step, 0.0);
      EXPECT_LE(step.step, 1.0);
      auto along = [&](double gamma) {
        return normalised(ell_w + gamma * (ell_n.col(chosen) - ell_w));
      };
      const double best = ell.dot(along(step.step));
      for (int g = 0; g <= 200; ++g) {
        EXPECT_LE(ell.dot(along(g / 200.0)), best + 1e-12) << "gamma " << g / 200.0;
      }
      // Eq. 25/26: ell(w_{t+1}) = Phi v_{t+1} is the normalised geodesic point, of norm 1.
      const VectorXd next = L * dense(step.weights, n);
      EXPECT_NEAR(next.norm(), 1.0, 1e-12);
      EXPECT_LE((next - along(step.step)).norm(), 1e-12);
      // T15: the exact one-step decrease of J_t = 1 - <ell(w_t), ell>^2.
      const double J_next = 1.0 - std::pow(next.dot(ell), 2);
      EXPECT_NEAR(J_next, J * (1.0 - step.score * step.score), 1e-12 + 1e-9 * J);
      // T14: <ell(w_t), ell> never falls; T13: it starts at least at ||L|| / sigma.
      EXPECT_GE(next.dot(ell), alignment - 1e-14);
      alignment = next.dot(ell);
      if (t == 0) {
        EXPECT_GE(alignment, target.norm() / sigma);
        J1 = J_next;
      }
      // T17: J_t <= J_1 / (1 + (||L|| / sigma)^2 J_1 (t - 1)).
      const double tau = target.norm() / sigma;
      EXPECT_LE(J_next, J1 / (1.0 + tau * tau * J1 * static_cast<double>(t)) * (1 + 1e-9));
      // T15: ||L||^2 J_t = ||alpha* L(w_t) - L||^2, the objective after the optimal scaling.
      EXPECT_NEAR(result.objective_history[t], target.squaredNorm() * J_next,
                  1e-9 * target.squaredNorm() * J_next);
      ell_w = next;
      J = J_next;
    }
    // Line 13: w = ||y|| <ell(w), ell> v; T18: alpha = 1 minimises ||alpha Phi w - y||^2.
    const VectorXd w = dense(result.coreset, n);
    const VectorXd v = dense(steps.back().weights, n);
    EXPECT_LE((w - target.norm() * ell_w.dot(ell) * v).norm(), 1e-12 * w.norm());
    const VectorXd fit = L * w;
    EXPECT_NEAR(fit.dot(target - fit), 0.0, 1e-10 * target.squaredNorm());
    EXPECT_NEAR(result.objective, (target - fit).squaredNorm(), 1e-10 * target.squaredNorm());
    // T16: relative error <= eta = sqrt(1 - max_n <ell_n, ell>^2) <= 1.
    const double eta = std::sqrt(1.0 - std::pow((ell_n.transpose() * ell).maxCoeff(), 2));
    EXPECT_LE(result.relative_error, eta + 1e-12);
  }
}

// y in the cone of two columns: step 1 picks one, step 2's geodesic passes through ell and the
// line search stops on it (J_2 = 0); step 3 finds ||d_3|| = 0 and stops cleanly.
TEST(Giga, StopsCleanlyOnAnExactFit) {
  const Matrix<double> phi = test::gaussian_matrix(30, 50, 3);
  std::vector<double> y(30);
  for (index_t i = 0; i < 30; ++i) {
    y[i] = 2.0 * phi(i, 3) + phi(i, 7);
  }
  const SolveResult result = solve(phi.view(), y.data(), options_for(Algorithm::giga, 10));
  EXPECT_EQ(result.stop_reason, StopReason::stationary);
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.iterations, 2);
  ASSERT_EQ(result.coreset.indices, (std::vector<index_t>{3, 7}));
  EXPECT_NEAR(result.coreset.weights[0], 2.0, 1e-9);
  EXPECT_NEAR(result.coreset.weights[1], 1.0, 1e-9);
  EXPECT_LT(result.relative_error, 1e-9);
}

// ---- Frank-Wolfe (spec 2.10, 6.4) ----

// Every step recomputed from [HIL] Algorithm 2: the vertex is argmax <y - Phi w, Phi_n> / sigma_n,
// gamma_t is in [0, 1] (Lemma 4.3, unclamped because y = Phi 1), the objective after the step is
// the closed-form minimum along the segment and equals f(w_t) - <q, r>^2 / ||q||^2 (eq. A.51),
// every iterate is feasible (w >= 0, sum sigma_n w_n = sigma) (T24), and the error bound
// ||y - Phi w|| <= sigma etabar / sqrt(M) holds after every M (T25).
TEST(FrankWolfe, EveryStepIsTheExactLineSearchToTheBestVertex) {
  for (const std::uint64_t seed : {4u, 5u}) {
    const Matrix<double> phi = uneven_matrix(30, 120, seed);
    const std::vector<double> y = column_sums(phi);
    const MatrixXd L = to_eigen(phi);
    const VectorXd target = Eigen::Map<const VectorXd>(y.data(), 30);
    const index_t n = L.cols();
    VectorXd sigma_n(n);
    for (index_t j = 0; j < n; ++j) {
      sigma_n[j] = L.col(j).norm();
    }
    const double sigma = sigma_n.sum();
    double etabar_sq = 0.0;
    for (index_t a = 0; a < n; ++a) {
      for (index_t b = 0; b < a; ++b) {
        etabar_sq =
            std::max(etabar_sq, (L.col(a) / sigma_n[a] - L.col(b) / sigma_n[b]).squaredNorm());
      }
    }

    cpu::CpuBackend<double> backend(phi.view(), 1);
    std::vector<solvers::GreedyStep> steps;
    const SolveResult result =
        solvers::run_frank_wolfe(backend, y, options_for(Algorithm::frank_wolfe, 25),
                                 [&](const solvers::GreedyStep& step) { steps.push_back(step); });
    ASSERT_EQ(result.stop_reason, StopReason::budget);
    ASSERT_EQ(steps.size(), 25u);

    VectorXd w = VectorXd::Zero(n);
    for (std::size_t t = 0; t < steps.size(); ++t) {
      const solvers::GreedyStep& step = steps[t];
      SCOPED_TRACE("seed " + std::to_string(seed) + " step " + std::to_string(t));
      const VectorXd r = target - L * w;
      const VectorXd scores = (L.transpose() * r).cwiseQuotient(sigma_n);
      const index_t f = step.chosen;
      EXPECT_GE(scores[f], scores.maxCoeff() - 1e-10 * scores.cwiseAbs().maxCoeff());
      EXPECT_NEAR(step.score, scores[f], 1e-10 * scores.cwiseAbs().maxCoeff());
      VectorXd vertex = VectorXd::Zero(n);
      vertex[f] = sigma / sigma_n[f];
      const VectorXd next = dense(step.weights, n);
      const double f_next = (target - L * next).squaredNorm();
      if (t == 0) {
        EXPECT_EQ(step.step, 1.0);
        EXPECT_LE((next - vertex).norm(), 1e-12 * vertex.norm());
      } else {
        const VectorXd q = L * (vertex - w);
        const double unconstrained = q.dot(r) / q.squaredNorm();
        EXPECT_GE(unconstrained, -1e-12);  // Lemma 4.3
        EXPECT_LE(unconstrained, 1.0 + 1e-12);
        EXPECT_GE(step.step, 0.0);
        EXPECT_LE(step.step, 1.0);
        EXPECT_NEAR(step.step, std::clamp(unconstrained, 0.0, 1.0), 1e-10);
        const double f_before = r.squaredNorm();
        EXPECT_NEAR(f_next, f_before - std::pow(q.dot(r), 2) / q.squaredNorm(), 1e-10 * f_before);
        for (int g = 0; g <= 100; ++g) {
          EXPECT_LE(f_next, (r - (g / 100.0) * q).squaredNorm() * (1 + 1e-12));
        }
        EXPECT_LE((next - ((1 - step.step) * w + step.step * vertex)).norm(), 1e-12 * next.norm());
      }
      EXPECT_GE(next.minCoeff(), 0.0);
      EXPECT_NEAR(sigma_n.dot(next), sigma, 1e-12 * sigma);
      EXPECT_NEAR(result.objective_history[t], f_next, 1e-10 * f_next);
      EXPECT_LE(std::sqrt(f_next), sigma * std::sqrt(etabar_sq) / std::sqrt(t + 1.0));
      if (t > 0) {
        EXPECT_LE(result.objective_history[t], result.objective_history[t - 1] * (1 + 1e-12));
      }
      w = next;
    }
    EXPECT_LE((dense(result.coreset, n) - w).norm(), 1e-15 * w.norm());
  }
}

// ---- Importance and uniform sampling (spec 2.9, 2.11, 6.4) ----

// Mean and sample standard deviation of each row of `samples` (one column per seed).
struct Moments {
  VectorXd mean;
  VectorXd sd;
};
Moments moments(const MatrixXd& samples) {
  const double r = static_cast<double>(samples.cols());
  Moments m;
  m.mean = samples.rowwise().mean();
  m.sd = ((samples.colwise() - m.mean).array().square().rowwise().sum() / (r - 1)).sqrt();
  return m;
}

// |mean - expected| within 5 standard errors, the standard error estimated from the sample.
// With R = 4000 draws the CLT holds well; for a correct sampler each check fails with
// probability about 6e-7, so all of them together (fewer than 100) about 1 in 20,000; the seeds
// are fixed, so a run is reproducible either way. A biased sampler (a wrong p_n, weights off by
// a factor, a draw that is lost) moves the mean by far more than 5 standard errors.
void expect_mean(const Moments& m, const VectorXd& expected, double runs, const std::string& what) {
  for (index_t i = 0; i < expected.size(); ++i) {
    const double standard_error = m.sd[i] / std::sqrt(runs);
    EXPECT_LE(std::abs(m.mean[i] - expected[i]), 5.0 * standard_error + 1e-12)
        << what << " entry " << i << ": mean " << m.mean[i] << ", expected " << expected[i]
        << ", standard error " << standard_error;
  }
}

// T20 and T21: E[W_n] = 1, E[Phi W] = y = Phi 1, and E||Phi W - y||^2 = (sigma^2 - ||y||^2) / M
// (the identity (1/M)(sum_n ||L_n||^2 / p_n - ||L||^2) at p_n = sigma_n / sigma). A zero column
// is never drawn (p_n = 0), and the estimate does not need it: its W_n is 0.
TEST(ImportanceSampling, IsUnbiasedWithTheExactMeanSquaredError) {
  Matrix<double> phi = uneven_matrix(8, 25, 6);
  std::fill(phi.column(11), phi.column(11) + 8, 0.0);
  const std::vector<double> y = column_sums(phi);
  const MatrixXd L = to_eigen(phi);
  const VectorXd target = Eigen::Map<const VectorXd>(y.data(), 8);
  const double sigma = L.colwise().norm().sum();
  const index_t draws = 10;
  const int runs = 4000;
  MatrixXd fits(8, runs), weights(25, runs), errors(1, runs);
  for (int s = 0; s < runs; ++s) {
    const SolveResult result =
        solve(phi.view(), y.data(), options_for(Algorithm::importance_sampling, draws, 1000 + s));
    const VectorXd w = dense(result.coreset, 25);
    EXPECT_EQ(w[11], 0.0);
    fits.col(s) = L * w;
    weights.col(s) = w;
    errors(0, s) = (L * w - target).squaredNorm();
    EXPECT_NEAR(result.objective, errors(0, s), 1e-10 * (1 + errors(0, s)));
  }
  expect_mean(moments(fits), target, runs, "Phi W");
  VectorXd ones = VectorXd::Ones(25);
  ones[11] = 0.0;
  expect_mean(moments(weights), ones, runs, "W");
  expect_mean(moments(errors),
              VectorXd::Constant(1, (sigma * sigma - target.squaredNorm()) / draws), runs,
              "||Phi W - y||^2");
}

// Spec 2.11: every draw weighs N / M, so the weights sum to N exactly; E[W_n] = 1 and
// E[Phi W] = Phi 1.
TEST(Uniform, WeightsSumToNAndAreUnbiased) {
  const Matrix<double> phi = uneven_matrix(8, 25, 7);
  const std::vector<double> y = column_sums(phi);
  const MatrixXd L = to_eigen(phi);
  const VectorXd target = Eigen::Map<const VectorXd>(y.data(), 8);
  const int runs = 4000;
  MatrixXd fits(8, runs), weights(25, runs);
  for (int s = 0; s < runs; ++s) {
    const SolveResult result =
        solve(phi.view(), y.data(), options_for(Algorithm::uniform, 10, 5000 + s));
    const double total =
        std::accumulate(result.coreset.weights.begin(), result.coreset.weights.end(), 0.0);
    EXPECT_NEAR(total, 25.0, 1e-12);
    for (const double weight : result.coreset.weights) {
      const double count = weight * 10 / 25;  // N count / M
      EXPECT_NEAR(count, std::round(count), 1e-12);
    }
    weights.col(s) = dense(result.coreset, 25);
    fits.col(s) = L * weights.col(s);
  }
  expect_mean(moments(fits), target, runs, "Phi W");
  expect_mean(moments(weights), VectorXd::Ones(25), runs, "W");
}

TEST(Sampling, TheSeedDeterminesTheDraws) {
  const Matrix<double> phi = uneven_matrix(10, 300, 8);
  for (const Algorithm algorithm : {Algorithm::importance_sampling, Algorithm::uniform}) {
    const SolveResult a = solve(phi.view(), nullptr, options_for(algorithm, 40, 11));
    const SolveResult b = solve(phi.view(), nullptr, options_for(algorithm, 40, 11));
    const SolveResult c = solve(phi.view(), nullptr, options_for(algorithm, 40, 12));
    EXPECT_EQ(a.coreset.indices, b.coreset.indices) << to_string(algorithm);
    EXPECT_EQ(a.coreset.weights, b.coreset.weights) << to_string(algorithm);
    EXPECT_NE(a.coreset.indices, c.coreset.indices) << to_string(algorithm);
    EXPECT_EQ(a.iterations, 1);
    EXPECT_EQ(a.stop_reason, StopReason::budget);
  }
}

// ---- every baseline ----

TEST(Baselines, ValidCoresetsForEveryBudgetInBothPrecisions) {
  const Matrix<double> phi = uneven_matrix(40, 120, 9);
  Matrix<float> phi32(40, 120);
  std::transform(phi.data(), phi.data() + 40 * 120, phi32.data(),
                 [](double v) { return static_cast<float>(v); });
  for (const Algorithm algorithm : kBaselines) {
    for (const index_t k : {1, 7, 40, 500}) {
      const std::string what = to_string(algorithm) + " k=" + std::to_string(k);
      const SolveResult result = solve(phi.view(), nullptr, options_for(algorithm, k));
      expect_valid(result, k, 120, what);
      EXPECT_NEAR(result.objective, objective(phi.view(), nullptr, result.coreset),
                  1e-9 * (1 + result.objective))
          << what;
      const SolveResult single = solve(phi32.view(), nullptr, options_for(algorithm, k));
      expect_valid(single, k, 120, what + " float");
    }
  }
}

// Each greedy step can only lower the (optimally scaled) objective, and the run with budget k is
// a prefix of the run with a larger budget, so f falls with k (T14, T24).
TEST(Baselines, GreedyObjectiveFallsWithTheBudget) {
  const Matrix<double> phi = uneven_matrix(60, 400, 10);
  for (const Algorithm algorithm : kGreedy) {
    double previous = std::numeric_limits<double>::infinity();
    for (const index_t k : {1, 2, 5, 10, 20, 40, 80}) {
      const SolveResult result = solve(phi.view(), nullptr, options_for(algorithm, k));
      EXPECT_LE(result.objective, previous * (1 + 1e-12)) << to_string(algorithm) << " k=" << k;
      if (algorithm == Algorithm::giga) {
        // T16. Frank-Wolfe has no such bound: its polytope fixes sum sigma_n w_n = sigma, and
        // at small k that overshoots y (spec 2.10, [GIGA] sec. 2.2).
        EXPECT_LE(result.relative_error, 1.0) << "k=" << k;
      }
      previous = result.objective;
    }
    EXPECT_LT(previous, 0.5 * test::squared_norm(column_sums(phi))) << to_string(algorithm);
  }
}

TEST(Baselines, FloatAgreesWithDouble) {
  const Matrix<double> phi = uneven_matrix(50, 300, 11);
  Matrix<float> phi32(50, 300);
  std::transform(phi.data(), phi.data() + 50 * 300, phi32.data(),
                 [](double v) { return static_cast<float>(v); });
  for (const Algorithm algorithm : kBaselines) {
    const SolveResult a = solve(phi.view(), nullptr, options_for(algorithm, 12, 3));
    const SolveResult b = solve(phi32.view(), nullptr, options_for(algorithm, 12, 3));
    EXPECT_EQ(a.coreset.indices, b.coreset.indices) << to_string(algorithm);
    EXPECT_EQ(a.iterations, b.iterations) << to_string(algorithm);
    EXPECT_LE(test::coreset_distance(a.coreset, b.coreset), 1e-4 * test::coreset_norm(a.coreset))
        << to_string(algorithm);
    EXPECT_NEAR(b.objective, a.objective, 1e-4 * a.objective) << to_string(algorithm);
  }
}

TEST(Baselines, ResultsDoNotDependOnTheThreadCount) {
  // Above the threading thresholds of the dense passes and of the argmax.
  const Matrix<double> phi = test::gaussian_matrix(20, 70000, 12);
  for (const Algorithm algorithm : kBaselines) {
    SolverOptions options = options_for(algorithm, 15, 4);
    options.threads = 1;
    const SolveResult one = solve(phi.view(), nullptr, options);
    options.threads = 2;
    const SolveResult two = solve(phi.view(), nullptr, options);
    EXPECT_FALSE(one.coreset.indices.empty()) << to_string(algorithm);
    EXPECT_EQ(one.coreset.indices, two.coreset.indices) << to_string(algorithm);
    EXPECT_EQ(one.coreset.weights, two.coreset.weights) << to_string(algorithm);
    EXPECT_EQ(one.objective_history, two.objective_history) << to_string(algorithm);
  }
}

// Forwards to the CPU backend and counts the O(nS) passes and the width of the sparse products.
class CountingBackend : public cpu::CpuBackend<double> {
 public:
  using Base = cpu::CpuBackend<double>;
  using Base::Base;

  void phi_t_times(const SampleVector& r, DatapointVector& out) {
    ++dense_passes;
    Base::phi_t_times(r, out);
  }
  void column_norms(DatapointVector& out) {
    ++norm_passes;
    Base::column_norms(out);
  }
  void phi_times(const SparseDatapointVector& v, SampleVector& out) {
    max_product_columns = std::max(max_product_columns, v.size());
    Base::phi_times(v, out);
  }

  int dense_passes = 0;
  int norm_passes = 0;
  index_t max_product_columns = 0;
};

// The cost stated in the README: one pass for the norms, one dense pass per step (GIGA: the
// first step's pass is <Phi_n, y>, ell(w_0) = 0 needs none), and products over the support only.
TEST(Baselines, GreedyMethodsMakeOneDensePassPerStep) {
  const Matrix<double> phi = uneven_matrix(40, 300, 20);
  const std::vector<double> y = column_sums(phi);
  for (const Algorithm algorithm : kGreedy) {
    CountingBackend backend(phi.view(), 1);
    const SolverOptions options = options_for(algorithm, 30);
    const SolveResult result = algorithm == Algorithm::giga
                                   ? solvers::run_giga(backend, y, options)
                                   : solvers::run_frank_wolfe(backend, y, options);
    ASSERT_EQ(result.iterations, 30) << to_string(algorithm);
    EXPECT_EQ(backend.norm_passes, 1) << to_string(algorithm);
    EXPECT_EQ(backend.dense_passes, 30) << to_string(algorithm);
    EXPECT_LE(backend.max_product_columns, 30) << to_string(algorithm);
    EXPECT_LE(backend.max_product_columns, result.coreset.size() + 1) << to_string(algorithm);
  }
}

// ---- degenerate and bad inputs ----

using test::invalid_argument_message;

TEST(BaselineEdges, BudgetsOutsideTheirDomainAreRefused) {
  const Matrix<double> phi = test::gaussian_matrix(5, 8, 13);
  for (const Algorithm algorithm : kBaselines) {
    for (const index_t k : {index_t{0}, index_t{-2}}) {
      const std::string message =
          invalid_argument_message([&] { solve(phi.view(), nullptr, options_for(algorithm, k)); });
      EXPECT_NE(message.find("k must be at least 1"), std::string::npos) << message;
    }
    const std::string message = invalid_argument_message(
        [&] { solve(phi.view(), nullptr, options_for(algorithm, 2'000'000'000)); });
    EXPECT_NE(message.find("at most 1e9 for " + to_string(algorithm)), std::string::npos)
        << message;
  }
}

// k > n is a legal budget of steps or draws; points are reused, never invented.
TEST(BaselineEdges, BudgetsAboveNReusePoints) {
  const Matrix<double> phi = test::gaussian_matrix(20, 6, 14);
  for (const Algorithm algorithm : kBaselines) {
    const SolveResult result = solve(phi.view(), nullptr, options_for(algorithm, 50));
    expect_valid(result, 50, 6, to_string(algorithm));
    EXPECT_EQ(result.k, 50);
  }
}

TEST(BaselineEdges, ZeroColumnsAreSkippedByEveryMethodThatLooksAtPhi) {
  Matrix<double> phi = test::gaussian_matrix(40, 60, 15);
  for (const index_t j : {0, 7, 59}) {
    std::fill(phi.column(j), phi.column(j) + 40, 0.0);
  }
  for (const Algorithm algorithm : kBaselines) {
    const SolveResult result = solve(phi.view(), nullptr, options_for(algorithm, 30));
    expect_valid(result, 30, 60, to_string(algorithm));
    if (algorithm == Algorithm::uniform) {
      continue;  // uniform sampling ignores the data by design
    }
    for (const index_t j : result.coreset.indices) {
      EXPECT_TRUE(j != 0 && j != 7 && j != 59) << to_string(algorithm) << " chose " << j;
    }
  }
}

TEST(BaselineEdges, ZeroMatrix) {
  const Matrix<double> phi(10, 30);
  const std::vector<double> y(10, 1.0);
  for (const Algorithm algorithm : kBaselines) {
    const SolveResult result = solve(phi.view(), y.data(), options_for(algorithm, 5));
    expect_valid(result, 5, 30, to_string(algorithm));
    EXPECT_DOUBLE_EQ(result.objective, 10.0) << to_string(algorithm);
    if (algorithm != Algorithm::uniform) {
      EXPECT_EQ(result.coreset.size(), 0) << to_string(algorithm);
      EXPECT_EQ(result.iterations, 0) << to_string(algorithm);
      EXPECT_EQ(result.stop_reason, StopReason::stationary) << to_string(algorithm);
    }
  }
}

// Copies of a column tie in every score; the lower index wins, and once chosen its copies are
// parallel to (GIGA) or tie with (FW) it, so only the first copy is ever used.
TEST(BaselineEdges, DuplicateColumnsUseOnlyTheFirstCopy) {
  Matrix<double> phi(25, 12);
  const Matrix<double> base = test::gaussian_matrix(25, 3, 16);
  for (index_t j = 0; j < 12; ++j) {
    std::copy(base.column(j % 3), base.column(j % 3) + 25, phi.column(j));
  }
  for (const Algorithm algorithm : kBaselines) {
    for (const index_t k : {3, 12, 40}) {
      const SolveResult result = solve(phi.view(), nullptr, options_for(algorithm, k));
      expect_valid(result, k, 12, to_string(algorithm));
      if (algorithm == Algorithm::giga || algorithm == Algorithm::frank_wolfe) {
        for (const index_t j : result.coreset.indices) {
          EXPECT_LT(j, 3) << to_string(algorithm) << " k=" << k;
        }
        EXPECT_LT(result.relative_error, 0.9) << to_string(algorithm) << " k=" << k;
      }
    }
  }
}

// y = 0: w = 0 is optimal and the greedy methods return it at once; the samplers estimate Phi 1
// whatever y is, so their coreset is the one they draw for any target.
TEST(BaselineEdges, ZeroTarget) {
  const Matrix<double> phi = test::gaussian_matrix(20, 50, 17);
  const std::vector<double> zero(20, 0.0);
  for (const Algorithm algorithm : kBaselines) {
    const SolveResult result = solve(phi.view(), zero.data(), options_for(algorithm, 5, 2));
    expect_valid(result, 5, 50, to_string(algorithm));
    EXPECT_EQ(result.target_norm, 0.0);
    EXPECT_EQ(result.relative_error, 0.0);
    if (algorithm == Algorithm::giga || algorithm == Algorithm::frank_wolfe) {
      EXPECT_EQ(result.coreset.size(), 0) << to_string(algorithm);
      EXPECT_EQ(result.objective, 0.0) << to_string(algorithm);
      EXPECT_EQ(result.iterations, 0) << to_string(algorithm);
      EXPECT_EQ(result.stop_reason, StopReason::stationary) << to_string(algorithm);
    } else {
      const SolveResult default_target = solve(phi.view(), nullptr, options_for(algorithm, 5, 2));
      EXPECT_EQ(result.coreset.indices, default_target.coreset.indices);
      EXPECT_EQ(result.coreset.weights, default_target.coreset.weights);
    }
  }
}

// Every column anti-correlated with y: f(w) >= ||y||^2 for all w >= 0, so w = 0.
TEST(BaselineEdges, TargetOutsideTheConeGivesTheEmptyCoreset) {
  Matrix<double> phi = test::gaussian_matrix(30, 40, 18);
  std::vector<double> y(30, 0.0);
  for (index_t i = 0; i < 30; ++i) {
    y[i] = std::sin(1.0 + i);
  }
  for (index_t j = 0; j < 40; ++j) {
    double correlation = 0.0;
    for (index_t i = 0; i < 30; ++i) {
      correlation += phi(i, j) * y[i];
    }
    if (correlation > 0) {
      std::for_each(phi.column(j), phi.column(j) + 30, [](double& v) { v = -v; });
    }
  }
  for (const Algorithm algorithm : kGreedy) {
    const SolveResult result = solve(phi.view(), y.data(), options_for(algorithm, 5));
    expect_valid(result, 5, 40, to_string(algorithm));
    EXPECT_EQ(result.coreset.size(), 0) << to_string(algorithm);
    EXPECT_DOUBLE_EQ(result.relative_error, 1.0) << to_string(algorithm);
    EXPECT_EQ(result.stop_reason, StopReason::stationary) << to_string(algorithm);
  }
}

// One datapoint: y = Phi 1 is the column itself and every method returns w = 1.
TEST(BaselineEdges, SingleColumn) {
  const Matrix<double> column = test::gaussian_matrix(7, 1, 19);
  for (const Algorithm algorithm : kBaselines) {
    for (const index_t k : {1, 4}) {
      const SolveResult result = solve(column.view(), nullptr, options_for(algorithm, k));
      expect_valid(result, k, 1, to_string(algorithm));
      ASSERT_EQ(result.coreset.size(), 1) << to_string(algorithm);
      EXPECT_NEAR(result.coreset.weights[0], 1.0, 1e-12) << to_string(algorithm);
      EXPECT_LT(result.relative_error, 1e-12) << to_string(algorithm);
    }
  }
}

TEST(BaselineNames, RoundTrip) {
  for (const Algorithm a : kBaselines) {
    EXPECT_EQ(parse_algorithm(to_string(a)), a);
    EXPECT_FALSE(is_iht_family(a));
  }
  EXPECT_EQ(to_string(Algorithm::giga), "giga");
  EXPECT_EQ(to_string(Algorithm::frank_wolfe), "fw");
  EXPECT_EQ(to_string(Algorithm::importance_sampling), "is");
  EXPECT_EQ(to_string(Algorithm::uniform), "uniform");
  EXPECT_EQ(to_string(StopReason::budget), "budget");
  EXPECT_TRUE(is_iht_family(Algorithm::aiht2));
}

}  // namespace
}  // namespace coreset
