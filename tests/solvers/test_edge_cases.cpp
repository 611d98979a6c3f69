// The edge cases of the issue, for every algorithm, with and without the refit: k larger than n,
// all-zero columns (datapoints whose log-likelihood does not vary), duplicate datapoints, and
// data on which every method returns fewer than k points. Each must end with a valid coreset and
// the right weights, and the pipeline must refuse k > n with a message that says so.
// (test_degenerate.cpp and test_baselines.cpp cover zero targets, targets outside the cone,
// single rows and columns, and some zero and duplicate columns without the refit.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/solver_cases.hpp"

namespace coreset {
namespace {

constexpr Algorithm kEveryAlgorithm[] = {Algorithm::iht,         Algorithm::aiht,
                                         Algorithm::aiht2,       Algorithm::giga,
                                         Algorithm::frank_wolfe, Algorithm::importance_sampling,
                                         Algorithm::uniform};

SolverOptions options_for(Algorithm algorithm, index_t k, bool refit) {
  SolverOptions options = test::solver_options(algorithm, k);
  options.refit = refit;
  options.tolerance = 1e-12;
  options.max_iterations = 2000;
  options.seed = 1;
  return options;
}

std::string label(Algorithm algorithm, index_t k, bool refit) {
  return to_string(algorithm) + " k=" + std::to_string(k) + (refit ? " refit" : "");
}

// A coreset as documented: ascending distinct indices inside Phi, finite positive weights, at
// most min(k, n) points, finite objective that is f at those weights.
void expect_valid(const MatrixView<double> phi, const double* y, const SolveResult& result,
                  index_t k, const std::string& what) {
  const Coreset& c = result.coreset;
  ASSERT_EQ(c.indices.size(), c.weights.size()) << what;
  EXPECT_LE(c.size(), std::min(k, phi.cols)) << what;
  EXPECT_TRUE(std::is_sorted(c.indices.begin(), c.indices.end())) << what;
  EXPECT_EQ(std::adjacent_find(c.indices.begin(), c.indices.end()), c.indices.end()) << what;
  for (std::size_t p = 0; p < c.indices.size(); ++p) {
    EXPECT_GE(c.indices[p], 0) << what;
    EXPECT_LT(c.indices[p], phi.cols) << what;
    EXPECT_GT(c.weights[p], 0.0) << what;
    EXPECT_TRUE(std::isfinite(c.weights[p])) << what;
  }
  ASSERT_TRUE(std::isfinite(result.objective)) << what;
  EXPECT_NEAR(result.objective, objective(phi, y, c), 1e-9 * (1.0 + result.objective)) << what;
  EXPECT_LE(result.objective, result.objective_before_refit) << what;
}

// n columns, `distinct` different ones, column j a copy of column j % distinct.
Matrix<double> with_copies(index_t rows, index_t distinct, index_t copies, std::uint64_t seed) {
  const Matrix<double> base = test::gaussian_matrix(rows, distinct, seed);
  Matrix<double> phi(rows, distinct * copies);
  for (index_t j = 0; j < distinct * copies; ++j) {
    std::copy(base.column(j % distinct), base.column(j % distinct) + rows, phi.column(j));
  }
  return phi;
}

// The total weight the coreset puts on each group of copies (column j in group j % distinct).
std::vector<double> group_totals(const Coreset& c, index_t distinct) {
  std::vector<double> totals(static_cast<std::size_t>(distinct), 0.0);
  for (std::size_t p = 0; p < c.indices.size(); ++p) {
    totals[static_cast<std::size_t>(c.indices[p] % distinct)] += c.weights[p];
  }
  return totals;
}

// ---- k larger than n ----

// More rows than columns and y = Phi 1: the NNLS optimum is w = 1, unique. The IHT family finds
// it for any k >= n (the budget is min(k, n)); every method whose support covers all n columns
// gets it from the refit; every method returns a valid coreset of at most n points, and the
// greedy methods do not run k steps when the fit is exact long before.
TEST(EdgeCases, KLargerThanNGivesValidCoresetsAndTheNnlsWeights) {
  const Matrix<double> phi = test::gaussian_matrix(40, 6, 21);
  for (const Algorithm algorithm : kEveryAlgorithm) {
    // k = 100'000: giga and fw stop on their precision conditions (y = Phi 1 is fitted exactly
    // to rounding) after a few hundred steps, far below their step limit of 1000 + 100 n.
    for (const index_t k : {index_t{6}, index_t{7}, index_t{60}, index_t{100'000}}) {
      for (const bool refit : {false, true}) {
        const std::string what = label(algorithm, k, refit);
        const SolveResult result = solve(phi.view(), nullptr, options_for(algorithm, k, refit));
        expect_valid(phi.view(), nullptr, result, k, what);
        EXPECT_EQ(result.k, is_iht_family(algorithm) ? 6 : k) << what;
        if ((algorithm == Algorithm::giga || algorithm == Algorithm::frank_wolfe) && k > 1000) {
          // Both stop once a step can no longer lower f, not after k rounding-noise steps.
          EXPECT_EQ(result.stop_reason, StopReason::stationary) << what;
          EXPECT_LT(result.iterations, 1000) << what;
        }
        const bool exact = is_iht_family(algorithm) || (refit && result.coreset.size() == 6);
        if (exact) {
          ASSERT_EQ(result.coreset.size(), 6) << what;
          for (const double w : result.coreset.weights) {
            EXPECT_NEAR(w, 1.0, 1e-6) << what;
          }
          EXPECT_LT(result.relative_error, 1e-6) << what;
        }
      }
    }
  }
  // A target y outside the span (not Phi 1): the optimum is not exact, and without their step
  // limit giga and fw took all k steps, lowering f by ever less (k = 1e9: hours and gigabytes of
  // history; k = 200'000, 2 s and 200'000 entries). Now they end at 1000 + 100 n steps, saying
  // so, with a valid coreset.
  const Matrix<double> wide = test::gaussian_matrix(40, 30, 24);
  const Matrix<double> target = test::gaussian_matrix(40, 1, 25);
  for (const Algorithm algorithm : {Algorithm::giga, Algorithm::frank_wolfe}) {
    for (const index_t k : {index_t{3000}, index_t{4000}, index_t{200'000}}) {
      const std::string what = label(algorithm, k, false) + " y outside the span";
      const SolveResult result =
          solve(wide.view(), target.column(0), options_for(algorithm, k, false));
      expect_valid(wide.view(), target.column(0), result, k, what);
      EXPECT_EQ(result.k, k) << what;
      EXPECT_LE(result.iterations, 4000) << what;
      EXPECT_LE(result.objective_history.size(), 4000u) << what;
      EXPECT_EQ(result.stop_reason, k > 4000 ? StopReason::max_iterations : StopReason::budget)
          << what;
      EXPECT_TRUE(std::isfinite(result.objective)) << what;
    }
  }
  // The IHT family's budget has no upper limit: far beyond n it just solves NNLS. (The
  // baselines' k counts steps or draws, up to 1e9, and costs in proportion.)
  for (const Algorithm algorithm : {Algorithm::iht, Algorithm::aiht, Algorithm::aiht2}) {
    const SolveResult huge =
        solve(phi.view(), nullptr, options_for(algorithm, index_t{1} << 60, true));
    EXPECT_EQ(huge.k, 6) << to_string(algorithm);
    EXPECT_LT(huge.relative_error, 1e-6) << to_string(algorithm);
  }
}

// ---- all-zero columns ----

// Datapoints whose log-likelihood is constant have Phi_n = 0: no method but uniform (which
// ignores Phi) ever chooses one, and the refit drops them from uniform's coreset too, since
// they cannot lower f. Also when every column but one is zero, and when all are.
TEST(EdgeCases, ZeroColumnsAreNeverKeptAndNeverBreakAnything) {
  Matrix<double> some = test::gaussian_matrix(30, 40, 22);
  for (index_t j = 0; j < 40; j += 3) {
    std::fill(some.column(j), some.column(j) + 30, 0.0);
  }
  Matrix<double> one(30, 40);
  const Matrix<double> lone = test::gaussian_matrix(30, 1, 23);
  std::copy(lone.column(0), lone.column(0) + 30, one.column(17));
  const Matrix<double> none(30, 40);
  const std::vector<double> target(30, 0.5);  // y = Phi 1 would be 0 for `none`
  for (const Matrix<double>* phi : std::vector<const Matrix<double>*>{&some, &one, &none}) {
    for (const Algorithm algorithm : kEveryAlgorithm) {
      for (const bool refit : {false, true}) {
        for (const index_t k : {5, 40}) {
          const std::string what = label(algorithm, k, refit) + " matrix " +
                                   std::to_string(phi == &some  ? 0
                                                  : phi == &one ? 1
                                                                : 2);
          const double* y = phi == &none ? target.data() : nullptr;
          const SolveResult result = solve(phi->view(), y, options_for(algorithm, k, refit));
          expect_valid(phi->view(), y, result, k, what);
          if (algorithm == Algorithm::uniform && !refit) {
            continue;
          }
          for (const index_t j : result.coreset.indices) {
            EXPECT_NE(std::count(phi->column(j), phi->column(j) + 30, 0.0), 30)
                << what << " kept zero column " << j;
          }
          if (phi == &one && algorithm != Algorithm::uniform) {
            // One informative column, y = Phi 1 = that column: weight 1 on it, f = 0 (uniform
            // may not draw it at all).
            ASSERT_EQ(result.coreset.indices, std::vector<index_t>{17}) << what;
            EXPECT_NEAR(result.coreset.weights[0], 1.0, 1e-9) << what;
          }
          if (phi == &none) {
            EXPECT_EQ(result.coreset.size(), 0) << what;
            EXPECT_DOUBLE_EQ(result.relative_error, 1.0) << what;
          }
        }
      }
    }
  }
}

// ---- duplicate datapoints ----

// Copies of a datapoint: 3 distinct columns, each 4 times, y = Phi 1 = 4 (a + b + c). With
// k = 3 the IHT family must use one copy of each (the first) with weight 4 each, f = 0, not
// spend its budget on copies of one column; giga and fw use only the first copies as well; with
// the refit every method's weight per group of copies is exactly 4 once it covers all groups.
TEST(EdgeCases, DuplicateDatapointsGetTheWeightOfAllTheirCopies) {
  const Matrix<double> phi = with_copies(25, 3, 4, 24);
  for (const Algorithm algorithm : kEveryAlgorithm) {
    for (const bool refit : {false, true}) {
      for (const index_t k : {3, 12, 40}) {
        const std::string what = label(algorithm, k, refit);
        const SolveResult result = solve(phi.view(), nullptr, options_for(algorithm, k, refit));
        expect_valid(phi.view(), nullptr, result, k, what);
        const std::vector<double> totals = group_totals(result.coreset, 3);
        const bool deterministic = is_iht_family(algorithm) || algorithm == Algorithm::giga ||
                                   algorithm == Algorithm::frank_wolfe;
        if (deterministic) {
          EXPECT_EQ(result.coreset.indices, (std::vector<index_t>{0, 1, 2})) << what;
        }
        const bool covers_every_group =
            std::all_of(totals.begin(), totals.end(), [](double t) { return t > 0.0; });
        if (is_iht_family(algorithm) || (refit && covers_every_group)) {
          for (const double total : totals) {
            EXPECT_NEAR(total, 4.0, 1e-6) << what;
          }
          EXPECT_LT(result.relative_error, 1e-6) << what;
        }
      }
    }
  }
}

// Copies appended to a planted problem: the IHT family (batches included) still finds the
// planted support on the first copies, with the planted weights.
TEST(EdgeCases, CopiesOfPlantedColumnsDoNotDistractTheIhtFamily) {
  const auto problem = test::planted_problem(200, 300, 6, 25);
  Matrix<double> phi(200, 306);
  std::copy(problem.phi.data(), problem.phi.data() + 200 * 300, phi.data());
  for (index_t c = 0; c < 6; ++c) {  // a copy of every planted column, after the originals
    const index_t j = problem.support[static_cast<std::size_t>(c)];
    std::copy(problem.phi.column(j), problem.phi.column(j) + 200, phi.column(300 + c));
  }
  for (const Algorithm algorithm : {Algorithm::iht, Algorithm::aiht, Algorithm::aiht2}) {
    for (const double batch : {0.0, 0.2}) {
      if (algorithm == Algorithm::iht && batch > 0.0) {
        continue;
      }
      SolverOptions options = options_for(algorithm, 6, false);
      options.batch_fraction = batch;
      const SolveResult result = solve(phi.view(), problem.y.data(), options);
      const std::string what = to_string(algorithm) + " batch " + std::to_string(batch);
      EXPECT_EQ(result.coreset.indices, problem.support) << what;
      for (std::size_t p = 0; p < problem.weights.size() && p < result.coreset.weights.size();
           ++p) {
        EXPECT_NEAR(result.coreset.weights[p], problem.weights[p], 1e-6) << what;
      }
    }
  }
}

// ---- fewer than k points ----

// Twelve datapoints, three distinct, and k = 12 = n: every method returns fewer than k points
// (the IHT family and the greedy methods one copy of each distinct point, the samplers merged
// repeats), and says so only through the coreset's size: result.k stays the budget.
TEST(EdgeCases, EveryMethodReturnsFewerThanKPointsOnDataWithFewDistinctPoints) {
  const Matrix<double> phi = with_copies(25, 3, 4, 26);
  for (const Algorithm algorithm : kEveryAlgorithm) {
    for (const bool refit : {false, true}) {
      const std::string what = label(algorithm, 12, refit);
      const SolveResult result = solve(phi.view(), nullptr, options_for(algorithm, 12, refit));
      expect_valid(phi.view(), nullptr, result, 12, what);
      EXPECT_LT(result.coreset.size(), 12) << what;
      EXPECT_GE(result.coreset.size(), 1) << what;
      EXPECT_EQ(result.k, 12) << what;
      if (algorithm != Algorithm::importance_sampling && algorithm != Algorithm::uniform) {
        EXPECT_EQ(result.coreset.size(), 3) << what;
      }
    }
  }
}

// ---- the same through the pipeline ----

// Linear regression without intercept: rows with x = 0 and y = 0 have a constant
// log-likelihood (zero columns of Phi), and rows repeat. k = n works for every algorithm, with
// fewer than k points, finite KLs and no uninformative row kept (uniform aside, unless refitted);
// k = n + 1 is refused before any work with a message naming both numbers.
TEST(EdgeCases, ThePipelineHandlesDuplicateAndUninformativeRows) {
  Dataset data;
  data.covariates = Matrix<double>(16, 2);
  data.response.assign(16, 0.0);
  const double distinct[3][3] = {{1.0, 0.5, 2.0}, {-0.3, 1.2, -1.0}, {0.8, -0.9, 0.4}};
  for (index_t i = 0; i < 12; ++i) {  // 3 distinct rows, 4 copies each
    data.covariates(i, 0) = distinct[i % 3][0];
    data.covariates(i, 1) = distinct[i % 3][1];
    data.response[static_cast<std::size_t>(i)] = distinct[i % 3][2];
  }  // rows 12-15: x = 0, y = 0
  BuildOptions options;
  options.model.kind = ModelKind::linear;
  options.model.intercept = false;
  options.samples = 100;
  options.solver.k = 16;
  options.solver.tolerance = 1e-12;
  options.solver.max_iterations = 2000;
  for (const Algorithm algorithm : kEveryAlgorithm) {
    for (const bool refit : {false, true}) {
      const std::string what = label(algorithm, 16, refit);
      options.solver.algorithm = to_build_algorithm(algorithm);
      options.solver.refit = refit;
      const BuildResult result = build_coreset(data, options);
      const Coreset& c = result.solve.coreset;
      EXPECT_LT(c.size(), 16) << what;
      EXPECT_GE(c.size(), 1) << what;
      EXPECT_TRUE(std::isfinite(result.quality.forward_kl)) << what;
      EXPECT_TRUE(std::isfinite(result.quality.reverse_kl)) << what;
      for (const double w : c.weights) {
        EXPECT_GT(w, 0.0) << what;
      }
      if (algorithm != Algorithm::uniform || refit) {
        for (const index_t i : c.indices) {
          EXPECT_LT(i, 12) << what << " kept uninformative row " << i;
        }
      }
      if (is_iht_family(algorithm)) {
        // Phi has rank 3 here (d = 2: the linear and quadratic terms), so the first copies
        // reproduce y = Phi 1, and with it the full posterior, exactly.
        EXPECT_EQ(c.indices, (std::vector<index_t>{0, 1, 2})) << what;
        EXPECT_LT(result.quality.forward_kl, 1e-8) << what;
      }
    }
  }
  options.solver.k = 17;
  try {
    build_coreset(data, options);
    ADD_FAILURE() << "k = 17 > 16 rows accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("has 16 rows, fewer than k = 17"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace coreset
