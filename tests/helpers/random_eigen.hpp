// Random dense matrices for the model and posterior tests.
#pragma once

#include <Eigen/Core>
#include <random>

namespace coreset::test {

inline constexpr double kPi = 3.14159265358979323846;

/// i.i.d. N(0, 1) entries.
inline Eigen::MatrixXd random_matrix(Eigen::Index rows, Eigen::Index cols, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j) {
    for (Eigen::Index i = 0; i < rows; ++i) {
      m(i, j) = normal(rng);
    }
  }
  return m;
}

/// A well-conditioned symmetric positive definite matrix with off-diagonal structure.
inline Eigen::MatrixXd random_spd(Eigen::Index d, std::mt19937_64& rng) {
  const Eigen::MatrixXd a = random_matrix(d, d, rng);
  return a * a.transpose() / static_cast<double>(d) + 0.5 * Eigen::MatrixXd::Identity(d, d);
}

}  // namespace coreset::test
