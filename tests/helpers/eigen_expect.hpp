// GoogleTest assertions for Eigen matrices, with both matrices printed on failure.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <sstream>
#include <string>

namespace coreset::test {

/// A matrix as text, for failure messages.
inline std::string show(const Eigen::MatrixXd& m) {
  std::ostringstream stream;
  stream << m;
  return stream.str();
}

/// ||got - expected|| <= tolerance * max(floor, ||expected||): floor 0 makes the check purely
/// relative, floor 1 absolute for small matrices.
inline void expect_matrix_near(const Eigen::MatrixXd& got, const Eigen::MatrixXd& expected,
                               double tolerance, double floor, const std::string& what) {
  ASSERT_EQ(got.rows(), expected.rows()) << what;
  ASSERT_EQ(got.cols(), expected.cols()) << what;
  const double error = (got - expected).norm();
  EXPECT_LE(error, tolerance * std::max(floor, expected.norm()))
      << what + "\ngot\n" + show(got) + "\nexpected\n" + show(expected);
}

}  // namespace coreset::test
