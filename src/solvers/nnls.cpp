#include "solvers/nnls.hpp"

#include <Eigen/Dense>
#include <vector>

namespace coreset::solvers {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

NnlsResult nnls(const MatrixXd& a, const VectorXd& y, const VectorXd& start) {
  const Index m = a.cols();
  NnlsResult result;
  result.x = start.cwiseMax(0.0);
  VectorXd& x = result.x;
  std::vector<char> passive(static_cast<std::size_t>(m));
  // A column whose entry was refused at once (its least-squares weight came out <= 0 at the
  // point where its dual looked positive: rounding) is not offered again until x moves.
  std::vector<char> blocked(static_cast<std::size_t>(m), 0);
  for (Index j = 0; j < m; ++j) {
    passive[j] = x[j] > 0.0;
  }
  const VectorXd norms = a.colwise().norm().transpose();
  const double threshold = 1e-10 * y.norm();
  // Lawson-Hanson needs at most a few solves per column in practice; the cap only guards
  // against cycling on rounding noise.
  const int max_solves = 10 * static_cast<int>(m) + 20;

  std::vector<Index> columns;
  MatrixXd a_passive;
  VectorXd z;
  Index added = -1;
  while (true) {
    // Inner loop: the least-squares solution on the passive set, pulled back into x >= 0.
    bool moved = false;
    while (true) {
      columns.clear();
      for (Index j = 0; j < m; ++j) {
        if (passive[j]) {
          columns.push_back(j);
        }
      }
      if (columns.empty()) {
        break;
      }
      if (result.iterations >= max_solves) {
        result.optimal = false;
        return result;
      }
      a_passive.resize(a.rows(), static_cast<Index>(columns.size()));
      for (std::size_t p = 0; p < columns.size(); ++p) {
        a_passive.col(static_cast<Index>(p)) = a.col(columns[p]);
      }
      z = a_passive.completeOrthogonalDecomposition().solve(y);
      ++result.iterations;
      double alpha = 1.0;
      Index hit = -1;
      for (std::size_t p = 0; p < columns.size(); ++p) {
        const Index j = columns[p];
        if (z[static_cast<Index>(p)] <= 0.0) {
          const double gap = x[j] - z[static_cast<Index>(p)];
          const double ratio = gap > 0.0 ? x[j] / gap : 0.0;
          if (hit < 0 || ratio < alpha) {
            alpha = ratio;
            hit = j;
          }
        }
      }
      if (hit < 0) {  // feasible: take it
        for (std::size_t p = 0; p < columns.size(); ++p) {
          x[columns[p]] = z[static_cast<Index>(p)];
        }
        moved |= added >= 0 && passive[added];  // the new column really entered
        break;
      }
      // Move to the boundary of x >= 0 on the segment towards z; the blocking entries leave.
      for (std::size_t p = 0; p < columns.size(); ++p) {
        const Index j = columns[p];
        x[j] += alpha * (z[static_cast<Index>(p)] - x[j]);
      }
      x[hit] = 0.0;
      for (const Index j : columns) {
        if (!(x[j] > 0.0)) {
          x[j] = 0.0;
          passive[j] = 0;
        }
      }
      moved |= alpha > 0.0;
      if (alpha == 0.0 && hit == added) {
        blocked[hit] = 1;
      }
    }
    if (moved) {
      std::fill(blocked.begin(), blocked.end(), 0);
    }
    // Outer loop: the inactive column with the largest positive dual a_j^T (y - A x) enters.
    const VectorXd dual = a.transpose() * (y - a * x);
    added = -1;
    for (Index j = 0; j < m; ++j) {
      if (!passive[j] && !blocked[j] && dual[j] > threshold * norms[j] &&
          (added < 0 || dual[j] > dual[added])) {
        added = j;
      }
    }
    if (added < 0) {
      return result;
    }
    passive[added] = 1;
  }
}

}  // namespace coreset::solvers
