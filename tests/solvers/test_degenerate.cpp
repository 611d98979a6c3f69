// Degenerate problems end cleanly, never in NaN; bad arguments are refused with a clear message.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "helpers/error_message.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/solver_cases.hpp"

namespace coreset {
namespace {

void expect_finite(const SolveResult& result) {
  EXPECT_TRUE(std::isfinite(result.objective));
  EXPECT_TRUE(std::isfinite(result.relative_error));
  for (const double f : result.objective_history) {
    EXPECT_TRUE(std::isfinite(f));
  }
  for (const double w : result.coreset.weights) {
    EXPECT_TRUE(std::isfinite(w));
  }
}

class EveryAlgorithm : public ::testing::TestWithParam<Algorithm> {};

TEST_P(EveryAlgorithm, ZeroTargetStopsAtOnceWithTheEmptyCoreset) {
  const Matrix<double> phi = test::gaussian_matrix(20, 50, 1);
  const std::vector<double> y(20, 0.0);
  const SolveResult result = solve(phi.view(), y.data(), test::solver_options(GetParam(), 5));
  expect_finite(result);
  EXPECT_EQ(result.coreset.size(), 0);
  EXPECT_EQ(result.stop_reason, StopReason::stationary);
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.iterations, 1);
  EXPECT_EQ(result.objective, 0.0);
  EXPECT_EQ(result.relative_error, 0.0);
}

TEST_P(EveryAlgorithm, ZeroMatrixLeavesTheTargetUnexplained) {
  const Matrix<double> phi(10, 30);
  const std::vector<double> y(10, 1.0);
  const SolveResult result = solve(phi.view(), y.data(), test::solver_options(GetParam(), 3));
  expect_finite(result);
  EXPECT_EQ(result.coreset.size(), 0);
  EXPECT_EQ(result.stop_reason, StopReason::stationary);
  EXPECT_DOUBLE_EQ(result.objective, 10.0);
  EXPECT_DOUBLE_EQ(result.relative_error, 1.0);
}

TEST_P(EveryAlgorithm, ZeroColumnsAreNeverSelected) {
  Matrix<double> phi = test::gaussian_matrix(40, 60, 2);
  for (const index_t j : {0, 7, 59}) {
    std::fill(phi.column(j), phi.column(j) + 40, 0.0);
  }
  const SolveResult result = solve(phi.view(), nullptr, test::solver_options(GetParam(), 10));
  expect_finite(result);
  for (const index_t j : result.coreset.indices) {
    EXPECT_NE(j, 0);
    EXPECT_NE(j, 7);
    EXPECT_NE(j, 59);
  }
}

// A target anti-correlated with every column: no non-negative w helps, so w stays 0.
TEST_P(EveryAlgorithm, TargetOutsideTheConeGivesTheEmptyCoreset) {
  const Matrix<double> phi = test::gaussian_matrix(30, 40, 3);
  std::vector<double> y(30, 0.0);
  for (index_t j = 0; j < 40; ++j) {
    for (index_t i = 0; i < 30; ++i) {
      y[i] -= phi(i, j);
    }
  }
  // Only guaranteed when every column has <phi_j, y> <= 0; make it so by flipping columns.
  Matrix<double> aligned = phi;
  for (index_t j = 0; j < 40; ++j) {
    double correlation = 0.0;
    for (index_t i = 0; i < 30; ++i) {
      correlation += phi(i, j) * y[i];
    }
    if (correlation > 0) {
      for (index_t i = 0; i < 30; ++i) {
        aligned(i, j) = -phi(i, j);
      }
    }
  }
  const SolveResult result = solve(aligned.view(), y.data(), test::solver_options(GetParam(), 5));
  expect_finite(result);
  EXPECT_EQ(result.coreset.size(), 0);
  EXPECT_DOUBLE_EQ(result.relative_error, 1.0);
}

// Identical columns make Phi d = 0 for moves between them: zero line-search denominators.
TEST_P(EveryAlgorithm, DuplicateColumnsEndCleanly) {
  Matrix<double> phi(25, 12);
  const Matrix<double> base = test::gaussian_matrix(25, 3, 4);
  for (index_t j = 0; j < 12; ++j) {
    std::copy(base.column(j % 3), base.column(j % 3) + 25, phi.column(j));
  }
  // With k = 3 ties between copies may trap the selection on copies of one column; it must
  // still end cleanly. With k = n the three distinct columns span y and f reaches 0.
  const SolveResult sparse = solve(phi.view(), nullptr, test::solver_options(GetParam(), 3));
  expect_finite(sparse);
  EXPECT_LT(sparse.relative_error, 0.9);  // still far better than the empty coreset
  SolverOptions options = test::solver_options(GetParam(), 12);
  options.tolerance = 1e-12;
  const SolveResult full = solve(phi.view(), nullptr, options);
  expect_finite(full);
  EXPECT_LT(full.relative_error, 1e-6);
}

TEST_P(EveryAlgorithm, SingleColumnAndSingleRowProblems) {
  const Matrix<double> column = test::gaussian_matrix(7, 1, 5);
  const SolveResult one = solve(column.view(), nullptr, test::solver_options(GetParam(), 1));
  expect_finite(one);
  ASSERT_EQ(one.coreset.size(), 1);
  EXPECT_NEAR(one.coreset.weights[0], 1.0, 1e-9);
  const Matrix<double> row = test::gaussian_matrix(1, 9, 6);
  const SolveResult wide = solve(row.view(), nullptr, test::solver_options(GetParam(), 2));
  expect_finite(wide);
  EXPECT_LE(wide.coreset.size(), 2);
  EXPECT_LT(wide.relative_error, 1.0);
}

INSTANTIATE_TEST_SUITE_P(All, EveryAlgorithm,
                         ::testing::Values(Algorithm::iht, Algorithm::aiht, Algorithm::aiht2),
                         [](const auto& info) {
                           return std::string(info.param == Algorithm::iht    ? "iht"
                                              : info.param == Algorithm::aiht ? "aiht"
                                                                              : "aiht2");
                         });

using test::invalid_argument_message;

TEST(Validation, RejectsOptionsOutsideTheirDomain) {
  const Matrix<double> phi = test::gaussian_matrix(5, 8, 7);
  auto with = [&](auto change) {
    SolverOptions options = test::solver_options(Algorithm::aiht2, 2);
    change(options);
    return invalid_argument_message([&] { solve(phi.view(), nullptr, options); });
  };
  EXPECT_NE(with([](SolverOptions& o) { o.k = 0; }).find("k must be at least 1"),
            std::string::npos);
  EXPECT_NE(with([](SolverOptions& o) { o.k = -3; }).find("k must be at least 1"),
            std::string::npos);
  EXPECT_NE(with([](SolverOptions& o) { o.max_iterations = 0; }).find("max_iterations"),
            std::string::npos);
  EXPECT_NE(with([](SolverOptions& o) { o.max_iterations = 2'000'000'000; }).find("1e9"),
            std::string::npos);
  EXPECT_NE(with([](SolverOptions& o) { o.tolerance = -1e-3; }).find("tolerance"),
            std::string::npos);
  EXPECT_NE(with([](SolverOptions& o) {
              o.tolerance = std::numeric_limits<double>::quiet_NaN();
            }).find("tolerance"),
            std::string::npos);
  EXPECT_NE(with([](SolverOptions& o) { o.threads = -1; }).find("threads"), std::string::npos);
}

TEST(Validation, RejectsNonFiniteDataNamingThePosition) {
  Matrix<double> phi = test::gaussian_matrix(5, 8, 8);
  phi(3, 6) = std::numeric_limits<double>::infinity();
  const std::string message = invalid_argument_message(
      [&] { solve(phi.view(), nullptr, test::solver_options(Algorithm::aiht2, 2)); });
  EXPECT_NE(message.find("row 3, column 6"), std::string::npos) << message;

  const Matrix<double> finite = test::gaussian_matrix(5, 8, 9);
  std::vector<double> y(5, 1.0);
  y[4] = std::numeric_limits<double>::quiet_NaN();
  const std::string y_message = invalid_argument_message(
      [&] { solve(finite.view(), y.data(), test::solver_options(Algorithm::aiht2, 2)); });
  EXPECT_NE(y_message.find("position 4"), std::string::npos) << y_message;
}

TEST(Validation, RejectsEmptyOrMalformedMatrices) {
  const std::vector<double> data(10, 1.0);
  const auto options = test::solver_options(Algorithm::aiht2, 1);
  EXPECT_THROW(solve(MatrixView<double>{data.data(), 0, 5, 1}, nullptr, options), InvalidArgument);
  EXPECT_THROW(solve(MatrixView<double>{data.data(), 2, 0, 2}, nullptr, options), InvalidArgument);
  EXPECT_THROW(solve(MatrixView<double>{nullptr, 2, 5, 2}, nullptr, options), InvalidArgument);
  EXPECT_THROW(solve(MatrixView<double>{data.data(), 2, 5, 1}, nullptr, options), InvalidArgument);
}

TEST(Validation, ObjectiveRejectsIndicesOutsidePhi) {
  const Matrix<double> phi = test::gaussian_matrix(3, 4, 10);
  Coreset coreset;
  coreset.indices = {4};
  coreset.weights = {1.0};
  EXPECT_THROW(objective(phi.view(), nullptr, coreset), InvalidArgument);
}

TEST(Names, RoundTripAndRejectUnknownNames) {
  for (const Algorithm a : {Algorithm::iht, Algorithm::aiht, Algorithm::aiht2}) {
    EXPECT_EQ(parse_algorithm(to_string(a)), a);
  }
  for (const StepRule r : {StepRule::exact, StepRule::reference, StepRule::paper}) {
    EXPECT_EQ(parse_step_rule(to_string(r)), r);
  }
  const std::string message = invalid_argument_message([] { parse_algorithm("aiht"); });
  EXPECT_NE(message.find("a-iht-2"), std::string::npos) << message;
}

}  // namespace
}  // namespace coreset
