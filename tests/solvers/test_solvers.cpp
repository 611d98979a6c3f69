// The IHT family end to end on problems with known answers (spec 6.2: T5-T10).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "coreset/solver.hpp"
#include "helpers/non_monotone_phi.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/solver_cases.hpp"

namespace coreset {
namespace {

// A problem's Phi or y scaled by `factor`, entry by entry.
Matrix<double> times(Matrix<double> phi, double factor) {
  for (index_t e = 0; e < phi.rows() * phi.cols(); ++e) {
    phi.data()[e] *= factor;
  }
  return phi;
}
std::vector<double> times(std::vector<double> values, double factor) {
  for (double& value : values) {
    value *= factor;
  }
  return values;
}

SolverOptions options_for(Algorithm algorithm, index_t k, StepRule rule = StepRule::exact) {
  SolverOptions options = test::solver_options(algorithm, k);
  options.step_rule = rule;
  options.tolerance = 1e-12;
  options.max_iterations = 300;
  return options;
}

void expect_valid_coreset(const SolveResult& result, index_t k, index_t n) {
  const Coreset& c = result.coreset;
  ASSERT_EQ(c.indices.size(), c.weights.size());
  EXPECT_LE(c.size(), k);
  EXPECT_TRUE(std::is_sorted(c.indices.begin(), c.indices.end()));
  EXPECT_EQ(std::adjacent_find(c.indices.begin(), c.indices.end()), c.indices.end());
  for (std::size_t p = 0; p < c.indices.size(); ++p) {
    EXPECT_GE(c.indices[p], 0);
    EXPECT_LT(c.indices[p], n);
    EXPECT_GT(c.weights[p], 0.0);
    EXPECT_TRUE(std::isfinite(c.weights[p]));
  }
  EXPECT_EQ(static_cast<int>(result.objective_history.size()), result.iterations);
}

class PlantedRecovery : public ::testing::TestWithParam<test::SolverCase> {};

// S >> k and y = Phi w* exactly: the solver must find w* (T5).
TEST_P(PlantedRecovery, RecoversThePlantedSupportAndWeights) {
  const auto [algorithm, rule] = GetParam();
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const auto problem = test::planted_problem(400, 1000, 10, seed);
    const SolveResult result =
        solve(problem.phi.view(), problem.y.data(), options_for(algorithm, 10, rule));
    expect_valid_coreset(result, 10, 1000);
    EXPECT_LT(result.relative_error, 1e-6) << "seed " << seed;
    EXPECT_EQ(result.coreset.indices, problem.support) << "seed " << seed;
    for (std::size_t p = 0; p < problem.weights.size() && p < result.coreset.weights.size(); ++p) {
      EXPECT_NEAR(result.coreset.weights[p], problem.weights[p], 1e-6);
    }
    // The reported objective is f at the returned weights, recomputed independently.
    const double recomputed = objective(problem.phi.view(), problem.y.data(), result.coreset);
    EXPECT_NEAR(result.objective, recomputed, 1e-12 + 1e-9 * recomputed);
    EXPECT_TRUE(result.converged);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryAlgorithmAndRule, PlantedRecovery, test::every_solver_case(),
                         test::solver_case_name);

TEST(Solvers, SinglePrecisionRecoversThePlantedProblemToFloatAccuracy) {
  const auto problem = test::planted_problem(300, 800, 8, 21);
  Matrix<float> phi(300, 800);
  std::transform(problem.phi.data(), problem.phi.data() + 300 * 800, phi.data(),
                 [](double v) { return static_cast<float>(v); });
  std::vector<float> y(problem.y.begin(), problem.y.end());
  SolverOptions options = options_for(Algorithm::aiht2, 8);
  options.tolerance = 1e-6;
  const SolveResult result = solve(phi.view(), y.data(), options);
  expect_valid_coreset(result, 8, 800);
  EXPECT_EQ(result.coreset.indices, problem.support);
  EXPECT_LT(result.relative_error, 1e-4);
}

// Vanilla IHT with the step 1/L majorises f, so f can never go up (T9).
TEST(Solvers, IhtDecreasesTheObjectiveMonotonically) {
  for (const std::uint64_t seed : {4u, 5u}) {
    // A hard, noisy instance: y is not k-sparse-representable, Phi is wide and correlated.
    Matrix<double> phi = test::gaussian_matrix(60, 300, seed);
    for (index_t j = 1; j < 300; ++j) {
      for (index_t i = 0; i < 60; ++i) {
        phi(i, j) += 0.5 * phi(i, j - 1);
      }
    }
    std::vector<double> y(60);
    for (index_t i = 0; i < 60; ++i) {
      for (index_t j = 0; j < 300; ++j) {
        y[i] += phi(i, j);
      }
    }
    SolverOptions options = options_for(Algorithm::iht, 12);
    options.max_iterations = 200;
    options.seed = seed;
    const SolveResult result = solve(phi.view(), y.data(), options);
    EXPECT_GT(result.lipschitz, 0.0);
    const auto& history = result.objective_history;
    ASSERT_GE(history.size(), 2u);
    EXPECT_LT(history.back(), test::squared_norm(y));
    for (std::size_t t = 1; t < history.size(); ++t) {
      EXPECT_LE(history[t], history[t - 1] * (1 + 1e-12)) << "iteration " << t + 1;
    }
  }
}

// The stopping rule (T8): the solver stops at the first t >= 2 with
// ||w_t - w_{t-1}|| <= tol ||w_t||. Runs capped one and two iterations earlier replay w_{t-1}
// and w_{t-2}, because the solver is deterministic.
TEST(Solvers, StopsAtTheFirstIterationWhoseRelativeChangeIsWithinTolerance) {
  const auto problem = test::planted_problem(100, 400, 10, 8);
  for (const Algorithm algorithm : {Algorithm::aiht, Algorithm::aiht2}) {
    SolverOptions options = options_for(algorithm, 10);
    options.tolerance = 1e-3;
    const SolveResult stopped = solve(problem.phi.view(), problem.y.data(), options);
    ASSERT_EQ(stopped.stop_reason, StopReason::tolerance);
    ASSERT_GE(stopped.iterations, 3);
    const int t = stopped.iterations;
    options.max_iterations = t - 1;
    const SolveResult previous = solve(problem.phi.view(), problem.y.data(), options);
    options.max_iterations = t - 2;
    const SolveResult before = solve(problem.phi.view(), problem.y.data(), options);
    EXPECT_EQ(previous.stop_reason, StopReason::max_iterations);
    EXPECT_FALSE(previous.converged);
    EXPECT_LE(test::coreset_distance(stopped.coreset, previous.coreset),
              1e-3 * test::coreset_norm(stopped.coreset));
    EXPECT_GT(test::coreset_distance(previous.coreset, before.coreset),
              1e-3 * test::coreset_norm(previous.coreset));
  }
}

// The first iteration always moves by all of w_1 (w_0 = 0), so even a huge tolerance is only
// tested from the second iteration on.
TEST(Solvers, ToleranceIsTestedFromTheSecondIteration) {
  const auto problem = test::planted_problem(100, 400, 10, 8);
  SolverOptions options = options_for(Algorithm::aiht2, 10);
  options.tolerance = 10.0;
  const SolveResult result = solve(problem.phi.view(), problem.y.data(), options);
  EXPECT_EQ(result.iterations, 2);
  EXPECT_EQ(result.stop_reason, StopReason::tolerance);
}

TEST(Solvers, IterationCapIsReportedAsNotConverged) {
  const auto problem = test::planted_problem(100, 400, 10, 9);
  SolverOptions options = options_for(Algorithm::aiht2, 10);
  options.tolerance = 0.0;
  options.max_iterations = 3;
  const SolveResult result = solve(problem.phi.view(), problem.y.data(), options);
  EXPECT_EQ(result.iterations, 3);
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.stop_reason, StopReason::max_iterations);
}

// Every step size is scale-free, so scaling the data leaves the iterates unchanged (T10).
TEST(Solvers, ScalingPhiAndYLeavesTheCoresetUnchanged) {
  const auto problem = test::planted_problem(80, 300, 15, 10);
  // A k smaller than the planted support: the answer is not trivial.
  SolverOptions options = options_for(Algorithm::aiht2, 8);
  options.max_iterations = 60;
  const SolveResult base = solve(problem.phi.view(), problem.y.data(), options);
  Matrix<double> scaled_phi = problem.phi;
  std::vector<double> scaled_y = problem.y;
  for (index_t e = 0; e < 80 * 300; ++e) {
    scaled_phi.data()[e] *= 1024.0;  // a power of two: the scaling itself is exact
  }
  for (double& v : scaled_y) {
    v *= 1024.0;
  }
  const SolveResult scaled = solve(scaled_phi.view(), scaled_y.data(), options);
  EXPECT_EQ(scaled.coreset.indices, base.coreset.indices);
  EXPECT_LE(test::coreset_distance(scaled.coreset, base.coreset),
            1e-9 * test::coreset_norm(base.coreset));
  EXPECT_NEAR(scaled.relative_error, base.relative_error, 1e-9);
}

TEST(Solvers, PermutingColumnsPermutesTheCoreset) {
  const auto problem = test::planted_problem(120, 200, 6, 12);
  std::vector<index_t> permutation(200);
  std::iota(permutation.begin(), permutation.end(), index_t{0});
  std::reverse(permutation.begin(), permutation.end());
  Matrix<double> permuted(120, 200);
  for (index_t j = 0; j < 200; ++j) {
    std::copy(problem.phi.column(permutation[j]), problem.phi.column(permutation[j]) + 120,
              permuted.column(j));
  }
  const auto options = options_for(Algorithm::aiht2, 6);
  const SolveResult original = solve(problem.phi.view(), problem.y.data(), options);
  const SolveResult moved = solve(permuted.view(), problem.y.data(), options);
  std::vector<index_t> mapped;
  for (const index_t j : moved.coreset.indices) {
    mapped.push_back(permutation[j]);
  }
  std::sort(mapped.begin(), mapped.end());
  EXPECT_EQ(mapped, original.coreset.indices);
  EXPECT_NEAR(moved.objective, original.objective, 1e-12);
}

// k >= n removes the sparsity constraint: non-negative least squares. With y = Phi 1 and more
// rows than columns the unique optimum is w = 1 (T6).
TEST(Solvers, KAtLeastNSolvesNonNegativeLeastSquares) {
  const Matrix<double> phi = test::gaussian_matrix(80, 30, 13);
  for (const index_t k : {30, 31, 1000}) {
    SolverOptions options = options_for(Algorithm::aiht2, k);
    const SolveResult result = solve(phi.view(), nullptr, options);
    EXPECT_EQ(result.k, 30);
    EXPECT_LT(result.relative_error, 1e-6) << "k=" << k;
    ASSERT_EQ(result.coreset.size(), 30);
    for (const double w : result.coreset.weights) {
      EXPECT_NEAR(w, 1.0, 1e-5);
    }
  }
}

TEST(Solvers, ResultsDoNotDependOnTheThreadCount) {
  // Above the threading thresholds of both the dense pass and the selection.
  const Matrix<double> phi = test::gaussian_matrix(20, 70000, 14);
  SolverOptions options = options_for(Algorithm::aiht2, 25);
  options.max_iterations = 40;
  options.threads = 1;
  const SolveResult one = solve(phi.view(), nullptr, options);
  options.threads = 3;
  const SolveResult three = solve(phi.view(), nullptr, options);
  EXPECT_EQ(one.coreset.indices, three.coreset.indices);
  EXPECT_EQ(one.coreset.weights, three.coreset.weights);
  EXPECT_EQ(one.objective_history, three.objective_history);
}

// On a realistic coreset problem (y = Phi 1, k << n) every algorithm makes real progress and
// A-IHT II, the default, is at least as good as the momentum-free baseline.
TEST(Solvers, EveryAlgorithmImprovesOnTheEmptyCoreset) {
  const Matrix<double> phi = test::gaussian_matrix(100, 2000, 15);
  double iht_objective = 0.0;
  double aiht2_objective = 0.0;
  for (const Algorithm algorithm : {Algorithm::iht, Algorithm::aiht, Algorithm::aiht2}) {
    SolverOptions options = options_for(algorithm, 50);
    const SolveResult result = solve(phi.view(), nullptr, options);
    expect_valid_coreset(result, 50, 2000);
    EXPECT_LT(result.relative_error, 0.95) << to_string(algorithm);
    EXPECT_EQ(result.coreset.size(), 50) << to_string(algorithm);
    (algorithm == Algorithm::iht ? iht_objective : aiht2_objective) = result.objective;
  }
  EXPECT_LE(aiht2_objective, iht_objective * (1 + 1e-9));
}

// Phi and y scaled by a power of 2 give the same coreset bit for bit while the arithmetic stays
// in range; far out of it the line search's steps overflow or underflow to 0, and a solve that
// once returned an empty coreset "converged" now says so (NumericalError). An empty coreset that
// is the answer (no column correlates positively with y) is still returned.
TEST(Solvers, AnEmptyCoresetFromStepsOutOfRangeIsANumericalError) {
  const test::PlantedProblem problem = test::planted_problem(20, 50, 5, 7);
  for (const Algorithm algorithm : {Algorithm::iht, Algorithm::aiht, Algorithm::aiht2}) {
    SCOPED_TRACE(to_string(algorithm));
    const SolverOptions options = options_for(algorithm, 5);
    const SolveResult plain = solve(problem.phi.view(), problem.y.data(), options);
    ASSERT_FALSE(plain.coreset.indices.empty());
    const double in_range = std::ldexp(1.0, 40);
    const Matrix<double> phi_in_range = times(problem.phi, in_range);
    const std::vector<double> y_in_range = times(problem.y, in_range);
    const SolveResult same = solve(phi_in_range.view(), y_in_range.data(), options);
    EXPECT_EQ(same.coreset.indices, plain.coreset.indices);
    EXPECT_EQ(same.coreset.weights, plain.coreset.weights);
    for (const double factor : {std::ldexp(1.0, -270), std::ldexp(1.0, 270)}) {
      const Matrix<double> phi = times(problem.phi, factor);
      const std::vector<double> y = times(problem.y, factor);
      if (algorithm == Algorithm::iht) {
        // iht sizes its step by a power iteration and halves it on overshoot: it may get
        // through, and must then be a coreset; or it says why not.
        try {
          EXPECT_FALSE(solve(phi.view(), y.data(), options).coreset.indices.empty());
        } catch (const Error& error) {
          EXPECT_TRUE(dynamic_cast<const NumericalError*>(&error) != nullptr ||
                      dynamic_cast<const InvalidArgument*>(&error) != nullptr)
              << error.what();
        }
        continue;
      }
      try {
        solve(phi.view(), y.data(), options);
        ADD_FAILURE() << "factor " << factor << ": no error";
      } catch (const NumericalError& error) {
        EXPECT_NE(std::string(error.what()).find("correlates positively with y"), std::string::npos)
            << error.what();
      }
    }
  }
  // Every column against y (positive Phi, negative y): w = 0 is the answer.
  Matrix<double> positive(10, 30);
  for (index_t e = 0; e < positive.rows() * positive.cols(); ++e) {
    positive.data()[e] = 1.0 + 0.01 * static_cast<double>(e % 7);
  }
  const std::vector<double> negative(10, -1.0);
  const SolveResult empty =
      solve(positive.view(), negative.data(), options_for(Algorithm::aiht2, 3));
  EXPECT_TRUE(empty.coreset.indices.empty());
}

// Entries so small that ||y||^2 underflows (2^-520: below DBL_MIN, or to exactly 0) once ended
// every solve at an empty coreset reported as exact, relative error 0; and a Phi whose
// lambda_max underflowed (y in range) gave iht an infinite step, blamed on entries "too large".
// Both are now an InvalidArgument saying "too small", from every algorithm. y = 0 itself is no
// error: the empty coreset is its answer.
TEST(Solvers, EntriesWhoseSquaresUnderflowAreRefusedAsTooSmall) {
  const test::PlantedProblem problem = test::planted_problem(20, 50, 5, 7);
  const auto expect_too_small = [](const auto& call, const char* what) {
    try {
      call();
      ADD_FAILURE() << what << ": no error";
    } catch (const InvalidArgument& error) {
      EXPECT_NE(std::string(error.what()).find(what), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("too small"), std::string::npos) << error.what();
    }
  };
  for (const Algorithm algorithm : all_algorithms()) {
    SCOPED_TRACE(to_string(algorithm));
    const SolverOptions options = options_for(algorithm, 5);
    // ||y||^2 subnormal, then exactly 0; at 2^-1063, y itself subnormal
    for (const int exponent : {-520, -540, -600, -1063}) {
      const double factor = std::ldexp(1.0, exponent);
      const Matrix<double> phi = times(problem.phi, factor);
      const std::vector<double> y = times(problem.y, factor);
      expect_too_small([&] { solve(phi.view(), y.data(), options); }, "||y||^2 underflowed");
    }
    const Matrix<double> tiny_phi = times(problem.phi, std::ldexp(1.0, -540));
    const std::vector<double> zero(problem.y.size(), 0.0);
    const SolveResult for_zero = solve(tiny_phi.view(), zero.data(), options);
    if (algorithm != Algorithm::uniform) {  // uniform draws its points without looking at y
      EXPECT_TRUE(for_zero.coreset.indices.empty());
    }
  }
  const Matrix<double> tiny_phi = times(problem.phi, std::ldexp(1.0, -530));
  expect_too_small(
      [&] { solve(tiny_phi.view(), problem.y.data(), options_for(Algorithm::iht, 5)); },
      "lambda_max(Phi^T Phi) underflowed");
}

// A solve that left the empty coreset and came back to it ended by the algorithm's own rule: it
// is returned (no error blaming the scale), with the better iterate in its history, and a
// solve capped at that iteration returns that iterate.
TEST(Solvers, AIhtIIThatComesBackToTheEmptyCoresetReturnsIt) {
  const Matrix<double> phi = test::comes_back_to_empty_phi();
  SolverOptions options = options_for(Algorithm::aiht2, 1);
  const SolveResult last = solve(phi.view(), nullptr, options);
  EXPECT_TRUE(last.coreset.indices.empty());
  ASSERT_FALSE(last.objective_history.empty());
  EXPECT_LT(last.objective_history.front(), 0.1 * last.objective);  // iteration 1 was better
  options.max_iterations = 1;
  const SolveResult first = solve(phi.view(), nullptr, options);
  EXPECT_EQ(first.coreset.indices, (std::vector<index_t>{1}));
  EXPECT_EQ(first.objective, last.objective_history.front());
}

}  // namespace
}  // namespace coreset
