// Every (algorithm, step rule) pair, for parameterised solver tests.
#pragma once

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "coreset/solver.hpp"

namespace coreset::test {

/// SolverOptions for `algorithm` at budget k, every other setting at its default: the base each
/// test file's own options_for adjusts.
inline SolverOptions solver_options(Algorithm algorithm, index_t k) {
  SolverOptions options;
  options.algorithm = algorithm;
  options.k = k;
  return options;
}

/// Two solves that must be one: the same iterations, stop, objectives, history and coreset, bit
/// for bit (the same drivers and backend reached the result two ways).
inline void expect_same_solve(const SolveResult& got, const SolveResult& expected) {
  EXPECT_EQ(got.k, expected.k);
  EXPECT_EQ(got.iterations, expected.iterations);
  EXPECT_EQ(got.stop_reason, expected.stop_reason);
  EXPECT_EQ(got.converged, expected.converged);
  EXPECT_EQ(got.objective, expected.objective);
  EXPECT_EQ(got.objective_before_refit, expected.objective_before_refit);
  EXPECT_EQ(got.relative_error, expected.relative_error);
  EXPECT_EQ(got.objective_history, expected.objective_history);
  EXPECT_EQ(got.coreset.indices, expected.coreset.indices);
  EXPECT_EQ(got.coreset.weights, expected.coreset.weights);
}

struct SolverCase {
  Algorithm algorithm;
  StepRule rule;
};

/// iht (whose step is fixed) once, the accelerated variants under each rule.
inline auto every_solver_case() {
  return ::testing::Values(
      SolverCase{Algorithm::iht, StepRule::exact}, SolverCase{Algorithm::aiht, StepRule::exact},
      SolverCase{Algorithm::aiht, StepRule::reference},
      SolverCase{Algorithm::aiht, StepRule::paper}, SolverCase{Algorithm::aiht2, StepRule::exact},
      SolverCase{Algorithm::aiht2, StepRule::reference},
      SolverCase{Algorithm::aiht2, StepRule::paper});
}

/// Test-name suffix such as "a_iht_2_exact".
inline std::string solver_case_name(const ::testing::TestParamInfo<SolverCase>& info) {
  std::string name = to_string(info.param.algorithm) + "_" + to_string(info.param.rule);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

}  // namespace coreset::test
