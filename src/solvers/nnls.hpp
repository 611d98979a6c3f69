// Non-negative least squares, min ||y - A x||^2 subject to x >= 0, for the small dense problems
// of the refit (A = the S x |support| columns of Phi on a coreset's support).
#pragma once

#include "support/eigen.hpp"

namespace coreset::solvers {

struct NnlsResult {
  Eigen::VectorXd x;    ///< the solution, >= 0; exact zeros off the final passive set
  int iterations = 0;   ///< least-squares solves made
  bool optimal = true;  ///< false only if the iteration cap stopped it (x is still feasible)
};

/// Lawson and Hanson's active-set method (Solving Least Squares Problems, 1974, ch. 23), started
/// from the feasible point `start` (>= 0; entries <= 0 are taken as 0) with its positive entries
/// as the passive set. Each least-squares subproblem on the passive columns is solved by a
/// complete orthogonal decomposition (so duplicate or dependent columns get the minimum-norm
/// solution, never a division by zero), and each step moves along the segment from the current
/// point towards that solution, so f never increases. It stops when no inactive column has a
/// dual value a_j^T (y - A x) above 1e-10 ||a_j|| ||y|| (the KKT conditions up to rounding).
/// The result is exact up to rounding: unlike a gradient method, it reaches the optimum in
/// finitely many steps.
NnlsResult nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& y, const Eigen::VectorXd& start);

}  // namespace coreset::solvers
